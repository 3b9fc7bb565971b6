// The public view of a tournament (contract section 15): what `GET /public/tournaments/{slug}`
// answers, and what the bracket renderer draws from. Plain types: the renderer is pure and runs
// without a database (and in the tests without Deno).

export type Format = "single_elimination" | "double_elimination" | "round_robin" | "swiss";

export interface ViewTeam { id: string; name: string; tag: string; logo_url: string | null }

export interface ViewRegistration {
  id: string;
  team_id: string;
  registered_at: string;
  seed: number | null;
  checked_in_at: string | null;
  teams: ViewTeam;
}

export interface ViewGame {
  number: number;
  team1_score: number;
  team2_score: number;
  winner_id: string;
  map: string | null;
  reported_at: string;
}

export interface ViewMatch {
  id: string;
  stage: number;
  bracket: "winners" | "losers" | "grand_final" | "third_place" | null;
  group: number | null;
  round: number;
  position: number;
  team1_id: string | null;
  team2_id: string | null;
  team1_seed: number | null;
  team2_seed: number | null;
  team1_score: number | null;
  team2_score: number | null;
  winner_id: string | null;
  status: "pending" | "ready" | "completed" | "bye";
  forfeit: "team1" | "team2" | null;
  best_of: number;
  games: ViewGame[];
  next_match_id: string | null;
  loser_next_match_id: string | null;
  scheduled_at: string | null;
  completed_at: string | null;
}

export interface ViewStanding {
  position: number;
  team_id: string;
  team_name: string;
  team_tag: string;
  group?: number;
  group_position?: number;
  wins?: number;
  losses?: number;
  points?: number;
  buchholz?: number;
}

export interface ViewStage {
  number: number;
  name: string;
  format: Format;
  format_options: Record<string, unknown>;
  advance: Record<string, unknown> | null;
  status: "pending" | "ongoing" | "completed";
  team_count: number | null;
  started_at: string | null;
  completed_at: string | null;
  /** The stage's own standings (with `group` where it has groups); empty until it starts. */
  standings: ViewStanding[];
}

export interface ViewTournament {
  id: string;
  name: string;
  slug: string;
  description: string;
  status: "registration" | "ongoing" | "completed";
  format: Format;
  format_options: Record<string, unknown>;
  starts_at: string;
  version: number;
  visibility: "private" | "public";
  [field: string]: unknown;
}

/** `GET /public/tournaments/{slug}`: the keyed routes' documents, without payment or account data. */
export interface PublicView {
  tournament: ViewTournament;
  /** Every stage in order, each with its own standings. */
  stages: ViewStage[];
  /** Every registration (no payment_status), with its team. */
  registrations: ViewRegistration[];
  /** Every started stage's matches, by stage, round, position. */
  matches: ViewMatch[];
  /** The tournament's overall standings (as the results). */
  standings: ViewStanding[];
}
