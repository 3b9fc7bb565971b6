// The words the public view shows for formats and statuses, written once: the bracket picture
// (svg.ts) reads them from here, and the share page (page.ts) hands the same table to its script.
// Plain data: it is serialized into the page as JSON.
import type { Format, ViewStage, ViewTournament } from "./view.ts";

/** Every label the picture and the page show for a format or a status. */
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
}

/** The labels table. */
export const LABELS: Labels = {
  formats: {
    single_elimination: "Single elimination",
    double_elimination: "Double elimination",
    round_robin: "Round robin",
    swiss: "Swiss",
  },
  tournamentStatus: { registration: "Registration open", ongoing: "In progress", completed: "Completed" },
  stageStatus: { pending: "Not started", ongoing: "In progress", completed: "Completed" },
  pictureStageStatus: { pending: "Not started", ongoing: "Ongoing", completed: "Completed" },
};
