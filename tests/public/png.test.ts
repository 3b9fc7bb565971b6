// The bracket picture as PNG (contract section 15): functions/api/render/png.ts run on Deno, as
// deployed (its wasm and fonts read from functions/api/static/), and its output decoded here; with
// pictures of stages with draws (section 19) and a free-for-all stage (section 20), kept under
// .test-artifacts/public/ to look at.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assetType } from "../../functions/api/docs.ts";
import { renderBracket } from "../../functions/api/render/svg.ts";
import { BOX_W } from "../../functions/api/render/match.ts";
import { THEMES } from "../../functions/api/render/theme.ts";
import { pngSize } from "../../functions/api/render/png.ts";
import { buildView, ffa } from "../support/render-fixtures.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DENO = path.join(root, "node_modules", ".bin", "deno");
const STATIC = path.join(root, "functions", "api", "static");
const FONT = "Inter, ui-sans-serif, system-ui, sans-serif";

interface Case {
  name: string;
  svg: string;
  width: number;
  height: number;
}
type Outcome = { png: Buffer } | { error: string };

/** An SVG of `width` × `height` on white, with `body` inside. */
function svg(width: number, height: number, body = ""): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="${width}" height="${height}" fill="#fff"/>${body}</svg>`;
}

const label = (weight: number) =>
  `<text x="20" y="80" font-family="${FONT}" font-size="32" font-weight="${weight}" fill="#000">Grand final 3–1</text>`;

// Stages with draws allowed, every third match drawn.
const DRAWN = {
  swiss: renderBracket(
    buildView({ teams: 8, stages: [{ format: "swiss", options: { draws: true, rounds: 3 }, play: { drawEvery: 3, seed: 4 } }] }),
    { theme: "light" },
  ),
  roundRobin: renderBracket(
    buildView({ teams: 8, stages: [{ format: "round_robin", options: { draws: true, groups: 2 }, play: { drawEvery: 3, seed: 5 } }] }),
    { theme: "dark" },
  ),
};
// A free-for-all stage (section 20) of 1,000 teams, 50 lobbies × 6 games, as the PNG route draws
// it (functions/api/pictures.ts: 4096 on a side, then smaller until 2048² pixels at scale 1).
const FFA = (() => {
  const view = ffa(1000, { lobby_size: 20, games: 6 }, { seed: 5 });
  let side = 4096, picture = renderBracket(view, { theme: "dark", maxSide: side });
  while (picture.width * picture.height > 2048 * 2048) {
    picture = renderBracket(view, { theme: "dark", maxSide: side = Math.floor(side * 0.8) });
  }
  return picture;
})();
const DRAW_LABEL = /<text class="draw"[^>]*>Draw<\/text>/g;

const CASES: Case[] = [
  { name: "text", svg: svg(400, 200, label(400)), width: 400, height: 200 },
  { name: "bold", svg: svg(400, 200, label(700)), width: 400, height: 200 },
  { name: "blank", svg: svg(400, 200), width: 400, height: 200 },
  // The right half black: the picture is scaled, not cropped.
  { name: "wide", svg: svg(6000, 1500, `<rect x="3000" width="3000" height="1500" fill="#000"/>`), width: 6000, height: 1500 },
  { name: "tall", svg: svg(1000, 5000, `<rect y="2500" width="1000" height="2500" fill="#000"/>`), width: 1000, height: 5000 },
  { name: "at-the-cap", svg: svg(2048, 1024), width: 2048, height: 1024 },
  { name: "wrong-size", svg: svg(400, 200), width: 500, height: 200 },
  // No background: transparent, and red at 50% and 20% opacity (straight alpha in the PNG).
  {
    name: "translucent",
    width: 300,
    height: 100,
    svg: `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100" viewBox="0 0 300 100">` +
      `<rect x="100" width="100" height="100" fill="#ff0000" fill-opacity="0.5"/>` +
      `<rect x="200" width="100" height="100" fill="#3366cc" fill-opacity="0.2"/></svg>`,
  },
  { name: "draws-swiss", ...DRAWN.swiss },
  // The same picture without its "Draw" labels: where they go stays blank.
  { name: "draws-swiss-unlabelled", ...DRAWN.swiss, svg: DRAWN.swiss.svg.replace(DRAW_LABEL, "") },
  { name: "draws-round-robin-dark", ...DRAWN.roundRobin },
  { name: "ffa-1000-teams-dark", svg: FFA.svg, width: FFA.width, height: FFA.height },
];

