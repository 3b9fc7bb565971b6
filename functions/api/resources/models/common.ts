// Response models (resources/models/, one file per resource): what the API returns, as zod
// schemas, the source of the OpenAPI document's component schemas (the function does not validate
// its own output). This file holds what every response shares: the envelope's meta and pagination,
// the error body and a deletion's answer; and the example ids and the id and instant fields the
// other models are built with.
import { z } from "zod";

/** A uuid field with its description. */
export const id = (description: string) => z.guid().meta({ description });
/** A UTC date-time field with its description. */
export const instant = (description: string) => z.iso.datetime().meta({ description, format: "date-time" });

/** The ids the documented examples use, shared so that one example's references match another's. */
export const EXAMPLE_IDS = {
  tournament: "0b7f3c52-9f0e-4a8e-9d1c-6d2f1e0a4b11",
  game: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
  team1: "3d4e5f60-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
  team2: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
  registration: "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f",
  match: "7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b",
  nextMatch: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
  request: "2f3e4d5c-6b7a-4988-8776-655443322110",
  key: "4b5c6d7e-8f90-4a1b-8c2d-3e4f5a6b7c8d",
  account: "8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f",
  webhook: "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6",
};

export const DeleteResult = z.object({ message: z.string() }).meta({ example: { message: "Tournament deleted" } });

export const Pagination = z.object({
  page: z.int().nullable().meta({ description: "The page number asked for (1 by default); null when the page was reached with `cursor`." }),
  limit: z.int(),
  total: z.int().meta({ description: "All matching items, whatever the page." }),
  next_cursor: z.string().nullable().meta({ description: "Pass as `cursor` for the page after this one; null when there is none." }),
});

export const Meta = z.object({
  timestamp: z.iso.datetime(),
  api_version: z.string().meta({ example: "1.0" }),
  request_id: z.guid().meta({ description: "Also sent as the X-Request-Id header." }),
});

export const ErrorBody = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string().meta({ description: "Stable snake_case code." }),
    message: z.string().meta({ description: "For humans." }),
    details: z.array(z.object({
      field: z.string(),
      message: z.string(),
      team_id: z.guid().optional().meta({ description: "`stage_tie`: a team tied at the cut." }),
      team_name: z.string().optional().meta({ description: "`stage_tie`: its name." }),
      from_position: z.int().optional().meta({ description: "`stage_tie`: the place it shares in the stage before." }),
    })).optional()
      .meta({ description: "For validation errors: one entry per field. For `stage_tie`: one entry per tied team (field `advancing`)." }),
  }),
  meta: Meta,
});
