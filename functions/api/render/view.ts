// The public view of a tournament (contract section 15): what `GET /public/tournaments/{slug}`
// answers, and what the bracket renderer draws from. The types are the API's own models
// (resources/models/, the zod schemas that also make the OpenAPI document), read as types
// only: the renderer stays pure and runs without a database (and in the tests without Deno).
import type { z } from "zod";
import type { FORMATS } from "../contract.ts";
import type { PublicView as PublicViewModel } from "../resources/models/public.ts";

export type Format = (typeof FORMATS)[number];

/** `GET /public/tournaments/{slug}`: the keyed routes' documents, without payment or account data. */
export type PublicView = z.infer<typeof PublicViewModel>;

export type ViewTournament = PublicView["tournament"];
export type ViewStage = PublicView["stages"][number];
export type ViewRegistration = PublicView["registrations"][number];
export type ViewTeam = ViewRegistration["teams"];
/** One player of a registration's lineup: handle, country, role, captain (never a name, external id or game account). */
export type ViewLineupEntry = ViewRegistration["lineup"][number];
export type ViewMatch = PublicView["matches"][number];
/** A two-sided match's game (a free-for-all lobby's games are placements: contract section 20). */
export type ViewGame = Extract<ViewMatch["games"][number], { team1_score: number }>;
/** A free-for-all lobby's game: every team's placement, kills and points. */
export type ViewLobbyGame = Extract<ViewMatch["games"][number], { results: unknown }>;
/** A free-for-all lobby's team. */
export type ViewOpponent = NonNullable<ViewMatch["opponents"]>[number];
export type ViewStanding = PublicView["standings"][number];
