import { z } from "zod";
import { EVENT_TYPES, WEBHOOK_LIMIT } from "../contract.ts";
import { pageQuery, text, uuid } from "../validation.ts";
import type { Route, RouteCall, RouteEnv } from "../route.ts";
import { decryptSecret, encryptSecret, formatSecret, fromBase64, newSecret } from "../../_shared/webhook-secrets.ts";
import { DeleteResult, EXAMPLE_IDS, instant } from "./models/common.ts";
import { Tournament } from "./models/tournaments.ts";
import { Registration } from "./models/registrations.ts";
import { Match } from "./models/matches.ts";
import { StageDetail } from "./models/stages.ts";

/** Whether http:// URLs are accepted (WEBHOOK_ALLOW_LOCAL=true); set once by createHandler. */
export const webhookPolicy = { allowLocal: false };

/** An absolute https:// URL (http:// only where local destinations are allowed), no user-info. */
const endpointUrl = z.string().max(2048).superRefine((s, ctx) => {
  let url: URL | null = null;
  try {
    // deno-lint-ignore no-control-regex -- a NUL in a URL is refused
    url = s.isWellFormed() && !/[\s\u0000]/.test(s) ? new URL(s) : null;
  } catch { /* not a URL */ }
  const scheme = url && /^https?:\/\//.test(s) ? url.protocol : null; // lower case, as SQL stores and checks it
  if (!url || !scheme || !url.hostname) {
    ctx.addIssue({ code: "custom", message: "must be an absolute https:// URL (scheme in lower case)" });
  } else if (url.username || url.password) ctx.addIssue({ code: "custom", message: "must not contain user-info" });
  else if (scheme === "http:" && !webhookPolicy.allowLocal) {
    ctx.addIssue({ code: "custom", message: "must be https:// (http:// only when WEBHOOK_ALLOW_LOCAL=true)" });
  }
}).meta({
  description:
    "An absolute `https://` URL of at most 2,048 characters, without user-info; `http://` only where the deployment allows local destinations (WEBHOOK_ALLOW_LOCAL=true).",
  format: "uri",
});

const events = z.array(z.enum(["*", ...EVENT_TYPES])).min(1).superRefine((list, ctx) => {
  if (new Set(list).size !== list.length) ctx.addIssue({ code: "custom", message: "must not repeat an event type" });
  if (list.includes("*") && list.length > 1) ctx.addIssue({ code: "custom", message: '["*"] stands alone' });
}).meta({ description: 'Event types to receive, or `["*"]` for all.' });

const fields = {
  url: endpointUrl,
  events,
  tournament_id: uuid().nullable().meta({
    description:
      "Only this tournament's events (one of yours: an unknown tournament or another account's is 404); null: every tournament of the account.",
  }),
  description: text(200).nullable().meta({ description: "At most 200 characters." }),
};

export const CreateWebhook = z.strictObject({
  ...fields,
  tournament_id: fields.tournament_id.optional(),
  description: fields.description.optional(),
});

export const UpdateWebhook = z.strictObject({
  url: fields.url.optional(),
  events: fields.events.optional(),
  tournament_id: fields.tournament_id.optional(),
  description: fields.description.optional(),
  enabled: z.boolean().optional().meta({ description: "false stops deliveries; true (re-enabling) clears `disabled_reason`." }),
}).refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });

export const ListWebhooksQuery = z.object(pageQuery());
export const ListDeliveriesQuery = z.object({
  ...pageQuery(),
  status: z.enum(["pending", "succeeded", "failed", "exhausted"]).optional(),
});

const WebhookExample = {
  id: EXAMPLE_IDS.webhook,
  url: "https://bot.example.com/hooks/tournaments",
  events: ["match.completed", "match.ready"],
  tournament_id: null,
  description: "Discord results bot",
  enabled: true,
  disabled_reason: null,
  created_at: "2026-11-21T09:00:00.000Z",
  updated_at: "2026-11-21T09:00:00.000Z",
};

