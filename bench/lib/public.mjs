// The public view's figures (issue 24, contract section 15), on the throwaway stack or a running
// one: a 1,024-team double elimination of best-of-three series, two thirds played map by map and
// made public, then
// - the bracket pictures' CPU in the function's runtime (bench/pictures.ts under Deno, the
//   routes' own code): the whole SVG (target < 250 ms) and the largest PNG the route draws
//   (target < 1 s; the first in a new instance, the wasm set up, printed apart);
// - a public read answered 304 (If-None-Match naming the version) against the same read answered
//   whole: server time (pg_stat_statements) and wall time from outside, for the JSON view and the
//   SVG. Each request comes from an address of its own (X-Forwarded-For), so the per-address
//   limit (300 a minute) is not what is measured.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ROOT } from "../../scripts/stack.mjs";
import * as seed from "./seed.mjs";
import { send } from "./client.mjs";
import { timeServer } from "./measure.mjs";

let address = 0;
/** A client address of its own (X-Forwarded-For): the public routes' per-address limit is not what is measured. */
export const nextAddress = () => `198.51.100.${address++ % 250}-${seed.RUN}-${address}`;

/**
 * A public view's pictures drawn under Deno by bench/pictures.ts (the routes' own code), 10 of each:
 * CPU per picture (SVG, the first PNG in the process, warm PNGs), sizes and the PNG's clipping.
 */
