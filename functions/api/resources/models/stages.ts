// A tournament's stages as the API returns them (contract section 12): the stage, its detail with
// its own standings, and the teams that would go on to it.
import { z } from "zod";
import { FORMATS } from "../../contract.ts";
import { Standing } from "./matches.ts";

export const StageExample = {
  number: 2,
  name: "Playoffs",
  format: "single_elimination",
  format_options: { third_place_match: true },
  advance: null,
  status: "pending",
  team_count: null,
  started_at: null,
  completed_at: null,
};

/** A stage of a tournament (contract section 12). */
export const Stage = z.object({
  number: z.int().meta({ description: "1 is the first stage." }),
  name: z.string(),
  format: z.enum(FORMATS),
  format_options: z.record(z.string(), z.unknown()).meta({ description: "The stage's format options, defaults filled in." }),
  advance: z.record(z.string(), z.unknown()).nullable()
    .meta({ description: "Who goes on: `{per_group, best_next}` after a round robin, `{top}` otherwise; null on the last stage." }),
  status: z.enum(["pending", "ongoing", "completed"])
    .meta({
      description:
        "`completed` once every match is decided (swiss: every round); a correction that reopens one makes it `ongoing` again until the next stage starts.",
    }),
  team_count: z.int().nullable().meta({ description: "The teams taking part; null until the stage starts." }),
  started_at: z.iso.datetime().nullable(),
  completed_at: z.iso.datetime().nullable(),
}).meta({ example: StageExample });

export const Qualifier = z.object({
  team_id: z.guid(),
  team_name: z.string(),
  seed: z.int().meta({ description: "The seed it would have in the stage (1..K)." }),
  from_group: z.int().nullable().meta({ description: "Its group in the stage before; null without groups." }),
  from_position: z.int().meta({ description: "Its place in its group; without groups, its position in the stage before." }),
  tied: z.boolean().meta({
    description:
      "It shares the last qualifying place with teams that do not fit: starting without `advancing` is 409 `stage_tie`. Provisional until the stage before completes.",
  }),
});

export const StageDetail = Stage.extend({
  standings: z.array(Standing).meta({
    description: "The stage's own standings (with `group` where it has groups); empty until it starts.",
  }),
  qualifiers: z.array(Qualifier).nullable().meta({
    description:
      "While the stage is pending and the stage before it has started: the teams that would go on now, in seed order (with every team tied at the cut). Null otherwise.",
  }),
}).meta({ example: { ...StageExample, standings: [], qualifiers: [] } });