export const Webhook = z.object({
  id: z.guid(),
  url: z.string(),
  events: z.array(z.string()),
  tournament_id: z.guid().nullable(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabled_reason: z.enum(["failing"]).nullable().meta({ description: "`failing`: every attempt failed for 5 days, so it was disabled." }),
  created_at: instant("UTC."),
  updated_at: instant("UTC."),
}).meta({ example: WebhookExample });

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().meta({ description: "`whsec_` + base64 of 32 random bytes. Shown this once: store it to verify signatures." }),
}).meta({ example: { ...WebhookExample, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8ua0ezJWBJU=" } });

export const Delivery = z.object({
  id: z.guid(),
  event_id: z.guid().meta({ description: "Sent as `webhook-id`: the same on every retry and to every endpoint." }),
  event_type: z.string(),
  status: z.enum(["pending", "succeeded", "failed", "exhausted"]).meta({
    description: "`failed` will be retried at `next_attempt_at`; `exhausted` has no retry left.",
  }),
  attempts: z.int(),
  last_attempt_at: instant("UTC.").nullable(),
  next_attempt_at: instant("UTC; null when no attempt is due.").nullable(),
  last_status_code: z.int().nullable().meta({ description: "null when there was no response." }),
  last_error: z.string().nullable().meta({ description: "Why the last attempt failed (at most 500 characters)." }),
  payload: z.record(z.string(), z.unknown()).meta({ description: "The exact body sent." }),
  created_at: instant("UTC."),
  delivered_at: instant("UTC.").nullable(),
}).meta({
  example: {
    id: "e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b",
    event_id: "f6a7b8c9-d0e1-4f2a-9b3c-4d5e6f7a8b9c",
    event_type: "webhook.test",
    status: "pending",
    attempts: 0,
    last_attempt_at: null,
    next_attempt_at: "2026-11-21T10:00:00.000Z",
    last_status_code: null,
    last_error: null,
    payload: { type: "webhook.test", timestamp: "2026-11-21T10:00:00.000Z", data: WebhookExample },
    created_at: "2026-11-21T10:00:00.000Z",
    delivered_at: null,
  },
});

const webhookLocation = (data: { id: string }) => `/webhooks/${data.id}`;

/** A new signing secret, sealed before the call (the operation stores it as it is). */
async function sealNewSecret(args: Record<string, unknown>, env: RouteEnv): Promise<void> {
  args.secret = await encryptSecret(await env.webhookKey(), newSecret());
}

/** The endpoint as SQL returns it (its sealed secret) made into the answer: the secret itself, shown this once. */
async function revealSecret(result: string, c: RouteCall): Promise<string> {
  const { secret_ciphertext: sealed, ...endpoint } = JSON.parse(result) as Record<string, unknown>;
  const raw = await decryptSecret(await c.env.webhookKey(), fromBase64(String(sealed)));
  return JSON.stringify({ ...endpoint, secret: formatSecret(raw) });
}
const w = "/webhooks/{webhook_id}";

export const webhookRoutes: Route[] = [
  {
    method: "GET",
    path: "/webhooks",
    scope: "read:webhooks",
    op: "webhooks.list",
    query: ListWebhooksQuery,
    paginated: true,
    response: z.array(Webhook),
    summary: "List webhook endpoints",
    description: "Newest first. Never the secrets.",
  },
  {
    method: "POST",
    path: "/webhooks",
    scope: "write:webhooks",
    op: "webhooks.create",
    body: CreateWebhook,
    response: WebhookWithSecret,
    location: webhookLocation,
    prepare: sealNewSecret,
    data: revealSecret,
    conflicts: ["webhook_limit_reached"],
    summary: "Create a webhook endpoint",
    description:
      `Events are POSTed to \`url\`, signed the Standard Webhooks way (see the document's \`webhooks\`). The response holds the signing \`secret\`, shown this once. At most ${WEBHOOK_LIMIT} endpoints per account.`,
    bodyExample: {
      url: "https://bot.example.com/hooks/tournaments",
      events: ["match.completed", "match.ready"],
      description: "Discord results bot",
    },
  },
  { method: "GET", path: w, scope: "read:webhooks", op: "webhooks.get", response: Webhook, summary: "Get a webhook endpoint" },
  {
    method: "PATCH",
    path: w,
    scope: "write:webhooks",
    op: "webhooks.update",
    body: UpdateWebhook,
    response: Webhook,
    summary: "Update a webhook endpoint",
    bodyExample: { events: ["*"], enabled: true },
  },
  {
    method: "DELETE",
    path: w,
    scope: "write:webhooks",
    op: "webhooks.delete",
    response: DeleteResult,
    summary: "Delete a webhook endpoint",
    description: "Its pending deliveries are dropped.",
  },
  {
    method: "POST",
    path: `${w}/rotate-secret`,
    scope: "write:webhooks",
    op: "webhooks.rotate",
    response: WebhookWithSecret,
    prepare: sealNewSecret,
    data: revealSecret,
    summary: "Rotate an endpoint's secret",
    description: "For the next 24 hours every delivery carries two signatures, the new secret's then the old one's.",
  },
  {
    method: "POST",
    path: `${w}/test`,
    scope: "write:webhooks",
    op: "webhooks.test",
    response: Delivery,
    accepted: true,
    summary: "Send a test event",
    description: "202 with the delivery of a `webhook.test` event to this endpoint alone, sent even if it is disabled or not subscribed.",
  },
  {
    method: "GET",
    path: `${w}/deliveries`,
    scope: "read:webhooks",
    op: "deliveries.list",
    query: ListDeliveriesQuery,
    paginated: true,
    response: z.array(Delivery),
    summary: "List an endpoint's deliveries",
    description: "Newest first.",
  },
  {
    method: "POST",
    path: `${w}/deliveries/{delivery_id}/retry`,
    scope: "write:webhooks",
    op: "deliveries.retry",
    response: Delivery,
    accepted: true,
    summary: "Resend a delivery",
    description: "202: an attempt is made now whatever the delivery's status. A failure continues the delivery's retry schedule.",
  },
];

/** Every event's payload: the OpenAPI document's top-level `webhooks` (OpenAPI 3.1). */
export const MatchWithTournament = Match.extend({ tournament_id: z.guid() });
export const StageWithTournament = StageDetail.extend({ tournament_id: z.guid() });
export const eventPayloads: { type: string; data: z.ZodType; summary: string }[] = [
  { type: "tournament.created", data: Tournament, summary: "A tournament was created." },
  { type: "tournament.updated", data: Tournament, summary: "A PATCH changed something other than the status." },
  { type: "tournament.started", data: Tournament, summary: "registration → ongoing (with any other fields changed with it)." },
  { type: "tournament.completed", data: Tournament, summary: "ongoing → completed." },
  { type: "tournament.cancelled", data: Tournament, summary: "Reserved: the contract has no cancelled status yet, so it is never sent." },
  { type: "tournament.deleted", data: z.object({ id: z.guid() }), summary: "A tournament was deleted." },
  { type: "registration.created", data: Registration, summary: "A team registered." },
  {
    type: "registration.updated",
    data: Registration,
    summary: "Its seed, payment status, check-in, lineup, state or disqualification changed.",
  },
  { type: "registration.withdrawn", data: Registration, summary: "A registration was withdrawn (as it was just before)." },
  {
    type: "match.ready",
    data: MatchWithTournament,
    summary:
      "A match has both teams: every first-round match at the start, each later one as results come in (again if a correction changes who plays it).",
  },
  { type: "match.completed", data: MatchWithTournament, summary: "A result or forfeit was reported on a ready match." },
  {
    type: "match.corrected",
    data: MatchWithTournament,
    summary:
      "A completed match's result changed (a series' decision undone by a game's correction or deletion included: the match is `ready` again).",
  },
  { type: "match.scheduled", data: MatchWithTournament, summary: "`scheduled_at` was set or cleared." },
  {
    type: "match.game_reported",
    data: MatchWithTournament,
    summary:
      "A game of the match's series was put or deleted: the match with its `games`. `match.completed` follows when the game decides the match.",
  },
  {
    type: "match.reported",
    data: MatchWithTournament,
    summary: "A participant reported the match (a first report, or the reporter's replacement): its `report` awaits confirmation.",
  },
  {
    type: "match.disputed",
    data: MatchWithTournament,
    summary: "A participant disputed the match's report (or reported a different result): only the organiser decides it now.",
  },
  {
    type: "stage.started",
    data: StageWithTournament,
    summary: "A stage started: stage 1 with the tournament (after `tournament.started`), a later one by PATCH .../stages/{number}.",
  },
  { type: "stage.completed", data: StageWithTournament, summary: "A stage's last match was decided (swiss: its last round)." },
  { type: "webhook.test", data: Webhook, summary: "Sent by POST /webhooks/{webhook_id}/test; data is the endpoint." },
];
