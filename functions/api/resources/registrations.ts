import { z } from "zod";
import { uuid } from "../validation.ts";
import type { Route } from "../route.ts";
import { DeleteResult, EXAMPLE_IDS, Registration } from "./models.ts";

export const CreateRegistration = z.strictObject({ team_id: uuid() });

export const UpdateRegistration = z.strictObject({
  seed: z.int().min(1).max(1024).nullable().optional()
    .meta({ description: "1–1024, unique within the tournament (409 `seed_taken`); null clears it. Only while in `registration`." }),
  payment_status: z.enum(["pending", "complete", "refunded"]).optional().meta({ description: "In any status." }),
  checked_in: z.boolean().optional()
    .meta({
      description: "Checks the team in (or out). With check-in on, only from `check_in_opens` until the start (409 `check_in_closed`).",
    }),
}).refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });

export const ListRegistrationsQuery = z.object({
  status: z.enum(["pending", "complete", "refunded"]).optional(),
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
    description: "In registration order (oldest first); `status` filters by payment status.",
  },
  {
    method: "POST",
    path: "/tournaments/{tournament_id}/registrations",
    scope: "write:registrations",
    op: "registrations.create",
    body: CreateRegistration,
    response: Registration,
    location: (data: { id: string; tournament_id: string }) => `/tournaments/${data.tournament_id}/registrations/${data.id}`,
    conflicts: ["registration_closed", "already_registered", "tournament_full"],
    summary: "Register a team",
    description:
      "Checks in order: tournament (404), team (404), open for registration (409 `registration_closed`), not yet registered (409 `already_registered`), capacity (409 `tournament_full`). Exactly one request wins the last slot.",
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
    conflicts: ["seed_taken", "check_in_closed", "tournament_locked"],
    summary: "Seed, check in, or record a payment",
    description:
      "`seed` and `checked_in` change only while the tournament is in `registration` (later: 409 `tournament_locked`, or `check_in_closed` for check-in when the tournament has check-in); with check-in on, `checked_in: true` before `check_in_opens` is 409 `check_in_closed`; `payment_status` in any status. Only values that change count, so a client may send back what it read. At the start, seeded teams come first (by seed), then the rest in registration order; with check-in on, only checked-in teams take part.",
    bodyExample: { seed: 1, checked_in: true },
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
