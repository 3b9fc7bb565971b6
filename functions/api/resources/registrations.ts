import { z } from "zod";
import { uuid } from "../validation.ts";
import type { Route } from "../route.ts";

export const CreateRegistration = z.strictObject({ team_id: uuid() });

export const ListRegistrationsQuery = z.object({
  status: z.enum(["pending", "complete", "refunded"]).optional(),
});

export const registrationRoutes: Route[] = [
  { method: "GET", path: "/tournaments/{tournament_id}/registrations", scope: "read:registrations",
    op: "registrations.list", query: ListRegistrationsQuery, summary: "List a tournament's registrations" },
  { method: "POST", path: "/tournaments/{tournament_id}/registrations", scope: "write:registrations",
    op: "registrations.create", body: CreateRegistration,
    location: (data: { id: string; tournament_id: string }) =>
      `/tournaments/${data.tournament_id}/registrations/${data.id}`,
    summary: "Register a team" },
  { method: "GET", path: "/tournaments/{tournament_id}/registrations/{registration_id}",
    scope: "read:registrations", op: "registrations.get", summary: "Get a registration" },
];
