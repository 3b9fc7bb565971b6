// Players and rosters (contract section 16): the players an account keeps (private to it) and
// the standing members of its teams, each with a role and at most one captain. Lineups, the
// players of one registration, are resources/lineups.ts.
import { z } from "zod";
import { pageQuery, text, trimmedText } from "../validation.ts";
import type { Route } from "../route.ts";
import { DeleteResult } from "./models/common.ts";
import { Player, ROLES, RosterMember } from "./models/players.ts";

/** ISO 3166-1 alpha-2: the officially assigned codes. */
const COUNTRIES = new Set(
  ("AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
    "CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR " +
    "GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO " +
    "JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR " +
    "MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO " +
    "RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV " +
    "TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW").split(" "),
);

export const GAME_PROVIDERS = [
  "steam",
  "riot",
  "epic",
  "battlenet",
  "psn",
  "xbox",
  "nintendo",
  "discord",
  "ea",
  "ubisoft",
  "faceit",
  "other",
] as const;

const country = z.string().refine((s) => COUNTRIES.has(s), { message: "must be an ISO 3166-1 alpha-2 code in upper case (e.g. SE)" })
  .meta({ description: "ISO 3166-1 alpha-2, upper case.", pattern: "^[A-Z]{2}$" });

const gameAccounts = z.partialRecord(z.enum(GAME_PROVIDERS), text(100).pipe(z.string().min(1, "must be 1 to 100 characters")))
  .meta({ description: "The player's game accounts, `{provider: id}`; each id 1–100 characters." });

/** A player's fields as bodies send them (also a participant's lineup entries: resources/participants.ts). */
export const playerFields = {
  handle: trimmedText(50),
  name: text(100).nullable(),
  country: country.nullable(),
  external_id: text(200).pipe(z.string().min(1, "must be 1 to 200 characters")).nullable()
    .meta({ description: "Your own id for the player (1–200); unique in your account (409 `external_id_taken`)." }),
  game_accounts: gameAccounts,
};

export const CreatePlayer = z.strictObject({
  handle: playerFields.handle,
  name: playerFields.name.optional(),
  country: playerFields.country.optional(),
  external_id: playerFields.external_id.optional(),
  game_accounts: playerFields.game_accounts.optional(),
});

export const UpdatePlayer = z.strictObject({
  handle: playerFields.handle.optional(),
  name: playerFields.name.optional(),
  country: playerFields.country.optional(),
  external_id: playerFields.external_id.optional(),
  game_accounts: playerFields.game_accounts.optional(),
}).refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });

export const ListPlayersQuery = z.object({
  ...pageQuery(),
  search: text(100).optional()
    .meta({ description: "Keeps players whose handle, name or external_id contains this text, in any case." }),
  external_id: text(200).optional().meta({ description: "Keeps the player with exactly this external_id." }),
});

export const PutRosterMember = z.strictObject({
  role: z.enum(ROLES),
  captain: z.boolean().optional().meta({ description: "The team's captain: setting one clears the other. Default false." }),
});

const playerLocation = (data: { id: string }) => `/players/${data.id}`;

export const playerRoutes: Route[] = [
  {
    method: "GET",
    path: "/players",
    scope: "read:teams",
    op: "players.list",
    query: ListPlayersQuery,
    paginated: true,
    response: z.array(Player),
    summary: "List your players",
    description: "Your account's players only, by handle then id.",
  },
  {
    method: "POST",
    path: "/players",
    scope: "write:teams",
    op: "players.create",
    body: CreatePlayer,
    response: Player,
    location: playerLocation,
    conflicts: ["external_id_taken"],
    summary: "Create a player",
    description: "Players are private to your account: no other account can see them or put them in a lineup.",
    bodyExample: {
      handle: "frost",
      name: "Erik Lind",
      country: "SE",
      external_id: "user-4821",
      game_accounts: { steam: "76561198000000000" },
    },
  },
  { method: "GET", path: "/players/{player_id}", scope: "read:teams", op: "players.get", response: Player, summary: "Get a player" },
  {
    method: "PATCH",
    path: "/players/{player_id}",
    scope: "write:teams",
    op: "players.update",
    body: UpdatePlayer,
    response: Player,
    conflicts: ["external_id_taken"],
    summary: "Update a player",
    description: "A new handle or country reaches the lineups of tournaments still in registration; started ones keep theirs.",
    bodyExample: { country: "NO" },
  },
  {
    method: "DELETE",
    path: "/players/{player_id}",
    scope: "write:teams",
    op: "players.delete",
    response: DeleteResult,
    conflicts: ["player_in_use"],
    summary: "Delete a player",
    description:
      "409 `player_in_use` while the lineup of a tournament that has started holds the player; otherwise they leave every roster and open lineup.",
  },
];

export const rosterRoutes: Route[] = [
  {
    method: "GET",
    path: "/teams/{team_id}/players",
    scope: "read:teams",
    op: "roster.list",
    response: z.array(RosterMember),
    summary: "List a team's roster",
    description: "Only a team your account owns (else 403 `team_not_owned`), in the order members were added.",
  },
  {
    method: "PUT",
    path: "/teams/{team_id}/players/{player_id}",
    scope: "write:teams",
    op: "roster.put",
    body: PutRosterMember,
    response: RosterMember,
    summary: "Add a player to a team's roster, or change their role",
    description:
      "Only a team your account owns (else 403 `team_not_owned`) and a player of your account (else 404). A team has at most one captain: setting one clears the other.",
    bodyExample: { role: "player", captain: true },
  },
  {
    method: "DELETE",
    path: "/teams/{team_id}/players/{player_id}",
    scope: "write:teams",
    op: "roster.delete",
    response: DeleteResult,
    summary: "Remove a player from a team's roster",
    description: "The registrations' lineups already copied from the roster stay as they are.",
  },
];
