// Matches, their games, standings and a tournament's results as the API returns them.
import { z } from "zod";
import { SEPARATED_BY } from "../../contract.ts";
import { EXAMPLE_IDS } from "./common.ts";

export const Game = z.object({
  number: z.int().meta({ description: "1..best_of." }),
  team1_score: z.int(),
  team2_score: z.int(),
  winner_id: z.guid().meta({ description: "The team with the higher score." }),
  map: z.string().nullable().meta({ description: "The map (or game mode, stage, …) played; null unless sent." }),
  reported_at: z.iso.datetime().meta({ description: "UTC; when the game was last put." }),
  lineups: z.object({ team1: z.array(z.guid()), team2: z.array(z.guid()) }).nullable()
    .meta({ description: "Who played the game on each side (player ids); null when not given." }),
});

/** A free-for-all lobby's game (contract section 20): every team's placement, kills and points. */
export const LobbyGame = z.object({
  number: z.int().meta({ description: "1..`games` of the stage." }),
  results: z.array(z.object({
    team_id: z.guid(),
    placement: z.int().meta({ description: "1 is first in this game." }),
    kills: z.int(),
    points: z.int().meta({ description: "The placement's points plus `kill_points` per kill." }),
  })).meta({ description: "Every team of the lobby, in placement order." }),
  reported_at: z.iso.datetime().meta({ description: "UTC; when the game was last put." }),
});

/** A team in a free-for-all lobby (contract section 20). */
export const Opponent = z.object({
  team_id: z.guid(),
  team_name: z.string(),
  team_tag: z.string(),
  seed: z.int().meta({ description: "The team's seed in the stage." }),
  placement: z.int().nullable().meta({
    description:
      "Its rank in the lobby by the lobby's points, ties broken as the standings are (the stage's tie-breakers over the lobby's games, then seed); null before the first game.",
  }),
  kills: z.int().meta({ description: "Kills in the lobby's games." }),
  points: z.int().meta({ description: "The lobby's total: placement points plus `kill_points` per kill, over its games." }),
});

export const MatchExample = {
  id: EXAMPLE_IDS.match,
  stage: 1,
  round: 1,
  position: 1,
  team1_id: EXAMPLE_IDS.team1,
  team2_id: EXAMPLE_IDS.team2,
  bracket: "winners",
  group: null,
  team1_seed: 1,
  team2_seed: 16,
  team1_score: 2,
  team2_score: 1,
  winner_id: EXAMPLE_IDS.team1,
  draw: false,
  status: "completed",
  forfeit: null,
  best_of: 3,
  games: [
    {
      number: 1,
      team1_score: 13,
      team2_score: 9,
      winner_id: EXAMPLE_IDS.team1,
      map: "Mirage",
      reported_at: "2027-03-01T18:40:00.000Z",
      lineups: null,
    },
    {
      number: 2,
      team1_score: 11,
      team2_score: 13,
      winner_id: EXAMPLE_IDS.team2,
      map: "Inferno",
      reported_at: "2027-03-01T19:25:00.000Z",
      lineups: null,
    },
    {
      number: 3,
      team1_score: 13,
      team2_score: 7,
      winner_id: EXAMPLE_IDS.team1,
      map: "Nuke",
      reported_at: "2027-03-01T20:05:00.000Z",
      lineups: null,
    },
  ],
  next_match_id: EXAMPLE_IDS.nextMatch,
  loser_next_match_id: null,
  scheduled_at: "2027-03-01T18:00:00.000Z",
  completed_at: "2027-03-01T18:10:00.000Z",
  report: null,
  opponents: null,
};

/** One side's part in a participants' report (contract section 18); null until that side acts. */
const ReportSide = z.object({
  result: z.record(z.string(), z.unknown()).nullable().meta({
    description: "The body it reported: `{team1_score, team2_score}`, `{forfeit}` or `{games}`; null when it only disputed.",
  }),
  evidence_url: z.string().nullable(),
  note: z.string().nullable(),
  reported_at: z.iso.datetime().nullable(),
  dispute: z.object({ note: z.string().nullable(), evidence_url: z.string().nullable(), at: z.iso.datetime() }).nullable(),
}).nullable();