// Renders every case in one Deno process (the first two at once: the wasm is set up once even
// when the first requests overlap) and writes each PNG, or the error, to `out`.
const RUNNER = (pngModule: string) => `
import { svgToPng } from ${JSON.stringify(pngModule)};
const [casesFile, out] = Deno.args;
const cases = JSON.parse(await Deno.readTextFile(casesFile));
const render = async (c) => {
  try {
    await Deno.writeFile(\`\${out}/\${c.name}.png\`, await svgToPng(c.svg, c.width, c.height, (url) => Deno.readFile(url)));
  } catch (err) {
    await Deno.writeTextFile(\`\${out}/\${c.name}.error\`, String(err));
  }
};
await Promise.all(cases.slice(0, 2).map(render));
for (const c of cases.slice(2)) await render(c);
`;

let dir: string;
const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "png-test-"));
  const out = path.join(dir, "out");
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(dir, "cases.json"), JSON.stringify(CASES));
  fs.writeFileSync(path.join(dir, "runner.ts"), RUNNER(pathToFileURL(path.join(root, "functions", "api", "render", "png.ts")).href));
  // Reads allowed only where the function's static files and the cases are.
  const args = [
    "run",
    "--quiet",
    "--frozen",
    "--config",
    "functions/api/deno.json",
    `--allow-read=${STATIC},${dir}`,
    `--allow-write=${out}`,
    path.join(dir, "runner.ts"),
    path.join(dir, "cases.json"),
    out,
  ];
  await new Promise<void>((resolve, reject) => {
    execFile(DENO, args, { cwd: root, timeout: 60_000, env: { ...process.env, NO_COLOR: "1" } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`deno failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
  const artifacts = path.join(root, ".test-artifacts", "public");
  fs.mkdirSync(artifacts, { recursive: true });
  for (const c of CASES) {
    const png = path.join(out, `${c.name}.png`);
    if (/^(draws|ffa)-/.test(c.name) && fs.existsSync(png)) fs.copyFileSync(png, path.join(artifacts, `picture-${c.name}.png`));
    outcomes.set(
      c.name,
      fs.existsSync(png) ? { png: fs.readFileSync(png) } : { error: fs.readFileSync(path.join(out, `${c.name}.error`), "utf8") },
    );
  }
}, 90_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

interface Image {
  width: number;
  height: number;
  channels: number;
  pixels: Uint8Array;
}

/** Decodes an 8-bit, non-interlaced greyscale, RGB or RGBA PNG, checking every chunk's CRC. */
function decodePng(png: Buffer): Image {
  expect([...png.subarray(0, 8)], "PNG signature").toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let offset = 8;
  let header: { width: number; height: number; depth: number; colour: number; interlace: number } | undefined;
  const data: Buffer[] = [];
  let ended = false;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    expect(png.readUInt32BE(offset + 8 + length), `CRC of ${type}`).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)));
    if (type === "IHDR") {
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8], colour: body[9], interlace: body[12] };
    } else if (type === "IDAT") {
      data.push(body);
    } else if (type === "IEND") {
      ended = true;
    }
    offset += 12 + length;
  }
  expect(ended, "IEND chunk").toBe(true);
  if (!header) throw new Error("no IHDR chunk");
  expect(header.depth).toBe(8);
  expect(header.interlace).toBe(0);
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[header.colour];
  if (!channels) throw new Error(`unexpected colour type ${header.colour}`);
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = header.width * channels;
  expect(raw.length).toBe((stride + 1) * header.height);
  const pixels = new Uint8Array(stride * header.height);
  for (let y = 0; y < header.height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? pixels[row + i - channels] : 0;
      const b = y > 0 ? pixels[row - stride + i] : 0;
      const c = y > 0 && i >= channels ? pixels[row - stride + i - channels] : 0;
      let predictor: number;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) >> 1;
          break;
        case 4: {
          const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          throw new Error(`unknown filter ${filter} on line ${y}`);
      }
      pixels[row + i] = (line[i] + predictor) & 0xff;
    }
  }
  return { width: header.width, height: header.height, channels, pixels };
}

/** The pixel's grey level, 0 black to 255 white (opaque pictures only). */
function grey(image: Image, x: number, y: number): number {
  const i = (y * image.width + x) * image.channels;
  return image.channels >= 3 ? Math.round((image.pixels[i] + image.pixels[i + 1] + image.pixels[i + 2]) / 3) : image.pixels[i];
}

/** The dark pixels (ink) and their bounding box, in the whole picture or the rectangle [x0, x1) × [y0, y1). */
function ink(image: Image, area = { x0: 0, y0: 0, x1: image.width, y1: image.height }) {
  let count = 0;
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (let y = area.y0; y < area.y1; y++) {
    for (let x = area.x0; x < area.x1; x++) {
      if (grey(image, x, y) >= 128) continue;
      count++;
      box.x0 = Math.min(box.x0, x);
      box.x1 = Math.max(box.x1, x);
      box.y0 = Math.min(box.y0, y);
      box.y1 = Math.max(box.y1, y);
    }
  }
  return { count, box };
}

function image(name: string): Image {
  const outcome = outcomes.get(name);
  if (!outcome || !("png" in outcome)) throw new Error(`${name}: no PNG (${outcome && "error" in outcome ? outcome.error : "not run"})`);
  return decodePng(outcome.png);
}

describe("svgToPng", () => {
  it("draws a small picture at 2× as an opaque PNG", () => {
    const blank = image("blank");
    expect([blank.width, blank.height]).toEqual([800, 400]);
    expect(ink(blank).count, "a picture without text has no ink").toBe(0);
    if (blank.channels === 4) {
      for (let i = 3; i < blank.pixels.length; i += 4) if (blank.pixels[i] !== 255) throw new Error(`alpha ${blank.pixels[i]} at ${i}`);
    }
  });

  it("draws text with the shipped font, where the SVG puts it", () => {
    const text = image("text");
    expect([text.width, text.height]).toEqual([800, 400]);
    const { count, box } = ink(text);
    // 15 characters at 32 px, drawn at 2×: thousands of dark pixels on the baseline at y = 160.
    expect(count).toBeGreaterThan(3000);
    expect(box.x0).toBeGreaterThanOrEqual(40);
    expect(box.x0).toBeLessThan(50);
    expect(box.x1).toBeGreaterThan(400);
    expect(box.x1).toBeLessThan(780);
    expect(box.y0).toBeGreaterThan(100);
    expect(box.y1).toBeLessThanOrEqual(162);
  });

  it("draws font-weight 700 with the bold face", () => {
    const regular = ink(image("text"));
    const bold = ink(image("bold"));
    expect(bold.count / regular.count).toBeGreaterThan(1.25);
    expect(bold.box.x1, "bold glyphs are wider").toBeGreaterThan(regular.box.x1);
  });

  it("scales a wide picture down to 4096 px across, keeping its aspect ratio", () => {
    const wide = image("wide");
    expect([wide.width, wide.height]).toEqual([4096, 1024]);
    for (const y of [0, 512, 1023]) {
      expect(grey(wide, 2040, y), `left half at y=${y}`).toBe(255);
      expect(grey(wide, 2056, y), `right half at y=${y}`).toBe(0);
      expect(grey(wide, 4095, y), `right edge at y=${y}`).toBe(0);
    }
  });

  it("scales a tall picture down to 4096 px high, keeping its aspect ratio", () => {
    const tall = image("tall");
    expect(tall.height).toBe(4096);
    expect(Math.abs(tall.width - 1000 * 4096 / 5000)).toBeLessThanOrEqual(1);
    expect(grey(tall, 400, 2040)).toBe(255);
    expect(grey(tall, 400, 2056)).toBe(0);
    expect(grey(tall, tall.width - 1, 4095)).toBe(0);
  });

  it("draws at most 2048² pixels in all: a 2048 × 1024 picture at √2, not 2×", () => {
    const capped = image("at-the-cap");
    expect(capped.width * capped.height).toBeLessThanOrEqual(2048 * 2048);
    expect(Math.abs(capped.width - 2048 * Math.SQRT2)).toBeLessThanOrEqual(1);
    expect(Math.abs(capped.height - 1024 * Math.SQRT2)).toBeLessThanOrEqual(1);
  });

  it("keeps transparency, with straight (not premultiplied) colours", () => {
    const t = image("translucent");
    expect([t.width, t.height, t.channels]).toEqual([600, 200, 4]);
    const at = (x: number, y: number) => [...t.pixels.subarray((y * t.width + x) * 4, (y * t.width + x) * 4 + 4)];
    expect(at(100, 100), "nothing drawn: transparent").toEqual([0, 0, 0, 0]);
    expect(at(300, 100), "red at 50%").toEqual([255, 0, 0, 128]);
    const [r, g, b, a] = at(500, 100);
    expect(a, "blue at 20%").toBe(51);
    // 8-bit premultiplied storage leaves the colour within a step or two of #3366cc.
    expect(Math.abs(r - 0x33) + Math.abs(g - 0x66) + Math.abs(b - 0xcc)).toBeLessThanOrEqual(6);
  });

  it("refuses an SVG whose size is not the one given", () => {
    const outcome = outcomes.get("wrong-size");
    expect(outcome && "error" in outcome ? outcome.error : "a PNG").toMatch(/the SVG is 400 × 200, not 500 × 200/);
  });
});

describe("a picture with draws (contract section 19)", () => {
  /** Each drawn match's box (top left, in the SVG's units) in `svg`. */
  const drawnBoxes = (svg: string) =>
    svg.split(`<g class="match" `).slice(1).filter((g) => /<text class="draw"[^>]*>Draw<\/text>/.test(g))
      .map((g) => /transform="translate\((\d+),(\d+)\)"/.exec(g)!.slice(1).map(Number));

  it("draws each drawn match's Draw label above its box, right-aligned, at the picture's PNG size", () => {
    const labelled = image("draws-swiss"), bare = image("draws-swiss-unlabelled");
    const size = pngSize(DRAWN.swiss.width, DRAWN.swiss.height);
    expect([labelled.width, labelled.height]).toEqual([size.width, size.height]);
    const scale = size.width / DRAWN.swiss.width;
    const boxes = drawnBoxes(DRAWN.swiss.svg);
    expect(boxes.length).toBeGreaterThanOrEqual(2);
    for (const [x, y] of boxes) {
      // The label's room: the last 40 units of the box's width, in the 14 above it.
      const area = {
        x0: Math.round((x + BOX_W - 40) * scale),
        x1: Math.round((x + BOX_W) * scale),
        y0: Math.round((y - 14) * scale),
        y1: Math.round(y * scale),
      };
      const shown = ink(labelled, area);
      expect(shown.count, `the label at ${x},${y}`).toBeGreaterThan(60);
      expect(shown.box.x1, "right-aligned to the box").toBeGreaterThan(area.x1 - 3 * scale);
      expect(ink(bare, area).count, `nothing else there at ${x},${y}`).toBe(0);
    }
  });

  it("fills a round robin's drawn cells with the head's tint, in the dark theme too", () => {
    const picture = image("draws-round-robin-dark");
    const scale = picture.width / DRAWN.roundRobin.width;
    const cells = [
      ...DRAWN.roundRobin.svg.matchAll(/<rect x="(\d+)" y="(\d+)" width="\d+" height="\d+" fill="([^"]+)"\/><g class="note"><title>Draw</g),
    ];
    expect(cells.length).toBeGreaterThanOrEqual(4);
    const tint = THEMES.dark.surfaceAlt;
    const rgb = [1, 3, 5].map((i) => parseInt(tint.slice(i, i + 2), 16));
    for (const [, x, y, fill] of cells) {
      expect(fill).toBe(tint);
      const i = (Math.round((+x + 3) * scale) + Math.round((+y + 3) * scale) * picture.width) * picture.channels;
      const pixel = [...picture.pixels.subarray(i, i + 3)];
      expect(pixel.every((v, k) => Math.abs(v - rgb[k]) <= 2), `cell at ${x},${y}: ${pixel} is not ${tint}`).toBe(true);
    }
  });
});

describe("a free-for-all stage's picture (contract section 20)", () => {
  it("draws 1,000 teams in 50 lobbies as the route clips them: at scale 1 or more, each shown lobby's winner on the tint, the caption in the warning colour", () => {
    const picture = image("ffa-1000-teams-dark");
    const size = pngSize(FFA.width, FFA.height);
    expect([picture.width, picture.height]).toEqual([size.width, size.height]);
    const scale = picture.width / FFA.width;
    expect(scale, "legible: not drawn smaller than the SVG").toBeGreaterThanOrEqual(1);
    expect(FFA.clipped).toMatch(/^Lobbies 1–\d+ of 50 shown; \?group=\d+ to \?group=50 for the rest; standings 1–\d+ of 1000 shown$/);
    const pixel = (x: number, y: number) => {
      const i = (Math.round(x * scale) + Math.round(y * scale) * picture.width) * picture.channels;
      return [...picture.pixels.subarray(i, i + 3)];
    };
    const near = (got: number[], hex: string) => got.every((v, k) => Math.abs(v - parseInt(hex.slice(1 + 2 * k, 3 + 2 * k), 16)) <= 2);
    const tints = [
      ...FFA.svg.matchAll(new RegExp(`<rect x="(\\d+)" y="(\\d+)" width="\\d+" height="\\d+" fill="${THEMES.dark.winTint}"/>`, "g")),
    ];
    expect(tints.length).toBe((FFA.svg.match(/<g class="lobby" /g) ?? []).length);
    for (const [, x, y] of tints) expect(near(pixel(+x + 3, +y + 3), THEMES.dark.winTint), `tint at ${x},${y}`).toBe(true);
    // The caption's text: some of its pixels in the warning colour (anti-aliased edges aside).
    const caption = /<text class="clipped" x="(\d+)" y="(\d+)"/.exec(FFA.svg)!;
    let warn = 0;
    for (let x = +caption[1]; x < +caption[1] + 300; x++) {
      for (let y = +caption[2] - 9; y <= +caption[2]; y++) if (near(pixel(x, y), THEMES.dark.warn)) warn++;
    }
    expect(warn).toBeGreaterThan(20);
  });
});

describe("the rasteriser's static files", () => {
  it("are copied by npm install next to the docs assets, and never served as docs assets", () => {
    for (const name of ["resvg.wasm", "Inter-Regular.ttf", "Inter-Bold.ttf"]) {
      expect(fs.statSync(path.join(STATIC, name)).size, name).toBeGreaterThan(100_000);
      expect(assetType(name), name).toBeNull();
    }
    expect(assetType("swagger-ui.css")).not.toBeNull();
  });
});
