// The OpenAPI 3.1 document, built from the route table and its zod schemas: the same schemas
// the function validates with, so the document cannot drift from the behaviour. Its parts:
// components.ts (named schemas, error responses, headers), operations.ts (one route's operation),
// webhooks.ts (the events sent to endpoints) and public.ts (the public routes).
import { API_VERSION } from "../envelope.ts";
import { PARTICIPANT_SCOPES, PUBLIC_RATE_LIMIT, RATE_LIMIT, SCOPES } from "../contract.ts";
import { routes } from "../routes.ts";
import { componentSchemas, errorComponents, headerComponents, type Json } from "./components.ts";
import { operation } from "./operations.ts";
import { eventDocuments } from "./webhooks.ts";
import { publicPaths } from "./public.ts";

/** The default first server: the local stack of `npm start`. */
export const LOCAL_SERVER_URL = "http://127.0.0.1:54321/functions/v1/api/v1";

/**
 * The OpenAPI 3.1 document. `serverUrl` is the first server listed: where the document is
 * served from (the function passes its public base URL); the committed copy names the local
 * stack's default.
 */
export function openApiDocument({ serverUrl = LOCAL_SERVER_URL }: { serverUrl?: string } = {}): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  Object.assign(paths, publicPaths());
  return {
    openapi: "3.1.0",
    info: {
      title: "Tournament API",
      version: API_VERSION,
      summary: "Tournaments, team registrations, brackets and results for esports organisers.",
      description: [
        "Every request carries `Authorization: Bearer <API key>`; every operation but `GET /me` needs a scope on the key.",
        "Successes are `{success: true, data, pagination?, meta}`; errors are `{success: false, error: {code, message, details?}, meta}`.",
        "Checks run in this order: route (404/405) → key (401) → account enabled (403) → rate limit (429) → scope (403) → input (400/413/415) → existence (404) → state (409).",
        `Rate limit: ${RATE_LIMIT.limit} accepted requests per key in any rolling ${RATE_LIMIT.window} seconds; \`RateLimit-*\` headers on every authenticated response.`,
        "A known path with another method answers 405 with `Allow`. Browsers get CORS (`OPTIONS` preflight).",
        `Public view: a tournament with \`visibility: "public"\` is shown without a key under \`/public/tournaments/{slug}\` (its document, bracket pictures, a page that keeps itself current and its live stream), counted per client address (${PUBLIC_RATE_LIMIT.limit} requests per minute).`,
        'Change tracking: every tournament has a `version`, raised by each committed change to it, its stages, registrations, matches or games. Its reads answer `ETag: "<version>"` (304 with a matching `If-None-Match`), its writes take `If-Match` (412 `precondition_failed`); `GET .../results?since=<version>` gives only what changed; `GET .../stream` pushes each change as Server-Sent Events.',
      ].join("\n\n"),
    },
    servers: [
      { url: serverUrl, description: serverUrl === LOCAL_SERVER_URL ? "Local (npm start)" : "This server" },
      {
        url: "https://{project_ref}.supabase.co/functions/v1/api/v1",
        description: "Supabase",
        variables: { project_ref: { default: "your-project-ref" } },
      },
    ],
    tags: [
      { name: "Tournaments" },
      { name: "Registrations" },
      { name: "Results", description: "Brackets, match reports and standings." },
      { name: "Teams", description: "Platform teams and your account's own." },
      { name: "Keys", description: "The calling key." },
      {
        name: "Participant tokens",
        description: "The organiser's API key mints, lists and revokes a tournament's participant tokens (contract section 17).",
      },
      {
        name: "Participants",
        description:
          `A participant token (\`tpt_…\`), not an API key: a team acting for its own registration, or signing up. Each token has its own limit of ${RATE_LIMIT.limit} requests per rolling minute; an API key here (or a token on the other routes) is 401.`,
      },
      { name: "Webhooks", description: "Endpoints that receive the account's events, and their deliveries." },
      {
        name: "Public",
        description:
          `Tournaments their owners made public (\`visibility: "public"\`), by slug, without a key: counted per client address (${PUBLIC_RATE_LIMIT.limit} requests per rolling minute), never per key. A private or unknown slug is 404.`,
      },
    ],
    security: [{ apiKey: [] }],
    paths,
    webhooks: eventDocuments(),
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "tmk_<43 base62><6 base62 checksum>",
          description: `An API key made by the operator or in the account settings. Scopes: ${SCOPES.join(", ")}.`,
        },
        participantToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "tpt_<43 base62><6 base62 checksum>",
          description:
            `A participant token, minted by the organiser for one registration (or a sign-up token), for the /participant routes only. Scopes: ${
              PARTICIPANT_SCOPES.join(", ")
            }.`,
        },
      },
      schemas: componentSchemas(),
      responses: errorComponents(),
      headers: headerComponents(),
    },
  };
}
