// Text for the bracket picture: XML escaping, a conservative width estimate (the picture has no
// layout engine: every label must fit the room it is given before anything draws it), truncation
// with "…", and the scheduled-time format.

// Inter's advance widths (Regular and Bold), in hundredths of an em rounded up, for the printable
// ASCII characters 32..126, read from the font files the PNG rasteriser uses.
const REGULAR = [
  29,
  29,
  47,
  64,
  65,
  99,
  65,
  30,
  37,
  37,
  51,
  67,
  29,
  46,
  29,
  37,
  64,
  41,
  61,
  62,
  65,
  60,
  63,
  57,
  62,
  63,
  29,
  31,
  67,
  67,
  67,
  52,
  97,
  69,
  66,
  74,
  73,
  61,
  60,
  75,
  75,
  27,
  58,
  68,
  57,
  91,
  76,
  77,
  64,
  77,
  65,
  65,
  65,
  75,
  69,
  99,
  69,
  68,
  63,
  37,
  37,
  37,
  48,
  46,
  33,
  57,
  62,
  58,
  62,
  59,
  38,
  62,
  60,
  25,
  25,
  55,
  25,
  88,
  60,
  60,
  62,
  62,
  38,
  53,
  33,
  60,
  57,
  82,
  55,
  57,
  56,
  43,
  34,
  43,
  67,
];
const BOLD = [
  24,
  34,
  56,
  65,
  66,
  102,
  68,
  34,
  38,
  38,
  56,
  68,
  34,
  47,
  34,
  39,
  68,
  44,
  63,
  65,
  68,
  63,
  65,
  59,
  66,
  65,
  34,
  35,
  68,
  68,
  68,
  56,
  102,
  75,
  67,
  74,
  73,
  61,
  59,
  76,
  75,
  29,
  59,
  72,
  57,
  94,
  77,
  78,
  65,
  78,
  66,
  66,
  67,
  74,
  75,
  104,
  74,
  74,
  67,
  38,
  39,
  38,
  49,
  48,
  37,
  59,
  64,
  59,
  64,
  60,
  40,
  64,
  63,
  28,
  28,
  59,
  28,
  92,
  63,
  62,
  64,
  64,
  41,
  57,
  37,
  63,
  60,
  86,
  59,
  61,
  58,
  47,
  38,
  47,
  68,
];
// Headroom for browsers that draw the SVG with a wider fallback font (system-ui, DejaVu Sans,
// whose bold is wider still).
const SLACK = 1.08;
const SLACK_BOLD = 1.15;

/** The widest a character can be, in em: CJK and other full-width characters, emoji. */
function wideWidth(code: number): number {
  if (code >= 0x10000) return 1.25;
  if (
    (code >= 0x1100 && code <= 0x11ff) || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xffef)
  ) return 1;
  return 0;
}

function charWidth(ch: string, table: number[]): number {
  const code = ch.codePointAt(0)!;
  if (code >= 32 && code < 127) return table[code - 32] / 100;
  const wide = wideWidth(code);
  if (wide) return wide;
  // Accented Latin letters are as wide as their base letter; anything else is given a wide guess.
  const base = ch.normalize("NFD").charCodeAt(0);
  if (base >= 32 && base < 127) return table[base - 32] / 100;
  if (ch === "…") return 1;
  return 0.8;
}

/** An upper bound for the width of `text` in Inter at `size` px (bold or regular), in px. */
export function textWidth(text: string, size: number, bold = false): number {
  const table = bold ? BOLD : REGULAR;
  let em = 0;
  for (const ch of text) em += charWidth(ch, table);
  return em * size * (bold ? SLACK_BOLD : SLACK);
}

/** `text` cut and ended with "…" so that it is at most `width` px wide ("" when not even "…" fits). */
export function fit(text: string, width: number, size: number, bold = false): string {
  if (textWidth(text, size, bold) <= width) return text;
  const table = bold ? BOLD : REGULAR;
  const budget = width / (size * (bold ? SLACK_BOLD : SLACK)) - charWidth("…", table);
  if (budget < 0) return "";
  let em = 0;
  let end = 0;
  for (const ch of text) {
    em += charWidth(ch, table);
    if (em > budget) break;
    end += ch.length;
  }
  const kept = text.slice(0, end).trimEnd();
  return kept === "" ? (width >= textWidth("…", size, bold) ? "…" : "") : kept + "…";
}

// XML 1.0 has no place for C0 controls (but tab, newline, return), U+FFFE/U+FFFF or lone surrogates.
const INVALID =
  // deno-lint-ignore no-control-regex -- control characters are what it removes
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// deno-lint-ignore no-control-regex -- control characters are what it removes
const SPECIAL = /[&<>"'\u0000-\u001f\ud800-\udfff\ufffe\uffff]/;
const ENTITY: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** `text` safe inside an XML element or a double- or single-quoted attribute; whitespace runs become one space. */
export function esc(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(INVALID, "").replace(/[\t\n\r]+/g, " ").replace(/[&<>"']/g, (c) => ENTITY[c]);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** An ISO instant as "Mar 1 18:00 UTC" ("" when it does not parse). */
export function shortTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const two = (n: number) => (n < 10 ? "0" : "") + n;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}