export const MatchReport = z.object({
  state: z.enum(["awaiting_confirmation", "confirmed", "disputed", "resolved", "void"]),
  team1: ReportSide,
  team2: ReportSide,
  confirm_by: z.iso.datetime().nullable().meta({
    description:
      "When an unanswered report counts as confirmed (`resolved_by: timeout`): the first report's time + `report_confirm_minutes`.",
  }),
  resolved_by: z.enum(["opponent", "timeout", "organizer"]).nullable(),
  note: z.string().nullable().meta({ description: "The service's own: why a report could not be applied." }),
}).nullable().meta({ description: "The participants' report (contract section 18); null when none." });

export const Match = z.object({
  id: z.guid(),
  stage: z.int().meta({ description: "The stage the match belongs to (1 is the first)." }),
  bracket: z.enum(["winners", "losers", "grand_final", "third_place"]).nullable()
    .meta({ description: "The elimination formats' bracket; null in round robin." }),
  group: z.int().nullable().meta({ description: "The round-robin group (1-based); null otherwise." }),
  round: z.int().meta({ description: "1 is the first round." }),
  position: z.int().meta({ description: "1-based within the round." }),
  team1_id: z.guid().nullable().meta({ description: "Null while unknown or for a bye." }),
  team2_id: z.guid().nullable().meta({ description: "Null while unknown or for a bye." }),
  team1_seed: z.int().nullable().meta({ description: "team1's seed in the bracket (1..N); null when there is no team1." }),
  team2_seed: z.int().nullable().meta({ description: "team2's seed in the bracket (1..N); null when there is no team2." }),
  team1_score: z.int().nullable().meta({
    description:
      "Null until reported, and for a forfeit. With games reported: the games team1 has won (so far, while the series is under way).",
  }),
  team2_score: z.int().nullable().meta({
    description: "Null until reported, and for a forfeit. With games reported: the games team2 has won.",
  }),
  winner_id: z.guid().nullable().meta({ description: "For a bye, the team that advances. Null for a draw." }),
  draw: z.boolean().meta({
    description:
      "The match completed level, without a winner (round robin and swiss stages with `draws`: equal scores, or an even series level after all its games). False otherwise.",
  }),
  status: z.enum(["pending", "ready", "completed", "bye"]).meta({
    description: "`pending` waits for teams, `ready` can be reported, `completed` has a result, `bye` has one team that advances.",
  }),
  forfeit: z.enum(["team1", "team2"]).nullable().meta({
    description: "The team that forfeited this completed match (the other won); null otherwise.",
  }),
  best_of: z.int().nullable().meta({
    description:
      "The series length (1–9; even only in a stage with `draws`): the match is decided when a side wins best_of / 2 + 1 games (ceil(best_of / 2) when odd), or is a draw when an even series ends level. From the stage's `format_options` (`final_best_of` for the final or grand final); `PATCH` may change it until the match has a game or a result. Null for a free-for-all lobby (it plays its stage's `games`).",
  }),
  games: z.array(z.union([Game, LobbyGame])).meta({
    description:
      "The games reported (`PUT .../games/{number}`), in number order; empty until one is. A result sent directly replaces them; a forfeit keeps them. A free-for-all lobby's games are `{number, results, reported_at}`.",
  }),
  next_match_id: z.guid().nullable().meta({ description: "The match the winner goes to; null for the final and in round robin." }),
  loser_next_match_id: z.guid().nullable().meta({
    description: "The match the loser goes to (the semi-finals' third-place match); null otherwise.",
  }),
  scheduled_at: z.iso.datetime().nullable().meta({ description: "UTC; when the match is planned, null unless set." }),
  completed_at: z.iso.datetime().nullable(),
  report: MatchReport,
  opponents: z.array(Opponent).nullable().meta({
    description:
      "A free-for-all lobby's teams (contract section 20), in placement order (by seed before its first game); `team1_*`/`team2_*` are null there. Its `position` is the lobby's number in its round; it completes when its games are all reported, `winner_id` the team placed first. Null on a two-sided match.",
  }),
}).meta({ example: MatchExample });

