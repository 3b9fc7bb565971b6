// The OpenAPI document's top-level `webhooks`: each event the dispatcher POSTs to an endpoint,
// with the Standard Webhooks headers it is signed with.
import * as webhooks from "../resources/webhooks.ts";
import { type Json, schemaOf } from "./components.ts";

const WEBHOOK_HEADERS: Json[] = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    schema: { type: "string", format: "uuid" },
    description: "The event's id: the same on every retry and to every endpoint. Deduplicate on it.",
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
    description: "Unix seconds of this attempt. Reject a timestamp too far from your clock (Standard Webhooks' libraries allow 5 minutes).",
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    schema: { type: "string" },
    description:
      "`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded part of the secret after `whsec_`. During the 24 hours after a rotation: two, space-separated, the new secret's first.",
  },
];

/** The top-level `webhooks` (OpenAPI 3.1): each event's POST to the endpoint's URL. */
export function eventDocuments(): Json {
  const out: Json = {};
  for (const { type, data, summary } of webhooks.eventPayloads) {
    const schema = {
      type: "object",
      required: ["type", "timestamp", "actor", "data"],
      properties: {
        type: { const: type },
        timestamp: { type: "string", format: "date-time", description: "When the change committed (UTC)." },
        actor: {
          type: ["object", "null"],
          required: ["type", "id"],
          properties: { type: { enum: ["key", "participant"] }, id: { type: "string", format: "uuid" } },
          description:
            "Who made the request that caused the event: an API key, or a participant token (contract section 17); null when a worker did.",
        },
        data: schemaOf(data),
      },
    };
    out[type] = {
      post: {
        summary,
        description:
          `${summary}\n\nSent as \`POST\` to each enabled endpoint subscribed to \`${type}\` (or \`*\`), with \`content-type: application/json\` and \`user-agent: TournamentAPI-Webhooks/1.0\`. Answer any 2xx within 10 seconds; anything else (a 3xx included: redirects are not followed) is retried after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h, then given up.`,
        operationId: `event_${type.replace(".", "_")}`,
        tags: ["Webhooks"],
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { "application/json": { schema } } },
        responses: { "2XX": { description: "Received; any 2xx within the timeout is a success." } },
      },
    };
  }
  return out;
}
