import { z } from "zod";
import { LINEUP_LIMITS } from "../contract.ts";
import { uuid } from "../validation.ts";
import type { Route } from "../route.ts";
import { DeleteResult, EXAMPLE_IDS } from "./models/common.ts";
import { Registration, REGISTRATION_STATES } from "./models/registrations.ts";
import { ROLES } from "./models/players.ts";

export const CreateRegistration = z.strictObject({ team_id: uuid() });

export const UpdateRegistration = z.strictObject({
  seed: z.int().min(1).max(1024).nullable().optional()
    .meta({ description: "1–1024, unique within the tournament (409 `seed_taken`); null clears it. Only while in `registration`." }),
  payment_status: z.enum(["pending", "complete", "refunded"]).optional().meta({ description: "In any status." }),
  checked_in: z.boolean().optional()
    .meta({
      description: "Checks the team in (or out). With check-in on, only from `check_in_opens` until the start (409 `check_in_closed`).",
    }),
  state: z.enum(["accepted", "refused"]).optional().meta({
    description:
      "Accept (needs a free slot: 409 `tournament_full`) or refuse (frees its slot for the oldest waitlisted registration). Only while in `registration`.",
  }),
  disqualified: z.boolean().optional().meta({
    description:
      "`true` on an `ongoing` tournament: the team forfeits its ready match now and every later match it reaches or is placed in as that match gets ready; standings mark it `disqualified` and place it last among the teams placed alongside it. Not reversible (409 `invalid_status_transition`).",
  }),
}).refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });

/** PUT .../lineup: the lineup's entries in order; each player once, at most one captain. The tournament's caps are the database's. */
export const PutLineup = z.strictObject({
  players: z.array(z.strictObject({
    player_id: uuid(),
    role: z.enum(ROLES),
    captain: z.boolean().optional().meta({ description: "Default false; at most one captain." }),
  })).max(100 + LINEUP_LIMITS.substitutesMax + LINEUP_LIMITS.coaches).superRefine((entries, ctx) => {
    const seen = new Set<string>();
    let captains = 0;
    entries.forEach((e, i) => {
      const id = e.player_id.toLowerCase();
      if (seen.has(id)) ctx.addIssue({ code: "custom", path: [i, "player_id"], message: "appears more than once" });
      seen.add(id);
      if (e.captain && ++captains === 2) {
        ctx.addIssue({ code: "custom", path: [i, "captain"], message: "is a second captain: a lineup has at most one" });
      }
    });
  }).meta({
    description:
      `In lineup order: at most \`team_size\` players, \`substitutes_max\` substitutes and ${LINEUP_LIMITS.coaches} coaches, each a player of the tournament's account.`,
  }),
});

export const ListRegistrationsQuery = z.object({
  status: z.enum(["pending", "complete", "refunded"]).optional().meta({ description: "Payment status." }),
  state: z.enum(REGISTRATION_STATES).optional(),
});

export const registrationRoutes: Route[] = [
  {
    method: "GET",
    path: "/tournaments/{tournament_id}/registrations",
    scope: "read:registrations",
    op: "registrations.list",
    query: ListRegistrationsQuery,
    response: z.array(Registration),
    summary: "List a tournament's registrations",
    description: "In registration order (oldest first); `status` filters by payment status, `state` by state.",
  },
  {
    method: "POST",
    path: "/tournaments/{tournament_id}/registrations",
    scope: "write:registrations",
    op: "registrations.create",
    body: CreateRegistration,
    response: Registration,
    location: (data: { id: string; tournament_id: string }) => `/tournaments/${data.tournament_id}/registrations/${data.id}`,
    conflicts: ["registration_closed", "already_registered", "tournament_full", "player_already_registered"],
    summary: "Register a team",
    description:
      "Checks in order: tournament (404), team (404), open for registration (409 `registration_closed`), not yet registered (409 `already_registered`), capacity (409 `tournament_full`; with `waitlist` on, the registration is `waitlisted` instead). Exactly one request wins the last slot. A team of the tournament's account starts with its roster as its lineup (members beyond the tournament's caps left out; a member already in another team's lineup of the tournament is 409 `player_already_registered`).",
    bodyExample: { team_id: EXAMPLE_IDS.team1 },
  },
  {
    method: "GET",
    path: "/tournaments/{tournament_id}/registrations/{registration_id}",
    scope: "read:registrations",
    op: "registrations.get",
    response: Registration,
    summary: "Get a registration",
  },
  {
    method: "PATCH",
    path: "/tournaments/{tournament_id}/registrations/{registration_id}",
    scope: "write:registrations",
    op: "registrations.update",
    body: UpdateRegistration,
    response: Registration,
    conflicts: ["seed_taken", "check_in_closed", "tournament_locked", "lineup_incomplete", "tournament_full", "invalid_status_transition"],
    summary: "Seed, check in, accept or refuse, disqualify, or record a payment",
    description:
      "`seed` and `checked_in` change only while the tournament is in `registration` (later: 409 `tournament_locked`, or `check_in_closed` for check-in when the tournament has check-in); with check-in on, `checked_in: true` before `check_in_opens` is 409 `check_in_closed`; `payment_status` in any status. Only values that change count, so a client may send back what it read. At the start, seeded teams come first (by seed), then the rest in registration order; with check-in on, only checked-in teams take part.",
    bodyExample: { seed: 1, checked_in: true },
  },
  {
    method: "PUT",
    path: "/tournaments/{tournament_id}/registrations/{registration_id}/lineup",
    scope: "write:registrations",
    op: "lineups.put",
    body: PutLineup,
    response: Registration,
    conflicts: ["tournament_locked", "player_already_registered"],
    summary: "Replace a registration's lineup",
    description:
      "While the tournament is in `registration` (else 409 `tournament_locked`). Players of the tournament's account, each once, within the tournament's caps (400 naming the entry). One player, one team per tournament: a player in another registration's lineup is 409 `player_already_registered` (coaches exempt).",
    bodyExample: { players: [{ player_id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d40", role: "player", captain: true }] },
  },
  {
    method: "DELETE",
    path: "/tournaments/{tournament_id}/registrations/{registration_id}",
    scope: "write:registrations",
    op: "registrations.delete",
    response: DeleteResult,
    conflicts: ["registration_closed"],
    summary: "Withdraw a team",
    description: "While the tournament is in `registration` (else 409 `registration_closed`); the slot is free again at once.",
  },
];
