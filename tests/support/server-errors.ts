// Why a test run saw a 5xx, from the logs the global setup keeps: the function's request lines
// with a status of 500 or more (each names its error, and for a 503 the driver's SQLSTATE) and
// Postgres's reports of those SQLSTATEs (a deadlock's report names both processes' statements),
// with Postgres's lock waits. Bounded; secrets (API keys, URL passwords) taken out. Empty when
// the run saw no 5xx.
import fs from "node:fs";

const MAX_LINES = 50;

/** API keys and connection URLs' passwords, as they would appear in a line. */
export function scrub(line: string): string {
  return line.replace(/tmk_[0-9A-Za-z]+/g, "tmk_…").replace(/(\/\/[^:/@\s]+:)[^@\s]+@/g, "$1…@");
}

function read(file: string): string[] {
  try {
    return fs.readFileSync(file, "utf8").split("\n");
  } catch {
    return [];
  }
}

/** The report (text ending in a newline), or "" when the function answered no 5xx. */
export function serverErrorReport(functionLog: string, postgresLog: string): string {
  const failures: { line: string; code: string | null }[] = [];
  for (const line of read(functionLog)) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as { status?: number; db_code?: string | null; error?: string };
      if ((entry.status ?? 0) < 500) continue;
      const code = entry.db_code ?? /^operation failed: ([0-9A-Z]{5})\b/.exec(entry.error ?? "")?.[1] ?? null;
      failures.push({ line, code });
    } catch {
      // not a log line
    }
  }
  if (failures.length === 0) return "";
  const codes = new Set(failures.map((f) => f.code).filter((c): c is string => c !== null));
  // Postgres's lines: "<time> [pid] <SQLSTATE> <user> LEVEL:  message", then DETAIL/STATEMENT lines
  // and tab-indented continuations under the same prefix.
  // The errors of those SQLSTATEs first (with their DETAIL and STATEMENT), then lock waits.
  const errors: string[] = [];
  const waits: string[] = [];
  let keep: string[] | null = null;
  for (const line of read(postgresLog)) {
    const m = /^\S+ \S+ \S+ \[\d+\] (\S+) \S* ?(ERROR|LOG|DETAIL|HINT|CONTEXT|STATEMENT):/.exec(line);
    if (m) {
      if (m[2] === "ERROR") keep = codes.has(m[1]) ? errors : null;
      else if (m[2] === "LOG") keep = /still waiting for|acquired .* after|deadlock/.test(line) ? waits : null;
    } else if (!line.startsWith("\t")) {
      keep = null;
    }
    keep?.push(line);
  }
  const reports = [...errors, ...waits];
  const out = [`${failures.length} request(s) answered 5xx in this run; the function's lines:`];
  out.push(...failures.slice(0, 20).map((f) => `  ${f.line}`));
  if (failures.length > 20) out.push(`  … ${failures.length - 20} more`);
  if (reports.length) {
    out.push(`Postgres about ${[...codes].join(", ") || "them"} (and lock waits):`);
    out.push(...reports.slice(0, MAX_LINES - out.length).map((l) => `  ${l}`));
  }
  out.push(`Full logs: ${functionLog}, ${postgresLog}`);
  return out.map(scrub).join("\n") + "\n";
}
