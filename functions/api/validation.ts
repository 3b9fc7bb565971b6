import { z } from "zod";
import { ApiError, type ErrorDetail } from "./errors.ts";
import { PAGE_SIZE } from "./contract.ts";

/** Text Postgres can store: no NUL characters and no lone UTF-16 surrogates. */
export function text(max: number) {
  return z.string()
    .refine((s) => !s.includes("\u0000") && s.isWellFormed(), { message: "must be valid text without NUL characters" })
    .refine((s) => chars(s) <= max, { message: `must be at most ${max} characters` })
    .meta({ maxLength: max });
}

/** Text of 1..max characters once trimmed (names, tags); the trimmed value is what is stored. */
export function trimmedText(max: number) {
  return z.string().trim().pipe(text(max)).refine((s) => s.length > 0, { message: "must not be empty" })
    .meta({ description: `1–${max} characters after trimming.`, minLength: 1, maxLength: max });
}

/** Length in Unicode characters (code points), as Postgres counts it; not UTF-16 units. */
export function chars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A UUID in its canonical 8-4-4-4-12 hex form (any version). */
export const uuid = () => z.guid();

export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// The instants the API can store and give back as YYYY-MM-DDTHH:MM:SS.sssZ: a later one (say
// 9999-12-31T23:59:59-14:00) would come back as "10000-01-01T…Z", which is not ISO 8601.
const FIRST_INSTANT = Date.parse("0001-01-01T00:00:00Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

/** An ISO 8601 date-time with a `Z` or numeric offset, and a real calendar date. */
export const dateTime = () =>
  z.iso.datetime({ offset: true }).refine((s) => {
    const [y, m, d] = s.slice(0, 10).split("-").map(Number);
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    return y >= 1 && d <= (m === 2 && !leap ? 28 : DAYS[m - 1]);
  }, { message: "must be a real calendar date" })
    // Postgres refuses offsets beyond ±15:59 (the largest in use is +14:00).
    .refine((s) => Number(/[+-](\d{2}):\d{2}$/.exec(s)?.[1] ?? 0) <= 15, {
      message: "must have a UTC offset between -15:59 and +15:59",
    })
    .refine((s) => {
      const t = Date.parse(s);
      return Number.isNaN(t) || (t >= FIRST_INSTANT && t < LAST_INSTANT);
    }, { message: "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z" });

/** A non-negative amount with at most two decimals, up to `max`. */
export function money(max: number) {
  // (documented as multipleOf 0.01) Exact: the number must be the double nearest to its own 2-decimal rounding (a tolerance
  // would let 10.000000001 through, to be stored as 10.00).
  return z.number().min(0).max(max).refine((v) => Number(v.toFixed(2)) === v, {
    message: "must have at most 2 decimals",
  }).meta({ multipleOf: 0.01 });
}

/** A whole number given as a query string, within bounds. */
export function queryInt(min: number, max: number) {
  const schema = z.string().regex(/^\d{1,9}$/, "must be a whole number").transform(Number)
    .pipe(z.number().int().min(min).max(max));
  documentedAs.set(schema, { type: "integer", minimum: min, maximum: max });
  return schema;
}

/** `page` and `limit` of a list paged by page number (contract 3). */
export const pageQuery = () => ({ page: queryInt(1, PAGE_SIZE.maxPage).optional(), limit: queryInt(1, PAGE_SIZE.max).optional() });

/** A version in a query string (`?since=`): a non-negative integer. */
export function queryVersion() {
  const schema = z.string().regex(/^\d{1,15}$/, "must be a non-negative integer (a version)").transform(Number);
  documentedAs.set(schema, { type: "integer", minimum: 0 });
  return schema;
}

/** JSON Schema to document a schema by, where zod's own would mislead (query strings parsed as numbers). */
export const documentedAs = new WeakMap<z.ZodType, Record<string, unknown>>();

/** A field's name as the API spells it: `stages[1].format_options.groups`. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.map((p, i) => typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`).join("");
}

/** Field-level details for a zod error: one entry per field (unknown fields each named). */
export function details(error: z.ZodError): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const base = fieldName(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ field: base ? `${base}.${key}` : key, message: "is not a known field" });
    } else {
      out.push({ field: base || "body", message: issue.message });
    }
  }
  return out;
}

/** Parses input with a schema, or an ApiError validation_error naming each field. */
export function parse<T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ApiError("validation_error", `The ${what} is invalid.`, details(result.error));
}

/** A series length (contract section 13): an odd integer from 1 to 9. */
export function bestOf() {
  return z.int().min(1).max(9).refine((n) => n % 2 === 1, { message: "must be an odd integer from 1 to 9" });
}

/** A series length that may be even where draws are allowed (contract section 19): 1 to 9; the caller checks the parity. */
export function seriesLength() {
  return z.int().min(1).max(9);
}
