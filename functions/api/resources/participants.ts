// Participants act for themselves (contract section 17): the organiser mints, lists and revokes
// participant tokens (`tpt_…`) of a tournament; a token's holder acts for its registration (or,
// with a sign-up token, creates registrations) under /participant, through the same door
// (api.call) with its own rate limit. The rules are SQL's (supabase/schemas/24_participants.sql).
import { z } from "zod";
import { LINEUP_LIMITS, REGISTRATION_TOKEN_SCOPES, SIGNUP_TOKEN_MAX_USES } from "../contract.ts";
import { dateTime, text, trimmedText, uuid } from "../validation.ts";
import type { Route } from "../route.ts";
import { DeleteResult } from "./models/common.ts";
import { Match } from "./models/matches.ts";
import { ROLES } from "./models/players.ts";
import { Registration } from "./models/registrations.ts";
import { ParticipantMe, ParticipantToken, ParticipantTokenItem, SignUpResult } from "./models/participants.ts";
import { playerFields } from "./players.ts";
import { CreateTeam, httpUrl } from "./teams.ts";

const tokenFields = {
  name: trimmedText(100).optional().meta({ description: "1–100 characters, to recognise it in the list." }),
  expires_at: dateTime().optional().meta({ description: "A future date-time with offset; the token is refused (401) from then on." }),
};

export const CreateRegistrationToken = z.strictObject({
  ...tokenFields,
  scopes: z.array(z.enum(REGISTRATION_TOKEN_SCOPES)).min(1).refine((s) => new Set(s).size === s.length, {
    message: "lists a scope more than once",
  }).optional().meta({ description: `Default: all of ${REGISTRATION_TOKEN_SCOPES.join(", ")}.` }),
});

export const CreateSignupToken = z.strictObject({
  ...tokenFields,
  max_uses: z.int().min(1).max(SIGNUP_TOKEN_MAX_USES).nullable().optional()
    .meta({ description: `1–${SIGNUP_TOKEN_MAX_USES.toLocaleString("en")} registrations; null (the default): unlimited.` }),
});

/** The lineup entries' rules the body can check (each player once, at most one captain); the caps are the database's. */
function oneEach<T extends { captain?: boolean; player_id?: string; external_id?: string | null }>(entries: T[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  let captains = 0;
  entries.forEach((e, i) => {
    const who = e.player_id ? `id:${e.player_id.toLowerCase()}` : e.external_id ? `ext:${e.external_id}` : null;
    if (who && seen.has(who)) {
      ctx.addIssue({ code: "custom", path: [i, e.player_id ? "player_id" : "external_id"], message: "appears more than once" });
    }
    if (who) seen.add(who);
    if (e.captain && ++captains === 2) {
      ctx.addIssue({ code: "custom", path: [i, "captain"], message: "is a second captain: a lineup has at most one" });
    }
  });
}

const MAX_LINEUP = 100 + LINEUP_LIMITS.substitutesMax + LINEUP_LIMITS.coaches;
const newPlayer = {
  handle: playerFields.handle,
  country: playerFields.country.optional(),
  external_id: playerFields.external_id.unwrap().optional().meta({
    description:
      "Your site's id for the player: the account's player with this external_id is this one (its handle updated), else a new one.",
  }),
  role: z.enum(ROLES),
  captain: z.boolean().optional().meta({ description: "Default false; at most one captain." }),
};

export const SignUp = z.strictObject({
  team: CreateTeam,
  lineup: z.array(z.strictObject(newPlayer)).max(MAX_LINEUP).superRefine(oneEach).optional().meta({
    description:
      "The team's players in lineup order, made players of the tournament's account (and the new team's roster), under the tournament's caps (400 naming the entry) and one team per tournament (409 `player_already_registered`).",
  }),
});

export const ParticipantLineup = z.strictObject({
  players: z.array(z.union([
    z.strictObject({ player_id: uuid(), role: z.enum(ROLES), captain: newPlayer.captain })
      .meta({ description: "A player of the registration's lineup or of its team's roster." }),
    z.strictObject(newPlayer).meta({ description: "A new player of the account, or the one with this `external_id`." }),
  ])).max(MAX_LINEUP).superRefine(oneEach),
});

export const CheckIn = z.strictObject({ checked_in: z.boolean() });

const score = z.int().min(0).max(1_000_000);
const evidence = {
  evidence_url: httpUrl.optional().meta({ description: "An http(s) URL (a screenshot, a demo), at most 2,048 characters." }),
  note: z.string().max(500).optional().meta({ description: "At most 500 characters." }),
};

/** A participant's report: a result, its own side's forfeit, or a whole decided series of games (contract section 18). */
export const ParticipantReport = z.strictObject({
  team1_score: score.optional().meta({ description: "With team2_score: the result (on a best-of-n match, the series score)." }),
  team2_score: score.optional(),
  forfeit: z.enum(["team1", "team2"]).optional().meta({ description: "Your own side only (400 naming `forfeit` otherwise)." }),
  games: z.array(z.strictObject({ team1_score: score, team2_score: score, map: text(100).nullable().optional() })).min(1).max(9)
    .optional()
    .meta({ description: "Every game of the series in order, up to the one that decides it." }),
  ...evidence,
}).superRefine((b, ctx) => {
  const scores = b.team1_score !== undefined || b.team2_score !== undefined;
  const kinds = [scores, b.forfeit !== undefined, b.games !== undefined].filter(Boolean).length;
  if (kinds !== 1) {
    ctx.addIssue({ code: "custom", path: [], message: "send exactly one of: both scores, forfeit, or games" });
  } else if (scores && (b.team1_score === undefined || b.team2_score === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [b.team1_score === undefined ? "team1_score" : "team2_score"],
      message: "both scores are needed",
    });
  }
  b.games?.forEach((g, i) => {
    if (g.team1_score === g.team2_score) {
      ctx.addIssue({ code: "custom", path: ["games", i, "team2_score"], message: "scores cannot be equal: a game needs a winner" });
    }
  });
});

