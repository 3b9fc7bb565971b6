import { z } from "zod";
import { uuid } from "../validation.ts";
import type { Route } from "../route.ts";
import { EXAMPLE_IDS, Registration } from "./models.ts";

export const CreateRegistration = z.strictObject({ team_id: uuid() });

export const ListRegistrationsQuery = z.object({
  status: z.enum(["pending", "complete", "refunded"]).optional(),
});

export const registrationRoutes: Route[] = [
  { method: "GET", path: "/tournaments/{tournament_id}/registrations", scope: "read:registrations",
    op: "registrations.list", query: ListRegistrationsQuery, response: z.array(Registration),
    summary: "List a tournament's registrations",
    description: "In registration order (oldest first); `status` filters by payment status." },
  { method: "POST", path: "/tournaments/{tournament_id}/registrations", scope: "write:registrations",
    op: "registrations.create", body: CreateRegistration, response: Registration,
    location: (data: { id: string; tournament_id: string }) =>
      `/tournaments/${data.tournament_id}/registrations/${data.id}`,
    conflicts: ["registration_closed", "already_registered", "tournament_full"],
    summary: "Register a team",
    description: "Checks in order: tournament (404), team (404), open for registration (409 `registration_closed`), not yet registered (409 `already_registered`), capacity (409 `tournament_full`). Exactly one request wins the last slot.",
    bodyExample: { team_id: EXAMPLE_IDS.team1 } },
  { method: "GET", path: "/tournaments/{tournament_id}/registrations/{registration_id}",
    scope: "read:registrations", op: "registrations.get", response: Registration, summary: "Get a registration" },
];
