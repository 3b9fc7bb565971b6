import { z } from "zod";
import { dateTime, money, queryInt, text, uuid } from "../validation.ts";
import type { Route } from "../route.ts";

export const TournamentStatus = z.enum(["registration", "ongoing", "completed"]);

const fields = {
  name: z.string().trim().pipe(text(100)).refine((s) => s.length > 0, { message: "must not be empty" }),
  description: text(5000),
  game_id: uuid(),
  format: z.enum(["single_elimination"]),
  team_size: z.int().min(1).max(100),
  max_teams: z.int().min(2).max(1024),
  entry_fee: money(1_000_000),
  prize_pool: money(100_000_000),
  starts_at: dateTime(),
  registration_closes: dateTime(),
  rules: text(20_000),
};

export const CreateTournament = z.strictObject({
  ...fields,
  description: fields.description.optional(),
  format: fields.format.optional(),
  entry_fee: fields.entry_fee.optional(),
  prize_pool: fields.prize_pool.optional(),
  registration_closes: fields.registration_closes.optional(),
  rules: fields.rules.optional(),
});

export const UpdateTournament = z.strictObject({
  ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]>;
  },
  status: TournamentStatus.optional(),
}).refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });

export const ListTournamentsQuery = z.object({
  page: queryInt(1, 1_000_000).optional(),
  limit: queryInt(1, 100).optional(),
  status: TournamentStatus.optional(),
  game_id: uuid().optional(),
});

const tournamentLocation = (data: { id: string }) => `/tournaments/${data.id}`;

export const tournamentRoutes: Route[] = [
  { method: "GET", path: "/tournaments", scope: "read:tournaments", op: "tournaments.list",
    query: ListTournamentsQuery, paginated: true, summary: "List the account's tournaments" },
  { method: "POST", path: "/tournaments", scope: "write:tournaments", op: "tournaments.create",
    body: CreateTournament, location: tournamentLocation, summary: "Create a tournament" },
  { method: "GET", path: "/tournaments/{id}", scope: "read:tournaments", op: "tournaments.get",
    summary: "Get a tournament" },
  { method: "PATCH", path: "/tournaments/{id}", scope: "write:tournaments", op: "tournaments.update",
    body: UpdateTournament, summary: "Update a tournament or change its status" },
  { method: "DELETE", path: "/tournaments/{id}", scope: "write:tournaments", op: "tournaments.delete",
    summary: "Delete a tournament with its registrations and matches" },
];