export const ParticipantDispute = z.strictObject(evidence);

/** The organiser's routes (an API key): mint, list and revoke a tournament's participant tokens. */
export const tokenRoutes: Route[] = [
  {
    method: "POST",
    path: "/tournaments/{tournament_id}/registrations/{registration_id}/tokens",
    scope: "write:registrations",
    op: "tokens.create",
    body: CreateRegistrationToken,
    response: ParticipantToken,
    location: (data: { tournament_id: string }) => `/tournaments/${data.tournament_id}/tokens`,
    summary: "Mint a registration token",
    description:
      "A participant token (`tpt_…`) that acts for this registration under `/participant`: its lineup, check-in, withdrawal and reports, as its scopes allow. The plaintext is in this answer only. A deleted registration takes its tokens with it.",
    bodyExample: { name: "Aurora captain", expires_at: "2027-03-02T00:00:00Z" },
  },
  {
    method: "POST",
    path: "/tournaments/{tournament_id}/signup-tokens",
    scope: "write:registrations",
    op: "signup_tokens.create",
    body: CreateSignupToken,
    response: ParticipantToken,
    location: (data: { tournament_id: string }) => `/tournaments/${data.tournament_id}/tokens`,
    summary: "Mint a sign-up token",
    description:
      "A participant token with `participant:register`: each `POST /participant/registrations` with it creates a team, its players and a registration, up to `max_uses` times (then 409 `token_exhausted`). Hand it out as a link or through your bot.",
    bodyExample: { name: "Discord sign-ups", max_uses: 64 },
  },
  {
    method: "GET",
    path: "/tournaments/{tournament_id}/tokens",
    scope: "read:registrations",
    op: "tokens.list",
    response: z.array(ParticipantTokenItem),
    summary: "List a tournament's participant tokens",
    description: "Both kinds, newest first; never a token's secret.",
  },
  {
    method: "DELETE",
    path: "/tournaments/{tournament_id}/tokens/{token_id}",
    scope: "write:registrations",
    op: "tokens.delete",
    response: DeleteResult,
    summary: "Revoke a participant token",
    description: "Effective on the token's next request (401).",
  },
];

