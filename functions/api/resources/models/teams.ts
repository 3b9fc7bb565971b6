// Teams as the API returns them: a platform team, and the summary a registration carries.
import { z } from "zod";
import { EXAMPLE_IDS, instant } from "./common.ts";

export const TeamSummary = z.object({
  id: z.guid(),
  name: z.string(),
  tag: z.string(),
  logo_url: z.string().nullable(),
}).meta({ example: { id: EXAMPLE_IDS.team1, name: "Aurora Gaming", tag: "AUR", logo_url: "https://example.com/aur.png" } });

export const TeamExample = {
  id: EXAMPLE_IDS.team1,
  name: "Aurora Gaming",
  tag: "AUR",
  logo_url: "https://example.com/aur.png",
  owned: true,
  created_at: "2026-11-21T09:00:00.000Z",
};

export const Team = z.object({
  id: z.guid(),
  name: z.string(),
  tag: z.string(),
  logo_url: z.string().nullable(),
  owned: z.boolean().meta({ description: "Whether your account owns the team (and so may change or delete it)." }),
  created_at: instant("UTC."),
}).meta({ example: TeamExample });
