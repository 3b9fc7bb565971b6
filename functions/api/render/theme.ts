// The picture's two colour schemes. Every text colour meets WCAG AA (4.5:1) on every surface it is
// drawn on (tests/public/svg.test.ts checks the pairs); lines and borders are decoration.

export interface Theme {
  /** The page. */
  bg: string;
  /** Match boxes, tables' rows. */
  surface: string;
  /** Score cells, table heads, cross-table diagonal. */
  surfaceAlt: string;
  border: string;
  /** Connector lines between rounds. */
  line: string;
  text: string;
  /** Titles, seeds, times, losers, TBD and BYE. */
  muted: string;
  /** The winner's bar and score cell. */
  accent: string;
  /** Text on the accent. */
  onAccent: string;
  /** A won cell of the cross-table. */
  winTint: string;
  /** The caption saying what was left out. */
  warn: string;
}

export const THEMES: Record<"light" | "dark", Theme> = {
  light: {
    bg: "#ffffff",
    surface: "#f6f8fa",
    surfaceAlt: "#eaeef2",
    border: "#d0d7de",
    line: "#8c959f",
    text: "#1f2328",
    muted: "#59636e",
    accent: "#0969da",
    onAccent: "#ffffff",
    winTint: "#ddf4ff",
    warn: "#9a6700",
  },
  dark: {
    bg: "#0d1117",
    surface: "#161b22",
    surfaceAlt: "#21262d",
    border: "#30363d",
    line: "#6e7681",
    text: "#e6edf3",
    muted: "#9198a1",
    accent: "#4493f8",
    onAccent: "#0d1117",
    winTint: "#102a4c",
    warn: "#d29922",
  },
};

/** Text colour → the surfaces it is drawn on, for the contrast check. */
export const TEXT_ON: Array<[keyof Theme, Array<keyof Theme>]> = [
  ["text", ["bg", "surface", "surfaceAlt", "winTint"]],
  ["muted", ["bg", "surface", "surfaceAlt", "winTint"]],
  ["onAccent", ["accent"]],
  ["warn", ["bg"]],
];

export const FONT = "Inter, ui-sans-serif, system-ui, sans-serif";
