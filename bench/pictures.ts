// The bracket pictures' CPU in the function's runtime (issue 24): `deno run … bench/pictures.ts
// <view.json> <runs>` draws the public view as the routes do (functions/api/pictures.ts: the SVG
// whole, and the PNG with its side and pixel caps) and prints JSON: CPU milliseconds of this
// process (user + system, all threads) per picture, the first PNG in the process (the wasm set up
// and the fonts read, as in a new function instance) apart from the warm ones, and the sizes.
import process from "node:process";
import { pictureResponse } from "../functions/api/pictures.ts";
import { keptRead } from "../functions/api/kept.ts";

let version = 0;

const [file, runsArg] = Deno.args;
const view = await Deno.readTextFile(file);
const runs = Number(runsArg ?? 10);
const readFile = (url: URL) => Deno.readFile(url);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function timed(kind: "svg" | "png", n: number) {
  const out: number[] = [];
  let bytes = 0;
  let clipped: string | null = null;
  for (let i = 0; i < n; i++) {
    const headers = new Headers();
    const t0 = cpuMs();
    // A new version each time: drawn, never sent again from the instance's cache.
    const res = await pictureResponse(
      kind,
      keptRead(`bench|${kind}`, null),
      ++version,
      view,
      {},
      new Request("http://bench/"),
      headers,
      readFile,
    );
    bytes = (await res.arrayBuffer()).byteLength;
    out.push(cpuMs() - t0);
    clipped = headers.get("x-bracket-clipped");
  }
  return { cpu_ms: out, bytes, clipped: clipped && decodeURIComponent(clipped) };
}

const firstPng = await timed("png", 1);
const svg = await timed("svg", runs);
const png = await timed("png", runs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(JSON.stringify({
  svg: { median_cpu_ms: median(svg.cpu_ms), max_cpu_ms: Math.max(...svg.cpu_ms), bytes: svg.bytes },
  png_first: { cpu_ms: firstPng.cpu_ms[0], bytes: firstPng.bytes },
  png: { median_cpu_ms: median(png.cpu_ms), max_cpu_ms: Math.max(...png.cpu_ms), bytes: png.bytes, clipped: png.clipped },
  rss_mb: Math.round(Deno.memoryUsage().rss / 1048576),
}));
