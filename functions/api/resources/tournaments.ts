import { z } from "zod";
import { FORMATS, LINEUP_LIMITS, MAX_STAGES, PAGE_SIZE } from "../contract.ts";
import { bestOf, dateTime, money, queryInt, seriesLength, text, trimmedText, uuid } from "../validation.ts";
import type { Route } from "../route.ts";
import { DeleteResult, EXAMPLE_IDS } from "./models/common.ts";
import { Tournament } from "./models/tournaments.ts";
import { checkEvenSeries, ffaFields, noDraws, scoringFields } from "./scoring.ts";

export const TournamentStatus = z.enum(["registration", "ongoing", "completed"]);

/** Every format's series options (contract section 13); the elimination formats' final has its own. */
function series(final: boolean) {
  const bestOfField = {
    best_of: bestOf().optional().meta({ description: "Every match is a best of this many games (odd, 1–9). Default 1." }),
  };
  return final
    ? {
      ...bestOfField,
      final_best_of: bestOf().optional().meta({
        description:
          "The final (single elimination) or the grand final and its reset (double elimination): a best of this many. Default `best_of`. A third-place match takes `best_of`.",
      }),
    }
    : bestOfField;
}

/** The series length of a format that may draw: even only with `draws` (checkEvenSeries). */
const drawingSeries = {
  best_of: seriesLength().optional().meta({
    description: "Every match is a best of this many games (1–9; odd, or even with `draws`). Default 1.",
  }),
};

/** Each format's options: every field optional, defaults filled in by SQL (app.format_options). */
export const FormatOptions = {
  single_elimination: z.strictObject({
    third_place_match: z.boolean().optional().meta({ description: "The semi-final losers play for 3rd. Default false." }),
    draws: noDraws("single_elimination"),
    ...series(true),
  }),
  double_elimination: z.strictObject({
    grand_final: z.enum(["single", "reset"]).optional().meta({
      description:
        "`reset` (the default): if the losers-bracket champion wins the grand final, a deciding second match is played; `single`: the grand final decides alone.",
    }),
    draws: noDraws("double_elimination"),
    ...series(true),
  }),
  round_robin: z.strictObject({
    groups: z.int().min(1).max(512).optional().meta({ description: "Groups, dealt by seed in snake order. Default 1." }),
    ...scoringFields("round_robin"),
    ...drawingSeries,
  }).superRefine(checkEvenSeries),
  swiss: z.strictObject({
    rounds: z.int().min(1).max(1023).nullable().optional()
      .meta({
        description:
          "Rounds to play; null (the default) for ceil(log2 N). Starting with more than N − 1 rounds is 409 `invalid_status_transition`.",
      }),
    ...scoringFields("swiss"),
    ...drawingSeries,
  }).superRefine(checkEvenSeries),
  ffa: z.strictObject({ ...ffaFields(), draws: noDraws("ffa") }),
} satisfies Record<(typeof FORMATS)[number], z.ZodType>;

/** Who goes on to the next stage (contract section 12): after a round robin, then after any other format. */
export const Advance = {
  round_robin: z.strictObject({
    per_group: z.int().min(1).max(1024).meta({ description: "The top n of each group go on." }),
    best_next: z.int().min(0).max(512).optional()
      .meta({
        description:
          "Also the m best of the teams placed n + 1 across groups (points per match, then score difference per match, then score for per match, then seed). At most the number of groups. Default 0.",
      }),
  }),
  other: z.strictObject({
    top: z.int().min(2).max(1024).meta({ description: "The top n of the stage's standings go on." }),
  }),
  ffa: z.strictObject({
    top: z.int().min(2).max(1024).optional().meta({ description: "The top n of the stage's standings go on." }),
    per_lobby: z.int().min(1).max(100).optional().meta({
      description:
        "The first n of each lobby of the last round (by the lobby's placement) go on, seeded by tier: every lobby's 1st, then every lobby's 2nd, …; at most the smallest lobby's size.",
    }),
  }).refine((a) => (a.top === undefined) !== (a.per_lobby === undefined), { message: "must be {top: n} or {per_lobby: n}" }),
};

/** The advance schema and its unknown-field message after a stage of `format`. */
function advanceOf(format: (typeof FORMATS)[number]): [z.ZodType, string, string] {
  if (format === "round_robin") return [Advance.round_robin, "is not a known field (per_group, best_next)", "{per_group, best_next?}"];
  if (format === "ffa") return [Advance.ffa, "is not a known field (top or per_lobby)", "{top} or {per_lobby}"];
  return [Advance.other, "is not a known field (top)", "{top}"];
}

