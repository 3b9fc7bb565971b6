// The scoring options of round robin and swiss (contract section 19): draws, points per result
// and the tie-breakers, as `format_options` take them. SQL completes them with their defaults
// and checks them again (app.scoring_options, 09_scoring.sql).
import { z } from "zod";
import { POINTS_RANGE, TIE_BREAKERS } from "../contract.ts";

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