export function drawPictures(viewJson, name) {
  const file = path.join(os.tmpdir(), `bench-${name}-view-${seed.RUN}.json`);
  fs.writeFileSync(file, viewJson);
  try {
    return JSON.parse(
      execFileSync(path.join(ROOT, "node_modules", ".bin", "deno"), [
        "run",
        "--quiet",
        "--frozen",
        "--allow-read",
        "--allow-env",
        "--config",
        "functions/api/deno.json",
        "bench/pictures.ts",
        file,
        "10",
      ], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 26 }),
    );
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * The bracket measured here and by bench/lib/pictures.mjs (each its own, `tag` apart: one run
 * makes both): its id, slug and a key of its account.
 */
export async function bracket(db, base, teams, log, tag = "public") {
  const [accountId] = await seed.createAccounts(db, 1, 1, { prefix: `Bench ${seed.RUN} ${tag}` });
  const [{ key }] = await seed.createKeys(db, [accountId], 1, "public");
  const id = await seed.startBracket(db, base, key, accountId, teams.slice(0, 1024), {
    format: "double_elimination",
    options: { best_of: 3 },
    start: false,
    tag,
  });
  const started = await send(base, key, "PATCH", `/tournaments/${id}`, { status: "ongoing", visibility: "public" });
  if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
  log("public: playing two thirds of a best-of-three 1,024-team double elimination map by map…");
  await seed.playSeries(db, id);
  const { rows: [t] } = await db.query("select slug from app.tournaments where id = $1", [id]);
  return { id, slug: t.slug, key };
}

// A whole read is timed as built: the instance keeps the view and the pictures by version (a
// repeat is answered from the version alone, as a 304 is), so before each whole read the
// tournament's version moves on, as the operator (statements the function's role does not make).
async function conditional({ db, view, base, id, slug }) {
  const out = {};
  for (const [name, suffix] of [["view", ""], ["svg", "/bracket.svg"]]) {
    const url = `${base}/public/tournaments/${slug}${suffix}`;
    const wall = [];
    const timed = (tag) =>
      timeServer(db, view, async () => {
        if (!tag) await db.query("update app.tournament_versions set version = version + 1 where tournament_id = $1", [id]);
        const t0 = performance.now();
        const res = await fetch(url, { headers: { "x-forwarded-for": nextAddress(), ...(tag ? { "if-none-match": tag } : {}) } });
        const bytes = (await res.arrayBuffer()).byteLength;
        wall.push(performance.now() - t0);
        if (res.status !== (tag ? 304 : 200)) throw new Error(`${url}: ${res.status}`);
        return bytes;
      }, 10);
    wall.length = 0;
    const full = await timed(null);
    const fullWall = wall.slice(1).reduce((a, b) => a + b, 0) / (wall.length - 1);
    wall.length = 0;
    const head = await fetch(url, { headers: { "x-forwarded-for": nextAddress() } });
    const etag = head.headers.get("etag");
    await head.arrayBuffer();
    const notModified = await timed(etag);
    const nmWall = wall.slice(1).reduce((a, b) => a + b, 0) / (wall.length - 1);
    out[name] = {
      full_ms: full.warm_mean_ms,
      not_modified_ms: notModified.warm_mean_ms,
      ratio: notModified.warm_mean_ms / full.warm_mean_ms,
      full_bytes: full.response_bytes,
      wall_full_ms: fullWall,
      wall_not_modified_ms: nmWall,
      wall_ratio: nmWall / fullWall,
    };
  }
  return out;
}

/** The figures; `teams`: at least 1,024 team ids. */
export async function publicBench({ db, view, base, teams, log }) {
  const { id, slug } = await bracket(db, base, teams, log);
  log("public: the public view against its 304…");
  const reads = await conditional({ db, view, base, id, slug });
  const res = await fetch(`${base}/public/tournaments/${slug}`, { headers: { "x-forwarded-for": nextAddress() } });
  const doc = await res.text();
  if (res.status !== 200) throw new Error(`public view: ${res.status} ${doc.slice(0, 200)}`);
  log("public: drawing the pictures under Deno…");
  const pictures = drawPictures(JSON.stringify(JSON.parse(doc).data), "public");
  const targets = [
    {
      target:
        "SVG of a 1,024-team double elimination (best of 3, with games) < 250 ms of CPU in the function (median of 10; the view parsed, drawn and encoded)",
      value: `${pictures.svg.median_cpu_ms.toFixed(0)} ms (max ${pictures.svg.max_cpu_ms.toFixed(0)}; ${
        (pictures.svg.bytes / 1024).toFixed(0)
      } KiB)`,
      result: pictures.svg.median_cpu_ms < 250 ? "MET" : "NOT MET",
    },
    {
      target: "the largest PNG the route draws < 1 s of CPU in the function (warm; the first in a new instance apart)",
      value:
        `${pictures.png.median_cpu_ms.toFixed(0)} ms (max ${pictures.png.max_cpu_ms.toFixed(0)}; first in the process ${
          pictures.png_first.cpu_ms.toFixed(0)
        } ms; ` +
        `${(pictures.png.bytes / 1024).toFixed(0)} KiB; ${pictures.png.clipped ?? "whole"})`,
      result: pictures.png.max_cpu_ms < 1000 ? "MET" : "NOT MET",
    },
    {
      target: "the first PNG in a new function instance < 1 s of CPU (the wasm compiled and first run)",
      value: `${pictures.png_first.cpu_ms.toFixed(0)} ms of process CPU, every thread`,
      result: pictures.png_first.cpu_ms < 1000 ? "MET" : "NOT MET",
    },
    {
      target:
        "a public read with a matching If-None-Match answers 304 without building the view (server time ratio to a whole read as built)",
      value: `${reads.view.ratio.toFixed(3)} (SVG route: ${reads.svg.ratio.toFixed(3)}; wall ${reads.view.wall_ratio.toFixed(2)} / ${
        reads.svg.wall_ratio.toFixed(2)
      })`,
      result: reads.view.ratio < 0.2 ? "MET" : "NOT MET",
    },
  ];
  return { pictures, reads, targets };
}

export function publicReport(out) {
  const r = out.reads;
  const p = out.pictures;
  return [
    "Public view (issue 24): a best-of-three 1,024-team double elimination, two thirds played",
    `  pictures (CPU in Deno): SVG ${p.svg.median_cpu_ms.toFixed(1)} ms (${(p.svg.bytes / 1024).toFixed(0)} KiB), ` +
    `PNG ${p.png.median_cpu_ms.toFixed(0)} ms warm, ${p.png_first.cpu_ms.toFixed(0)} ms first (${
      (p.png.bytes / 1024).toFixed(0)
    } KiB), RSS ${p.rss_mb} MB`,
    `  GET /public/…/{slug}:     whole ${r.view.full_ms.toFixed(2)} ms server (${(r.view.full_bytes / 1024).toFixed(0)} KiB), 304 ${
      r.view.not_modified_ms.toFixed(3)
    } ms (ratio ${r.view.ratio.toFixed(3)}); wall ${r.view.wall_full_ms.toFixed(1)} vs ${r.view.wall_not_modified_ms.toFixed(1)} ms`,
    `  GET …/bracket.svg:        whole ${r.svg.full_ms.toFixed(2)} ms server, 304 ${r.svg.not_modified_ms.toFixed(3)} ms (ratio ${
      r.svg.ratio.toFixed(3)
    }); wall ${r.svg.wall_full_ms.toFixed(1)} vs ${r.svg.wall_not_modified_ms.toFixed(1)} ms`,
  ].join("\n");
}
