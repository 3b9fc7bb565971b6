// The scoring options of round robin and swiss (contract section 19): draws, points per result
// and the tie-breakers, as `format_options` take them. SQL completes them with their defaults
// and checks them again (app.scoring_options, 09_scoring.sql). Free-for-all's own options
// (contract section 20: app.ffa_options, 14_free_for_all.sql) are here too.
import { z } from "zod";
import { FFA_LIMITS, FFA_TIE_BREAKERS, POINTS_RANGE, TIE_BREAKERS } from "../contract.ts";

const points = () => z.int().min(POINTS_RANGE.min).max(POINTS_RANGE.max);

/** draws, points and tie_breakers of a format that may draw; `swiss` changes the defaults described. */
export function scoringFields(format: "round_robin" | "swiss") {
  const winDefault = format === "swiss" ? "1 (3 with `draws`)" : "3";
  const drawDefault = format === "swiss" ? "0 (1 with `draws`)" : "1";
  return {
    draws: z.boolean().optional().meta({
      description:
        "Default false. true: equal scores complete a match as a draw (`draw: true`, no winner), and `best_of` may be even (a series level after all its games is a draw).",
    }),
    points: z.strictObject({
      win: points().optional().meta({ description: `Default ${winDefault}.` }),
      draw: points().optional().meta({ description: `Default ${drawDefault}.` }),
      loss: points().optional().meta({ description: "Default 0." }),
      forfeit_loss: points().optional().meta({ description: "A loss by forfeit. Default `loss`." }),
    }).optional().meta({ description: `Points per result, integers ${POINTS_RANGE.min}…${POINTS_RANGE.max}.` }),
    tie_breakers: z.array(z.enum(TIE_BREAKERS)).min(1).max(8)
      .refine((list) => new Set(list).size === list.length, { message: "must list each criterion once" })
      .optional().meta({
        description: `After points, in order; \`seed\` always ends the order. Default ${
          format === "swiss" ? '`["buchholz"]`' : '`["head_to_head", "score_difference", "score_for"]`'
        }. \`head_to_head\`: points in the matches among the teams level on every criterion before it; \`buchholz\`: the sum of the opponents' points; \`median_buchholz\`: the same without the highest and lowest (plain with fewer than 3 opponents); \`sonneborn_berger\`: the points of the opponents beaten plus half of those drawn; \`forfeits\`: fewer forfeit losses first.`,
      }),
  };
}

/** An elimination format's `draws`: false only (it never draws). */
export function noDraws(format: string) {
  return z.boolean().refine((d) => !d, { message: `must be false: ${format} never draws` }).optional()
    .meta({ description: "Always false: an elimination match has a winner." });
}

/** With draws a series may have an even length; without, best_of is odd. */
export function checkEvenSeries(options: { draws?: boolean; best_of?: number }, ctx: z.RefinementCtx) {
  if (options.best_of !== undefined && options.best_of % 2 === 0 && !options.draws) {
    ctx.addIssue({ code: "custom", path: ["best_of"], message: "must be odd (even only with draws: true)" });
  }
}

/** A placement ("4") or a range of placements ("4-10"), 1 to 100: its first and last placement, or null. */
export function placementRange(key: string): [number, number] | null {
  const m = /^([1-9][0-9]{0,2})(?:-([1-9][0-9]{0,2}))?$/.exec(key);
  if (!m) return null;
  const [a, b] = [Number(m[1]), Number(m[2] ?? m[1])];
  return a <= b && b <= 100 ? [a, b] : null;
}

/** A free-for-all format's options (contract section 20); SQL fills in the defaults. */
export function ffaFields() {
  const { lobbySize, games, rounds, placementPoints, killPoints } = FFA_LIMITS;
  return {
    lobby_size: z.int().min(lobbySize.min).max(lobbySize.max).optional()
      .meta({
        description: "Teams per lobby (3–100). Default 20. A round's N teams fill ceil(N / lobby_size) lobbies, dealt in snake order.",
      }),
    games: z.int().min(games.min).max(games.max).optional()
      .meta({ description: "Games each lobby plays (1–20); it completes when all are reported. Default 1." }),
    rounds: z.int().min(rounds.min).max(rounds.max).optional().meta({ description: "Rounds of lobbies (1–20). Default 1." }),
    draw: z.enum(["seed", "standings"]).optional().meta({
      description:
        '`"seed"` (the default): every round keeps the lobbies dealt from seeds, all made at the start; `"standings"`: each round after the first is dealt again from the standings so far, once the round before completes.',
    }),
    placement_points: z.record(z.string(), z.int().min(0).max(placementPoints.max)).superRefine((table, ctx) => {
      const seen: [number, number][] = [];
      for (const key of Object.keys(table)) {
        const range = placementRange(key);
        if (range === null) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: 'must be a placement ("4") or a range ("4-10"), 1 to 100, the first no greater than the last',
          });
        } else if (seen.some(([a, b]) => range[0] <= b && a <= range[1])) {
          ctx.addIssue({ code: "custom", path: [key], message: "overlaps another placement or range" });
        } else {
          seen.push(range);
        }
      }
    }).optional().meta({
      description:
        'Points per placement in a game: a placement or a range (`"1"`, `"2-3"`, `"4-10"`) to 0–1,000; ranges may not overlap; a placement not named scores 0. Default `{"1": 10, "2": 6, "3": 5, "4": 4, "5": 3, "6": 2, "7": 1, "8": 1}`.',
    }),
    kill_points: z.int().min(0).max(killPoints.max).optional().meta({ description: "Points per kill (0–100). Default 1." }),
    tie_breakers: z.array(z.enum(FFA_TIE_BREAKERS)).min(1).max(FFA_TIE_BREAKERS.length)
      .refine((list) => new Set(list).size === list.length, { message: "must list each criterion once" })
      .optional().meta({
        description:
          'After points, in order; `seed` always ends the order. Default `["first_places", "kills", "last_game"]`. `first_places`: games won; `best_placement`: the best placement in a game; `kills`; `last_game`: the placement in the team\'s own most recent game (lower first).',
      }),
  };
}