/** The participant's routes (`Authorization: Bearer tpt_…`): what the token's scopes allow, for its own registration. */
export const participantRoutes: Route[] = [
  {
    method: "GET",
    path: "/participant",
    participant: true,
    scope: null,
    op: "participant.get",
    response: ParticipantMe,
    summary: "The token, its tournament and its registration",
  },
  {
    method: "GET",
    path: "/participant/matches",
    participant: true,
    scope: null,
    op: "participant.matches",
    response: z.array(Match),
    summary: "The registration's matches",
    description: "As the results show them; `[]` before the start and for a sign-up token.",
  },
  {
    method: "POST",
    path: "/participant/registrations",
    participant: true,
    scope: "participant:register",
    op: "participant.signup",
    body: SignUp,
    response: SignUpResult,
    location: () => "/participant",
    conflicts: ["token_exhausted", "registration_closed", "tournament_full", "player_already_registered"],
    summary: "Sign a team up",
    description:
      "Creates, in the tournament's account and one transaction, the team, its players and its registration under the registration rules (closed: 409 `registration_closed`; full: `waitlisted` with the tournament's waitlist, else 409 `tournament_full`; `pending` when the tournament asks for approval), and answers a registration token for the team's further self-service, shown once.",
    bodyExample: {
      team: { name: "Aurora Gaming", tag: "AUR" },
      lineup: [{ handle: "frost", country: "SE", external_id: "discord:1234", role: "player", captain: true }],
    },
  },
  {
    method: "PUT",
    path: "/participant/lineup",
    participant: true,
    scope: "participant:lineup",
    op: "participant.lineup",
    body: ParticipantLineup,
    response: Registration,
    conflicts: ["tournament_locked", "player_already_registered"],
    summary: "Replace the registration's lineup",
    description:
      "The organiser's lineup PUT for the token's registration: players by `player_id` (of its lineup or its team's roster) or by `handle` (a new player, or the account's player with that `external_id`).",
    bodyExample: { players: [{ player_id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d40", role: "player", captain: true }] },
  },
  {
    method: "PATCH",
    path: "/participant/registration",
    participant: true,
    scope: "participant:check_in",
    op: "participant.check_in",
    body: CheckIn,
    response: Registration,
    conflicts: ["check_in_closed", "tournament_locked", "lineup_incomplete"],
    summary: "Check in (or out)",
    bodyExample: { checked_in: true },
  },
  {
    method: "POST",
    path: "/participant/matches/{match_id}/report",
    participant: true,
    scope: "participant:report",
    op: "participant.report",
    body: ParticipantReport,
    response: Match,
    conflicts: ["match_not_ready", "reporting_closed"],
    summary: "Report a match",
    description:
      "With the tournament's `participant_reporting: \"confirm\"`, your team's `ready` match: a first report awaits the opponent until `confirm_by`; sent again while it waits, it replaces yours (a new `confirm_by`); the opponent's own report of the same result confirms it (applied as the organiser's result would be, in this request), a different one disputes it. Another registration's match is 404; reporting off, or a report confirmed, disputed or resolved: 409 `reporting_closed`.",
    bodyExample: { team1_score: 2, team2_score: 1, evidence_url: "https://example.com/scoreboard.png" },
  },
  {
    method: "POST",
    path: "/participant/matches/{match_id}/report/confirm",
    participant: true,
    scope: "participant:report",
    op: "participant.confirm",
    response: Match,
    conflicts: ["match_not_ready", "reporting_closed"],
    summary: "Confirm the opponent's report",
    description:
      "Applies it as the organiser's result would be (winner advances, standings, webhooks), in this request; if a rule of the moment refuses it, the report is `disputed` with a `note`. Your own report, or none awaiting: 409 `reporting_closed`.",
  },
  {
    method: "POST",
    path: "/participant/matches/{match_id}/report/dispute",
    participant: true,
    scope: "participant:report",
    op: "participant.dispute",
    body: ParticipantDispute,
    response: Match,
    conflicts: ["match_not_ready", "reporting_closed"],
    summary: "Dispute the opponent's report",
    description: "Nothing is applied; the organiser decides the match (their result resolves the report). Also before anyone reported.",
    bodyExample: { note: "They played with an unregistered player", evidence_url: "https://example.com/demo.dem" },
  },
  {
    method: "DELETE",
    path: "/participant/registration",
    participant: true,
    scope: "participant:withdraw",
    op: "participant.withdraw",
    response: DeleteResult,
    conflicts: ["registration_closed"],
    summary: "Withdraw",
    description: "As the organiser's DELETE: while in `registration`. The registration's tokens, this one included, stop working.",
  },
];
