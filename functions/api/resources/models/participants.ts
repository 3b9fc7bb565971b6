// Participant tokens (contract section 17) as the API returns them: minted (with the plaintext,
// once), listed (never the secret), and what GET /participant shows their holder.
import { z } from "zod";
import { PARTICIPANT_SCOPES, REGISTRATION_TOKEN_SCOPES } from "../../contract.ts";
import { EXAMPLE_IDS, instant } from "./common.ts";
import { Registration } from "./registrations.ts";
import { Tournament } from "./tournaments.ts";

const TOKEN_EXAMPLE = "tpt_3N0Jt1dNtGq0xS0oqg2vB3nU6mHc8aR2kWfYzE5pLdQ0a1B2c3";

export const ParticipantTokenItem = z.object({
  id: z.guid(),
  tournament_id: z.guid(),
  kind: z.enum(["registration", "signup"]).meta({
    description: "`registration`: acts for one registration; `signup`: creates registrations (`participant:register`).",
  }),
  name: z.string(),
  prefix: z.string().meta({ description: "The token's first 12 characters, to recognise it." }),
  scopes: z.array(z.enum(PARTICIPANT_SCOPES)),
  registration_id: z.guid().nullable().meta({ description: "The registration it acts for; null for a sign-up token." }),
  uses: z.int().nullable().meta({ description: "A sign-up token's registrations so far; null for a registration token." }),
  max_uses: z.int().nullable().meta({ description: "A sign-up token's limit (null: unlimited; always null for a registration token)." }),
  expires_at: instant("UTC; null: never.").nullable(),
  created_at: instant("UTC."),
  last_used_at: instant("UTC, to the minute; null until first used.").nullable(),
}).meta({
  example: {
    id: EXAMPLE_IDS.key,
    tournament_id: EXAMPLE_IDS.tournament,
    kind: "registration",
    name: "Registration token",
    prefix: TOKEN_EXAMPLE.slice(0, 12),
    scopes: [...REGISTRATION_TOKEN_SCOPES].sort(),
    registration_id: EXAMPLE_IDS.registration,
    uses: null,
    max_uses: null,
    expires_at: null,
    created_at: "2026-11-21T10:06:00.000Z",
    last_used_at: null,
  },
});

export const ParticipantToken = ParticipantTokenItem.extend({
  token: z.string().meta({
    description: "`tpt_…`: shown this once, never again (only its SHA-256 is kept). Send as `Authorization: Bearer`.",
  }),
}).meta({ description: "A new participant token with its plaintext." });

export const SignUpResult = z.object({
  registration: Registration,
  token: ParticipantToken.meta({
    description: "A registration token (default scopes) for the new registration: the team's further self-service.",
  }),
});

export const ParticipantMe = z.object({
  token: z.object({ id: z.guid(), name: z.string(), scopes: z.array(z.enum(PARTICIPANT_SCOPES)), expires_at: instant("UTC.").nullable() }),
  tournament: Tournament.meta({ description: "The token's tournament, as the public view shows it (whatever its visibility)." }),
  registration: Registration.nullable().meta({ description: "The token's registration; null for a sign-up token." }),
});