/** A schema's JSON Schema for the document, titled. */
function documented(title: string, schema: z.ZodType) {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return { title, ...json };
}

/** JSON Schema of each format's options, for the document (zod checks them in checkFormatOptions). */
const formatOptionsSchemas = Object.entries(FormatOptions).map(([format, schema]) => documented(format, schema));

const fields = {
  name: trimmedText(100),
  description: text(5000).meta({ description: 'Up to 5,000 characters. Default `""`.' }),
  game_id: uuid(),
  format: z.enum(FORMATS).meta({ description: "Default `single_elimination`. `format_options` go with it." }),
  format_options: z.record(z.string(), z.unknown()).meta({
    anyOf: formatOptionsSchemas,
    description:
      'The format\'s options (checked strictly against the format; defaults filled in): single_elimination `{third_place_match: bool = false}`; double_elimination `{grand_final: "single" | "reset" = "reset"}`; round_robin `{groups: int 1–512 = 1}`; swiss `{rounds: int 1–1023 | null = null (ceil(log2 N))}`; round robin and swiss also `draws` (bool = false), `points` `{win, draw, loss, forfeit_loss}` (−10…100) and `tie_breakers` (see the schema of each format); every format `best_of` (odd 1–9 = 1; even too with draws) and the elimination formats `final_best_of` (= best_of) for the final or grand final. Locked once ongoing; a PATCH that changes `format` without options resets them to the new format\'s defaults.',
  }),
  team_size: z.int().min(1).max(100).meta({ description: "Players per team: the starters a lineup holds." }),
  substitutes_max: z.int().min(0).max(LINEUP_LIMITS.substitutesMax)
    .meta({ description: `Substitutes a lineup may hold, 0–${LINEUP_LIMITS.substitutesMax}. Default 0. Locked once ongoing.` }),
  lineups: z.enum(["off", "required"]).meta({
    description:
      "`off` (the default): lineups are optional. `required`: a lineup of at least `team_size` players to check in and to start (409 `lineup_incomplete`). Locked once ongoing.",
  }),
  max_teams: z.int().min(2).max(1024),
  participant_reporting: z.enum(["off", "confirm"]).meta({
    description:
      "Default `off`. `confirm`: a registration token with `participant:report` reports its team's ready match; the opponent confirms (applied), disputes, or lets `report_confirm_minutes` pass (applied). Changeable in any status but `completed`; switching it off voids the open reports.",
  }),
  report_confirm_minutes: z.int().min(1).max(1440).meta({ description: "1–1,440, default 15. Changeable in any status but `completed`." }),
  approval: z.boolean().meta({
    description:
      "Default false. true: a registration made with a sign-up token is `pending` until the organiser accepts it. Locked once ongoing.",
  }),
  waitlist: z.boolean().meta({
    description:
      "Default false. true: when the accepted registrations fill `max_teams`, a new one is `waitlisted` (not 409 `tournament_full`); the oldest waitlisted one takes each slot that frees. Locked once ongoing.",
  }),
  entry_fee: money(1_000_000).meta({ description: "At most 2 decimals. Default 0." }),
  prize_pool: money(100_000_000).meta({ description: "At most 2 decimals. Default 0." }),
  starts_at: dateTime().meta({ description: "With an offset (`Z` or `±hh:mm`); in the future." }),
  registration_closes: dateTime().meta({ description: "With an offset; not after `starts_at`. Default `starts_at`." }),
  check_in_opens: dateTime().nullable().meta({
    description:
      "With an offset, not after `starts_at`, or null (the default): no check-in. When set, teams check in from then until the start and only they take part.",
  }),
  rules: text(20_000).meta({ description: 'Up to 20,000 characters. Default `""`.' }),
  visibility: z.enum(["private", "public"]).meta({
    description:
      "`public`: anyone may see it without a key at `/public/tournaments/{slug}` (its page, bracket pictures and live stream; never payment or account data). Default `private`. May change in any status.",
  }),
};

