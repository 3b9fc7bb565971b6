import type { Route } from "./route.ts";
import { tournamentRoutes } from "./resources/tournaments.ts";
import { registrationRoutes } from "./resources/registrations.ts";
import { resultRoutes, stageRoutes } from "./resources/results.ts";
import { meRoutes, teamRoutes } from "./resources/teams.ts";
import { webhookRoutes } from "./resources/webhooks.ts";
import { playerRoutes, rosterRoutes } from "./resources/players.ts";
import { participantRoutes, tokenRoutes } from "./resources/participants.ts";

/** Every route of /api/v1: the one place routes are registered. */
export const routes: Route[] = [
  ...tournamentRoutes,
  ...registrationRoutes,
  ...resultRoutes,
  ...stageRoutes,
  ...teamRoutes,
  ...rosterRoutes,
  ...playerRoutes,
  ...meRoutes,
  ...webhookRoutes,
  ...tokenRoutes,
  ...participantRoutes,
];
