// The bench's verdicts and its printed table.

/** The issue's targets, each with the figure it was judged on and PASS or FAIL. */
export const RATIO_TARGETS = { get: 0.6, list: 0.5, create: 0.4 };
const MAX_ROUND_TRIPS = 2;
const MAX_RESULTS_MS = 20;
const MAX_RSS_MB = 150;
const MAX_SCALE_SLOWDOWN = 1.5;

const verdict = (ok) => (ok ? "PASS" : "FAIL");

/** Judges the run: `rows` are the workloads, `scale` the scale mode's pairs of rows ({label, small, large}). */
export function judge({ rows, results1024, idleRss, scale }) {
  const targets = [];
  const add = (name, value, ok) => targets.push({ target: name, value, result: verdict(ok) });
  for (const row of rows.filter((r) => r.workload in RATIO_TARGETS)) {
    const min = RATIO_TARGETS[row.workload];
    const ratio = row.ratio_to_floor;
    add(`${row.label} [${row.size}] ≥ ${min}× the floor's req/s`,
      `${ratio.toFixed(2)}× (${row.rps.toFixed(0)} / ${row.floor_rps.toFixed(0)})`, ratio >= min);
  }
  const api = rows.filter((r) => r.workload !== "floor");
  const worst = Math.max(...api.map((r) => r.round_trips_per_request ?? Infinity));
  add(`≤ ${MAX_ROUND_TRIPS} database round trips per request, every workload`, `max ${worst.toFixed(2)}`,
    worst <= MAX_ROUND_TRIPS);
  // Latency under saturation follows the machine's speed, which drifts; so the ratio is also
  // given scaled by the floors measured around each (the verdict uses that one).
  for (const { label, small, large } of scale ?? []) {
    const [a, b] = [small.latency_ms, large.latency_ms];
    const raw = b.p50 / a.p50;
    const scaled = raw * (large.floor_rps / small.floor_rps);
    add(`${label}: p50 at ${large.size} ≤ ${MAX_SCALE_SLOWDOWN}× p50 at ${small.size}`,
      `${a.p50} → ${b.p50} ms (${raw.toFixed(2)}×, ${scaled.toFixed(2)}× scaled by the floor ` +
      `${small.floor_rps.toFixed(0)} → ${large.floor_rps.toFixed(0)} req/s; p99 ${a.p99} → ${b.p99} ms; ` +
      `server ${fixed(small.db_ms_per_request, 2)} → ${fixed(large.db_ms_per_request, 2)} ms)`, scaled <= MAX_SCALE_SLOWDOWN);
  }
  if (results1024) {
    const e = results1024.explain_ms;
    const kib = (results1024.response_bytes / 1024).toFixed(0);
    add(`results of a 1024-team bracket < ${MAX_RESULTS_MS} ms on the server (EXPLAIN ANALYZE, warm median)`,
      `${e.median.toFixed(1)} ms (cold ${e.cold.toFixed(1)}, max ${e.max.toFixed(1)}; ${kib} KiB of JSON)`,
      e.median < MAX_RESULTS_MS);
  }
  const rss = Math.max(...api.map((r) => r.fn_rss_peak_mb ?? NaN));
  const floorRss = Math.max(...rows.filter((r) => r.workload === "floor").map((r) => r.fn_rss_peak_mb));
  if (Number.isFinite(rss)) {
    add(`function RSS < ${MAX_RSS_MB} MB under load (peak VmRSS)`, `${rss.toFixed(0)} MB (idle at start ` +
      `${fixed(idleRss?.function_mb)} MB; the floor server: idle ${fixed(idleRss?.floor_mb)}, peak ${fixed(floorRss)} MB)`,
    rss < MAX_RSS_MB);
  }
  return targets;
}

const fixed = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? "–" : x.toFixed(d));

/**
 * One line per workload, as a Markdown table. "floor req/s" is the higher of the floors measured
 * just before and just after the workload, which its "× floor" compares with.
 */
export function table(rows) {
  const head = ["workload", "data", "req/s", "p50 ms", "p99 ms", "errors", "floor req/s", "× floor", "target",
    "round trips/req", "≤ 2", "db ms/req", "WAL B/req", "CPU % fn/pg/load/other", "RSS MB"];
  const lines = rows.map((r) => {
    const min = RATIO_TARGETS[r.workload];
    const pct = (s) => fixed(s === null ? null : Math.max(0, (100 * s) / r.duration_s));
    return [
      r.label, r.size, fixed(r.rps), fixed(r.latency_ms.p50, 1), fixed(r.latency_ms.p99, 1),
      r.workload === "hammer" ? `${r.errors} (+${r.rate_limited} 429)` : String(r.errors),
      fixed(r.floor_rps), fixed(r.ratio_to_floor, 2),
      min ? `≥ ${min} ${verdict(r.ratio_to_floor >= min)}` : "",
      fixed(r.round_trips_per_request, 2),
      r.workload === "floor" ? "" : verdict(r.round_trips_per_request <= MAX_ROUND_TRIPS),
      fixed(r.db_ms_per_request, 2), fixed(r.wal_bytes_per_request),
      [r.fn_cpu_s, r.pg_cpu_s, r.load_cpu_s, r.other_cpu_s].map(pct).join("/"), fixed(r.fn_rss_peak_mb),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  return [fmt(head), `|${widths.map((w, i) => (i < 2 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`,
    ...lines.map(fmt)].join("\n");
}

/** The targets as a list. */
export function targetList(targets) {
  return targets.map((t) => `  ${t.result}  ${t.target}: ${t.value}`).join("\n");
}