/** Adds a nested schema's issues under `path` (unknown keys each named, with `unknown`'s message). */
function addIssues(ctx: z.RefinementCtx, schema: z.ZodType, value: unknown, path: PropertyKey[], unknown: string) {
  const result = schema.safeParse(value);
  if (result.success) return;
  for (const issue of result.error.issues) {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [null];
    for (const key of keys) {
      ctx.addIssue({
        code: "custom",
        path: [...path, ...issue.path, ...(key === null ? [] : [key])],
        message: key === null ? issue.message : unknown,
      });
    }
  }
}

/** Checks format_options against the format it goes with (when the body names one or it is a create). */
function checkFormatOptions(
  body: { format?: (typeof FORMATS)[number]; format_options?: unknown },
  ctx: z.RefinementCtx,
  fallback: (typeof FORMATS)[number] | null,
  path: PropertyKey[] = [],
) {
  const format = body.format ?? fallback;
  if (body.format_options === undefined || format === null) return;
  addIssues(ctx, FormatOptions[format], body.format_options, [...path, "format_options"], `is not an option of ${format}`);
}

/** One stage of `stages`: a format with its options, and who goes on (every stage but the last). */
export const Stage = z.strictObject({
  name: trimmedText(60).optional().meta({ description: "1–60 characters. Default `Stage <k>`." }),
  format: z.enum(FORMATS),
  format_options: fields.format_options.optional(),
  advance: z.record(z.string(), z.unknown()).nullable().optional().meta({
    anyOf: [
      documented("after round_robin", Advance.round_robin),
      documented("after ffa", Advance.ffa),
      documented("after the other formats", Advance.other),
    ],
    description:
      "Required on every stage but the last, refused on the last. After `round_robin`: `{per_group, best_next?}`; after `ffa`: `{top}` or `{per_lobby}`; after `swiss`, `single_elimination` or `double_elimination`: `{top}`. The K teams it sends on must leave the next stage playable (K ≥ 2; swiss rounds ≤ K − 1; round robin groups ≤ K / 2).",
  }),
});

const stagesField = z.array(Stage).min(1).max(MAX_STAGES).meta({
  description:
    `1–${MAX_STAGES} stages, played in order (groups into playoffs, qualifiers, …). Without it, one stage of \`format\` and \`format_options\`; \`format\` and \`format_options\` always read as stage 1's. Not with \`format\` or \`format_options\` in one body. Locked once ongoing.`,
});

/** The stages' rules zod can check alone: options by format, advance present on all but the last. */
function checkStages(body: { stages?: z.infer<typeof Stage>[]; format?: unknown; format_options?: unknown }, ctx: z.RefinementCtx) {
  if (body.stages === undefined) return;
  if (body.format !== undefined || body.format_options !== undefined) {
    ctx.addIssue({ code: "custom", path: ["stages"], message: "send either stages or format and format_options, not both" });
    return;
  }
  body.stages.forEach((stage, i) => {
    checkFormatOptions(stage, ctx, null, ["stages", i]);
    const last = i === body.stages!.length - 1;
    if (last && stage.advance != null) {
      ctx.addIssue({ code: "custom", path: ["stages", i, "advance"], message: "the last stage sends no one on: leave advance out" });
    } else if (!last && stage.advance == null) {
      ctx.addIssue({
        code: "custom",
        path: ["stages", i, "advance"],
        message: stage.format === "round_robin"
          ? "is required after a round robin: {per_group, best_next?}"
          : `is required after ${stage.format}: ${advanceOf(stage.format)[2]}`,
      });
    } else if (!last) {
      const [schema, unknown] = advanceOf(stage.format);
      addIssues(ctx, schema, stage.advance, ["stages", i, "advance"], unknown);
    }
  });
}

export const CreateTournament = z.strictObject({
  ...fields,
  description: fields.description.optional(),
  format: fields.format.optional(),
  format_options: fields.format_options.optional(),
  stages: stagesField.optional(),
  entry_fee: fields.entry_fee.optional(),
  prize_pool: fields.prize_pool.optional(),
  registration_closes: fields.registration_closes.optional(),
  check_in_opens: fields.check_in_opens.optional(),
  rules: fields.rules.optional(),
  visibility: fields.visibility.optional(),
  substitutes_max: fields.substitutes_max.optional(),
  lineups: fields.lineups.optional(),
  approval: fields.approval.optional(),
  waitlist: fields.waitlist.optional(),
  participant_reporting: fields.participant_reporting.optional(),
  report_confirm_minutes: fields.report_confirm_minutes.optional(),
}).superRefine((body, ctx) => {
  checkStages(body, ctx);
  if (body.stages === undefined) checkFormatOptions(body, ctx, "single_elimination");
});

