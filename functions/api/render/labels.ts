// The words the public view shows for formats, statuses, lineups and open reports, written once: the bracket
// picture (svg.ts, match.ts) reads them from here, and the share page (page.ts) hands the same table
// to its script. Plain data: it is serialized into the page as JSON.
import type { Format, ViewLineupEntry, ViewMatch, ViewStage, ViewTournament } from "./view.ts";

/** A participants' report still open (contract section 18): the match is not decided, whatever was reported. */
export type OpenReportState = Extract<NonNullable<ViewMatch["report"]>["state"], "awaiting_confirmation" | "disputed">;

/** The state of `m`'s report when it is open (awaiting confirmation or disputed), else null. */
export function openReport(m: ViewMatch): OpenReportState | null {
  const state = m.report?.state;
  return state === "awaiting_confirmation" || state === "disputed" ? state : null;
}

/** Whether `m` is drawn (contract section 19): completed with neither side the winner. */
export function isDraw(m: ViewMatch): boolean {
  return m.status === "completed" && m.draw === true;
}

/** Every label the picture and the page show for a format, a status or a lineup. */
export interface Labels {
  formats: Record<Format, string>;
  tournamentStatus: Record<ViewTournament["status"], string>;
  /** A stage's status on the page (the stage tabs). */
  stageStatus: Record<ViewStage["status"], string>;
  /**
   * A stage's status in the picture's subtitle. It says "Ongoing" where the page says "In
   * progress": both wordings predate this table, and pictures already shared (and their tests)
   * read "Ongoing"; one wording for both would be a visible change of its own.
   */
  pictureStageStatus: Record<ViewStage["status"], string>;
  /** The teams' lineups: the page's Teams card (page-teams.ts) and the picture's team tooltips (match.ts). */
  lineup: {
    /** The card's heading. */
    heading: string;
    /** "1 team", "8 teams": the word after the count, one and many. */
    teams: [string, string];
    roles: Record<ViewLineupEntry["role"], string>;
    /** The captain's mark, shown in brackets after the handle: "frost (C)". */
    captain: string;
    /** What the mark stands for (its tooltip on the page). */
    captainTitle: string;
    /** A team without a lineup. */
    none: string;
    /** No team registered. */
    noTeams: string;
  };
  /**
   * A match whose participants' report is open: the picture's line above the box (and the
   * cross-table cell's tooltip) and the page's badge on the upcoming match. The reported score is
   * not a result until it is applied, so neither shows it.
   */
  report: Record<OpenReportState, string>;
  /**
   * A drawn match: the picture's line above its box (where a time or a report's state goes) and
   * the tooltip of its box and cross-table cells.
   */
  draw: string;
}

/** The labels table. */
export const LABELS: Labels = {
  formats: {
    single_elimination: "Single elimination",
    double_elimination: "Double elimination",
    round_robin: "Round robin",
    swiss: "Swiss",
    ffa: "Free-for-all",
  },
  tournamentStatus: { registration: "Registration open", ongoing: "In progress", completed: "Completed" },
  stageStatus: { pending: "Not started", ongoing: "In progress", completed: "Completed" },
  pictureStageStatus: { pending: "Not started", ongoing: "Ongoing", completed: "Completed" },
  lineup: {
    heading: "Teams",
    teams: ["team", "teams"],
    roles: { player: "Player", substitute: "Substitute", coach: "Coach" },
    captain: "C",
    captainTitle: "Captain",
    none: "No lineup announced yet.",
    noTeams: "No team has registered yet.",
  },
  report: { awaiting_confirmation: "Awaiting confirmation", disputed: "Result disputed" },
  draw: "Draw",
};
