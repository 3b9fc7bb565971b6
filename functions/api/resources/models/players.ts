// Players and roster members as the API returns them (contract section 16): a player's own
// fields, private to its account; a member adds the role and captaincy on one team.
import { z } from "zod";
import { instant } from "./common.ts";

/** A member's role on a roster or in a lineup. */
export const ROLES = ["player", "substitute", "coach"] as const;

export const PlayerExample = {
  id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d40",
  handle: "frost",
  name: "Erik Lind",
  country: "SE",
  external_id: "user-4821",
  game_accounts: { steam: "76561198000000000" },
  created_at: "2026-11-20T10:00:00.000Z",
  updated_at: "2026-11-20T10:00:00.000Z",
};

export const Player = z.object({
  id: z.guid(),
  handle: z.string(),
  name: z.string().nullable(),
  country: z.string().nullable(),
  external_id: z.string().nullable(),
  game_accounts: z.record(z.string(), z.string()),
  created_at: instant("When the player was made."),
  updated_at: instant("When the player last changed."),
}).meta({ id: "Player", example: PlayerExample });

export const RosterMember = Player.extend({
  role: z.enum(ROLES),
  captain: z.boolean(),
}).meta({ id: "RosterMember", example: { ...PlayerExample, role: "player", captain: true } });