export const UpdateTournament = z.strictObject({
  ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]>;
  },
  stages: stagesField.optional(),
  status: TournamentStatus.optional(),
}).refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" })
  .superRefine((body, ctx) => {
    checkStages(body, ctx);
    if (body.stages === undefined) checkFormatOptions(body, ctx, null);
  });

export const ListTournamentsQuery = z.object({
  page: queryInt(1, PAGE_SIZE.maxPage).optional(),
  cursor: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, { message: "must be a next_cursor value from a previous page" })
    .optional().meta({
      description: "Opaque: the `pagination.next_cursor` of the previous page. Deep pages cost as little as the first. Not with `page`.",
    }),
  limit: queryInt(1, PAGE_SIZE.max).optional(),
  status: TournamentStatus.optional(),
  game_id: uuid().optional(),
}).refine((q) => q.page === undefined || q.cursor === undefined, { message: "use either page or cursor, not both", path: ["cursor"] });

const tournamentLocation = (data: { id: string }) => `/tournaments/${data.id}`;

export const tournamentRoutes: Route[] = [
  {
    method: "GET",
    path: "/tournaments",
    scope: "read:tournaments",
    op: "tournaments.list",
    query: ListTournamentsQuery,
    paginated: true,
    response: z.array(Tournament),
    summary: "List the account's tournaments",
    description:
      "Newest first (`created_at desc, id desc`). A page past the end is an empty `data` with the true `total`. Unknown query parameters are ignored. For deep pages follow `pagination.next_cursor` with `cursor` (keyset pagination: stable while tournaments are created, and as fast on page 500 as on page 1); `page` still works.",
  },
  {
    method: "POST",
    path: "/tournaments",
    scope: "write:tournaments",
    op: "tournaments.create",
    body: CreateTournament,
    location: tournamentLocation,
    response: Tournament,
    summary: "Create a tournament",
    description:
      "A new tournament has status `registration`. `starts_at` must be in the future; `registration_closes` defaults to `starts_at` and may not be after it. Date-times need an offset and are returned in UTC.",
    bodyExample: {
      name: "Spring Cup",
      game_id: EXAMPLE_IDS.game,
      team_size: 5,
      max_teams: 16,
      entry_fee: 10,
      prize_pool: 1500.5,
      starts_at: "2027-03-01T18:00:00+01:00",
      registration_closes: "2027-03-01T00:00:00+01:00",
    },
  },
  {
    method: "GET",
    path: "/tournaments/{id}",
    scope: "read:tournaments",
    op: "tournaments.get",
    response: Tournament,
    summary: "Get a tournament",
  },
  {
    method: "PATCH",
    path: "/tournaments/{id}",
    scope: "write:tournaments",
    op: "tournaments.update",
    body: UpdateTournament,
    response: Tournament,
    conflicts: ["tournament_full", "tournament_locked", "invalid_status_transition", "lineup_incomplete"],
    summary: "Update a tournament or change its status",
    description: [
      "Any non-empty subset of the create fields, plus `status`. Only fields whose value changes count.",
      "- In `registration` every field may change; `max_teams` may not go below the registrations held (409 `tournament_full`).",
      "- In `ongoing` only `name`, `description`, `rules`, `prize_pool`, `visibility` and `status`; in `completed` only `name`, `description`, `rules` and `visibility` (others: 409 `tournament_locked`).",
      "- `registration → ongoing` needs at least 2 registrations (with check-in, checked-in teams), and enough for stage 1's `advance`; it starts stage 1 and makes its matches. `ongoing → completed` needs the last stage completed (every match decided). The current status again is a no-op; anything else is 409 `invalid_status_transition`.",
      "- `stages` (or `format`/`format_options`, which are stage 1's) may change in `registration` only; sending back what GET shows is no change.",
    ].join("\n"),
    bodyExample: { name: "Spring Cup 2027", max_teams: 32 },
  },
  {
    method: "DELETE",
    path: "/tournaments/{id}",
    scope: "write:tournaments",
    op: "tournaments.delete",
    response: DeleteResult,
    summary: "Delete a tournament",
    description: "Allowed in every status; removes the tournament's registrations and matches.",
  },
];