export const Standing = z.object({
  position: z.int().meta({
    description:
      "Single elimination: competition ranking 1, 2, 3, 3, 5, 5, 5, 5, … (3 and 4 with a third-place match). Round robin (overall) and swiss: by points, then the stage's `tie_breakers`, then seed, so never shared.",
  }),
  team_id: z.guid(),
  team_name: z.string(),
  team_tag: z.string(),
  disqualified: z.boolean().meta({
    description:
      "The team was disqualified (its matches forfeited from then on). It is placed last among the teams placed alongside it: after the others sharing its position in an elimination stage, after every other team of its group (and overall) in round robin and swiss.",
  }),
  group: z.int().optional().meta({ description: "Round robin: the team's group." }),
  group_position: z.int().optional().meta({ description: "Round robin: the position within the group." }),
  wins: z.int().optional().meta({ description: "Round robin and swiss (a swiss bye counts as a win)." }),
  draws: z.int().optional().meta({ description: "Round robin and swiss: matches drawn." }),
  losses: z.int().optional().meta({ description: "Round robin and swiss (a forfeit counts as a loss)." }),
  points: z.int().optional().meta({
    description:
      "Round robin and swiss: by the stage's `format_options.points` (win, draw, loss, forfeit_loss; a swiss bye scores a win). Free-for-all: placement points plus `kill_points` per kill, over the stage's games.",
  }),
  buchholz: z.int().optional().meta({
    description: "Swiss: the sum of the current points of every opponent met in a completed match (a bye adds nothing).",
  }),
  kills: z.int().optional().meta({ description: "Free-for-all: kills over the stage's games." }),
  first_places: z.int().optional().meta({ description: "Free-for-all: games won (placed first)." }),
  games_played: z.int().optional().meta({ description: "Free-for-all: games the team has played in the stage." }),
  best_placement: z.int().nullable().optional().meta({ description: "Free-for-all: the best placement in a game; null before a game." }),
  separated_by: z.enum(SEPARATED_BY).nullable().optional().meta({
    description:
      "Round robin, swiss and free-for-all: the first criterion, in order (`points`, the stage's `tie_breakers`, then `seed`), on which this entry differs from the entry above it in its group (round robin with groups) or stage; null for the first. `seed`: nothing else separated them. `disqualified`: the first disqualified team after the others.",
  }),
});

export const Results = z.object({
  tournament: z.object({
    id: z.guid(),
    format: z.string(),
    status: z.string(),
    stage: z.int().meta({ description: "The number of the stage being played (1 until stage 2 starts)." }),
    version: z.int().min(1).meta({ description: "The tournament's version these results are at: the next `?since=`." }),
  }),
  matches: z.array(Match).meta({
    description:
      "Every started stage's matches, by stage, round, then position (`?stage=k`: stage k's alone); empty while in registration. With `?since=v`: only the matches changed after version v.",
  }),
  removed_matches: z.array(z.guid()).optional().meta({
    description:
      "With `?since=v` only: the ids of matches taken away after version v (a swiss round drawn again when a decision of the round before is undone).",
  }),
  standings: z.array(Standing).meta({
    description:
      "Teams whose place is decided, by position then team name: champion 1, final loser 2, semi-final losers 3, quarter-final losers 5, … With several stages (and no `?stage`): the last started stage's places first, then the teams each earlier stage did not send on, stage by stage backwards, positions continuing (after a stage with groups, every group's k-th place shares one position). `?stage=k`: that stage's own standings.",
  }),
}).meta({
  example: {
    tournament: { id: EXAMPLE_IDS.tournament, format: "single_elimination", status: "ongoing", stage: 1, version: 7 },
    matches: [MatchExample],
    standings: [{ position: 5, team_id: EXAMPLE_IDS.team2, team_name: "Blue Phoenix", team_tag: "BLU", disqualified: false }],
  },
});
