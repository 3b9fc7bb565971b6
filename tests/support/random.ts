// A small seeded generator (mulberry32), so that a failing run replays from its seed; shared by
// the database-backed helpers and the renderer's fixtures (which need no database).
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A property test's seed: the environment variable `name` replays one (a number); unset or
 * "random", a new one each run, so that every run draws new inputs (print it: a failing seed is
 * a defect to fix, never one to pin).
 */
export function runSeed(name: string): number {
  const given = process.env[name];
  return given !== undefined && given !== "random" ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}
