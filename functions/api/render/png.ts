// The bracket picture as PNG (contract section 15, for chat apps that do not show SVG): the same
// SVG rasterised inside the function by resvg compiled to WebAssembly (its pixels encoded as PNG
// by render/png-encode.ts), drawing text with Inter (400 and 700) shipped as static files, so no
// system font is needed. `npm install` copies the wasm and the fonts into functions/api/static/
// (scripts/copy-docs-assets.mjs); config.toml bundles them as static files on deploy.
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import { encodePng } from "./png-encode.ts";

/** The longest side a PNG may have, in pixels. */
export const PNG_MAX_SIDE = 4096;
/** Small pictures are drawn at this scale, for screens with dense pixels. */
export const PNG_MAX_SCALE = 2;
/**
 * The most pixels a PNG may have (2048², 16 MiB of RGBA). Time and memory grow with pixels:
 * measured on 2 cores, a 4096² picture took 760–810 ms of CPU warm (1.7 s in a new instance)
 * and ~225 MiB, a 2048² one ~370 ms and ~115 MiB; hosted functions get about 2 s of CPU and
 * 256 MB. The route keeps its pictures within this at scale 1 (renderer's maxSide), so text
 * stays legible.
 */
export const PNG_MAX_PIXELS = 2048 * 2048;

const STATIC = ["resvg.wasm", "Inter-Regular.ttf", "Inter-Bold.ttf"] as const;

// Once per instance: the wasm compiled and the font files read. Reset on failure so that a later
// request tries again instead of failing forever.
let ready: Promise<Uint8Array[]> | null = null;

function prepare(readFile: (url: URL) => Promise<Uint8Array>): Promise<Uint8Array[]> {
  ready ??= (async () => {
    const [wasm, ...fonts] = await Promise.all(STATIC.map((name) => readFile(new URL(`../static/${name}`, import.meta.url))));
    await initWasm(wasm);
    return fonts;
  })().catch((err) => {
    ready = null;
    throw err;
  });
  return ready;
}

/** The PNG's size for an SVG of `width` × `height` at scale 1: up to 2×, the longest side at most
 * PNG_MAX_SIDE and at most PNG_MAX_PIXELS in all. */
export function pngSize(width: number, height: number): { width: number; height: number } {
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new RangeError(`invalid SVG size ${width} × ${height}`);
  }
  const scale = Math.min(PNG_MAX_SCALE, PNG_MAX_SIDE / Math.max(width, height), Math.sqrt(PNG_MAX_PIXELS / (width * height)));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * Rasterises the SVG (`width` × `height` at scale 1, as its root element says) to PNG, at up to
 * 2× for small pictures, never more than PNG_MAX_SIDE on a side nor PNG_MAX_PIXELS in all. `readFile` reads the static
 * files (Deno.readFile in the function).
 */
export async function svgToPng(
  svg: string,
  width: number,
  height: number,
  readFile: (url: URL) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const fonts = await prepare(readFile);
  const size = pngSize(width, height);
  // Fit the longest side: resvg keeps the aspect ratio and rounds the other side itself.
  const fitTo = size.width >= size.height ? { mode: "width" as const, value: size.width } : { mode: "height" as const, value: size.height };
  const resvg = new Resvg(svg, {
    fitTo,
    font: {
      fontBuffers: fonts,
      loadSystemFonts: false,
      defaultFontFamily: "Inter",
      sansSerifFamily: "Inter",
    },
  });
  let pixels: Uint8Array, w: number, h: number;
  try {
    if (Math.abs(resvg.width - width) > 0.5 || Math.abs(resvg.height - height) > 0.5) {
      throw new RangeError(`the SVG is ${resvg.width} × ${resvg.height}, not ${width} × ${height}`);
    }
    const image = resvg.render();
    try {
      // Copied out and freed before encoding: the wasm's pixmap is reused by the next picture.
      [pixels, w, h] = [image.pixels, image.width, image.height];
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
  try {
    return await encodePng(pixels, w, h);
  } finally {
    // The ~17 MB given back now rather than at V8's next full collection, before which several
    // pictures' pixels piled up (measured: the instance's RSS after its first PNG 189-209 MB
    // without this, 149-174 MB with it).
    const buffer = pixels.buffer as ArrayBuffer;
    if (typeof buffer.transfer === "function") buffer.transfer(0);
  }
}
