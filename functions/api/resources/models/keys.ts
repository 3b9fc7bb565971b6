// The calling key, its account and its rate limit, as GET /me returns them.
import { z } from "zod";
import { EXAMPLE_IDS, instant } from "./common.ts";

export const Me = z.object({
  key: z.object({
    id: z.guid(),
    name: z.string(),
    prefix: z.string().meta({ description: "The key's first characters, to recognise it; never the secret." }),
    scopes: z.array(z.string()),
    expires_at: instant("UTC; null: never.").nullable(),
    created_at: instant("UTC."),
  }),
  account: z.object({ id: z.guid(), name: z.string() }),
  rate_limit: z.object({
    limit: z.int(),
    remaining: z.int().meta({ description: "After this request, which counts." }),
    reset: z.int().meta({ description: "Seconds until the oldest counted request leaves the window." }),
    window: z.int().meta({ description: "Seconds." }),
  }),
}).meta({
  example: {
    key: {
      id: EXAMPLE_IDS.key,
      name: "Bracket bot",
      prefix: "tmk_4fGh8k2L",
      scopes: ["read:tournaments", "read:teams"],
      expires_at: null,
      created_at: "2026-11-21T09:00:00.000Z",
    },
    account: { id: EXAMPLE_IDS.account, name: "Northern Leagues" },
    rate_limit: { limit: 100, remaining: 99, reset: 60, window: 60 },
  },
});
