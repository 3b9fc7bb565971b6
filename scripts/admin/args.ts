// Argument checks for the operator CLI (scripts/admin.ts). Pure: no database, no I/O. Whatever
// fails here is a usage error (exit 2) and nothing reaches SQL.
import { SCOPES } from "../../functions/api/contract.ts";

/** The scopes a key can carry (defined once, in functions/api/contract.ts). */
export { SCOPES };

/** Bad input, found before any SQL runs. */
export class UsageError extends Error {}

export type OptionType = "string" | "boolean";
export type Values = Record<string, string | boolean | undefined>;

/** A command's arguments after parsing: positionals, options, and the two global flags. */
export interface Parsed {
  args: string[];
  opts: Values;
  json: boolean;
  help: boolean;
}

/** Parses one command's arguments (those after `<group> <action>`) strictly; `--` ends the options. */
export function parse(argv: string[], names: readonly string[], options: Record<string, OptionType>): Parsed {
  const types: Record<string, OptionType> = { ...options, json: "boolean", help: "boolean" };
  const opts: Values = {};
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === "--") {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      args.push(token);
      continue;
    }
    const [flag, inline] = token === "-h" ? ["--help", undefined] : splitOption(token);
    const name = flag.slice(2);
    const type = flag.startsWith("--") ? types[name] : undefined;
    if (!type) throw new UsageError(`unknown option ${flag}`);
    if (name in opts) throw new UsageError(`${flag} given more than once`);
    if (type === "boolean") {
      if (inline !== undefined) throw new UsageError(`${flag} does not take a value`);
      opts[name] = true;
    } else if (inline !== undefined) {
      opts[name] = inline;
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`${flag} needs a value`);
      opts[name] = value;
      i++;
    }
  }
  const help = opts.help === true;
  if (!help && args.length < names.length) throw new UsageError(`missing ${names[args.length]}`);
  if (args.length > names.length) throw new UsageError(`unexpected argument ${JSON.stringify(args[names.length])}`);
  return { args, opts, json: opts.json === true, help };
}

function splitOption(token: string): [string, string | undefined] {
  const eq = token.indexOf("=");
  return eq === -1 ? [token, undefined] : [token.slice(0, eq), token.slice(eq + 1)];
}

/** A required string option. */
export function required(opts: Values, name: string): string {
  const value = opts[name];
  if (typeof value !== "string") throw new UsageError(`--${name} is required`);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical form; `label` names the argument in the message. */
export function uuid(label: string, value: string): string {
  if (!UUID.test(value)) {
    throw new UsageError(`${label} must be a UUID like 3f2b8c1e-0d4a-4c6b-9e7f-1a2b3c4d5e6f, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

/** A comma-separated scope list, or `all`; every name must be one of SCOPES. */
export function scopes(value: string): string[] {
  const names = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (names.length === 0) throw new UsageError("--scopes needs at least one scope (or all)");
  const unknown = names.filter((s) => s !== "all" && !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    const list = unknown.map((s) => JSON.stringify(s)).join(", ");
    throw new UsageError(`unknown scope${unknown.length > 1 ? "s" : ""} ${list}; known scopes: ${SCOPES.join(", ")} (or all)`);
  }
  return names.includes("all") ? [...SCOPES] : [...new Set(names)];
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const DAY_MS = 86_400_000;

/** The expiry from --expires (ISO 8601; a bare date is midnight UTC) or --expires-in <N>d, or null. */
export function expiry(at: string | undefined, inDays: string | undefined, now = Date.now()): Date | null {
  if (at !== undefined && inDays !== undefined) throw new UsageError("give --expires or --expires-in, not both");
  let date: Date;
  if (inDays !== undefined) {
    const m = /^(\d{1,5})d$/.exec(inDays);
    if (!m || Number(m[1]) < 1) {
      throw new UsageError(`--expires-in must be a number of days such as 90d, got ${JSON.stringify(inDays)}`);
    }
    date = new Date(now + Number(m[1]) * DAY_MS);
  } else if (at !== undefined) {
    const m = DATE_TIME.exec(at);
    const invalid = `--expires must be an ISO 8601 date-time such as 2027-01-31T18:00:00Z, got ${JSON.stringify(at)}`;
    if (!m) throw new UsageError(invalid);
    if (m[4] !== undefined && m[7] === undefined) {
      throw new UsageError(`--expires needs a time zone (Z or an offset such as +02:00), got ${JSON.stringify(at)}`);
    }
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    date = new Date(m[4] === undefined ? `${at}T00:00:00Z` : at);
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth || Number.isNaN(date.getTime())) {
      throw new UsageError(invalid);
    }
  } else {
    return null;
  }
  if (date.getTime() <= now) throw new UsageError(`the expiry ${date.toISOString()} is not in the future`);
  return date;
}
