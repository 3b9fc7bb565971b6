import { z } from "zod";
import { pageQuery, text, trimmedText } from "../validation.ts";
import type { Route, RouteCall } from "../route.ts";
import { DeleteResult } from "./models/common.ts";
import { Team } from "./models/teams.ts";
import { Me } from "./models/keys.ts";

/** An http(s) URL as SQL stores it: a scheme, then a host without spaces; at most 2,048 characters (also a report's evidence_url). */
export const httpUrl = z.string().max(2048)
  .refine((s) => /^https?:\/\/[^\s/?#]+/.test(s) && URL.canParse(s) && !s.includes("\u0000") && s.isWellFormed(), {
    message: "must be an http(s) URL",
  })
  .meta({ format: "uri", maxLength: 2048 });
const logoUrl = httpUrl.meta({ description: "An http(s) URL, at most 2,048 characters; null for none." });

const fields = { name: trimmedText(100), tag: trimmedText(20), logo_url: logoUrl.nullable() };

export const CreateTeam = z.strictObject({ ...fields, logo_url: fields.logo_url.optional() });

export const UpdateTeam = z.strictObject({
  name: fields.name.optional(),
  tag: fields.tag.optional(),
  logo_url: fields.logo_url.optional(),
}).refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });

export const ListTeamsQuery = z.object({
  ...pageQuery(),
  search: text(100).optional()
    .meta({ description: "Keeps teams whose name or tag contains this text, in any case (`%` and `_` are plain characters)." }),
  owned: z.enum(["true", "false"]).optional()
    .meta({ description: "`true`: only your account's teams; `false`: only the others (platform teams and other accounts')." }),
});

const teamLocation = (data: { id: string }) => `/teams/${data.id}`;

export const teamRoutes: Route[] = [
  {
    method: "GET",
    path: "/teams",
    scope: "read:teams",
    op: "teams.list",
    query: ListTeamsQuery,
    paginated: true,
    response: z.array(Team),
    summary: "List teams",
    description:
      "Every team any account may register: platform teams made by operators and every account's own teams, by name then id. `owned` tells yours apart.",
  },
  {
    method: "POST",
    path: "/teams",
    scope: "write:teams",
    op: "teams.create",
    body: CreateTeam,
    response: Team,
    location: teamLocation,
    summary: "Create a team",
    description:
      "The team is owned by your account: only your account may change or delete it; every account may read and register it. Names need not be unique.",
    bodyExample: { name: "Aurora Gaming", tag: "AUR", logo_url: "https://example.com/aur.png" },
  },
  { method: "GET", path: "/teams/{team_id}", scope: "read:teams", op: "teams.get", response: Team, summary: "Get a team" },
  {
    method: "PATCH",
    path: "/teams/{team_id}",
    scope: "write:teams",
    op: "teams.update",
    body: UpdateTeam,
    response: Team,
    summary: "Update a team",
    description: "Only a team your account owns; a platform team or another account's is 403 `team_not_owned`.",
    bodyExample: { tag: "AURA" },
  },
  {
    method: "DELETE",
    path: "/teams/{team_id}",
    scope: "write:teams",
    op: "teams.delete",
    response: DeleteResult,
    conflicts: ["team_in_use"],
    summary: "Delete a team",
    description:
      "Only a team your account owns (else 403 `team_not_owned`). A team registered in a tournament that has started is 409 `team_in_use`; otherwise its registrations in tournaments still open go with it.",
  },
];

/** GET /me's `rate_limit`: the key's state after this request was counted (api.call counts after the operation). */
function withRateLimit(result: string, c: RouteCall): string {
  if (!result.endsWith("}")) return result;
  const { limit, remaining, reset, window } = c.outcome.auth;
  return `${result.slice(0, -1)},"rate_limit":${JSON.stringify({ limit, remaining, reset, window })}}`;
}

export const meRoutes: Route[] = [
  {
    method: "GET",
    path: "/me",
    scope: null,
    op: "me",
    response: Me,
    data: withRateLimit,
    summary: "The calling key, its account and its rate limit",
    description:
      "Any valid key, whatever its scopes; the request counts toward the rate limit, and `rate_limit` is the state after it. Never the key's secret.",
  },
];
