// The operator CLI (scripts/admin.ts, `npm run admin`): spawns the real command on Deno against
// the test database and checks each command's effect there, its output and its exit status.
import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../scripts/stack.mjs";
import { describe, expect, inject, it } from "vitest";
import { ALL_SCOPES, createAccount, expectStatus, request, sql, tenant } from "../support/helpers.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DENO = path.join(root, "node_modules", ".bin", "deno");
// The flags of the `admin` script in package.json.
const FLAGS = [
  "run",
  "--quiet",
  "--no-lock",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--config",
  "functions/api/deno.json",
  "scripts/admin.ts",
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run admin -- ...args` (the same command line) and collects its output. */
function admin(args: string[], databaseUrl = inject("adminDbUrl")): Promise<Run> {
  return adminWith(args, { DATABASE_URL: databaseUrl });
}

/** The same, with DATABASE_URL and DB_PORT exactly as given in `env` (unset unless there). */
function adminWith(args: string[], env: Record<string, string>): Promise<Run> {
  return runCommand(DENO, [...FLAGS, ...args], env);
}

function runCommand(file: string, args: string[], env: Record<string, string>): Promise<Run> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.DB_PORT;
  return new Promise((resolve, reject) => {
    execFile(file, args, {
      // The suite's database holds every test's teams: `teams list` prints them all.
      cwd: root,
      timeout: 20_000,
      maxBuffer: 256 * 1024 * 1024,
      env: { ...base, NO_COLOR: "1", ...env },
    }, (err, stdout, stderr) => {
      const code = err ? (err as { code?: unknown }).code : 0;
      if (typeof code !== "number") return reject(err);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Asserts the exit status, printing the output when it differs. */
function expectExit(run: Run, code: number): void {
  if (run.code !== code) {
    throw new Error(`expected exit ${code}, got ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
  }
}

/** An error: one line on stderr (a usage error adds the synopsis), no stack trace. */
function expectOneLineError(run: Run, pattern: RegExp): void {
  const lines = run.stderr.trim().split("\n");
  expect(lines.length).toBe(run.code === 2 ? 2 : 1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toMatch(/^\s+at |Error:|node_modules/m);
}

const KEY = /tmk_[0-9A-Za-z]{49}/g;
const COMMANDS = [
  "accounts create",
  "accounts enable",
  "accounts disable",
  "accounts list",
  "keys create",
  "keys list",
  "keys revoke",
  "teams create",
  "teams list",
  "members add",
];

describe("operator CLI", () => {
  it("prints the usage with every command and exits 0 when given no command", async () => {
    const run = await admin([]);
    expectExit(run, 0);
    for (const cmd of COMMANDS) {
      expect(run.stdout).toContain(`  ${cmd}`);
    }
    expect(run.stdout).not.toContain("postgres:postgres@");
  });

  it("creates an account with API access off, enables it and lists it", async () => {
    const created = await admin(["accounts", "create", "  Acme Esports  ", "--json"]);
    expectExit(created, 0);
    const { id } = JSON.parse(created.stdout);
    expect(await sql("select name, api_access_enabled from app.accounts where id = $1", [id]))
      .toEqual([{ name: "Acme Esports", api_access_enabled: false }]);

    const enabled = await admin(["accounts", "enable", id]);
    expectExit(enabled, 0);
    expect(enabled.stdout).toContain(id);
    expect(await sql("select api_access_enabled from app.accounts where id = $1", [id])).toEqual([{ api_access_enabled: true }]);

    const list = await admin(["accounts", "list", "--json"]);
    expectExit(list, 0);
    expect(JSON.parse(list.stdout)).toContainEqual(
      expect.objectContaining({ id, name: "Acme Esports", api_access_enabled: true, active_keys: 0 }),
    );
  });

  it("creates an account with access on (--enable) and adds a Supabase Auth user as member", async () => {
    const created = await admin(["accounts", "create", "Members Inc", "--enable", "--json"]);
    expectExit(created, 0);
    const { id } = JSON.parse(created.stdout);
    expect(await sql("select api_access_enabled from app.accounts where id = $1", [id])).toEqual([{ api_access_enabled: true }]);

    const [{ id: user }] = await sql<{ id: string }>("insert into auth.users (id, email) values (gen_random_uuid(), $1) returning id", [
      `op-${randomUUID()}@example.com`,
    ]);
    const added = await admin(["members", "add", id, user]);
    expectExit(added, 0);
    expect(await sql("select user_id from app.account_members where account_id = $1", [id])).toEqual([{ user_id: user }]);

    const stranger = randomUUID();
    const refused = await admin(["members", "add", id, stranger]);
    expectExit(refused, 1);
    expectOneLineError(refused, new RegExp(`no Supabase Auth user ${stranger}`));
    expect(await sql("select count(*)::int as n from app.account_members where account_id = $1", [id])).toEqual([{ n: 1 }]);
  });

  it("creates a key that works against the API, lists it without secrets, and revokes it (401 next)", async () => {
    const account = await createAccount(true);
    const created = await admin([
      "keys",
      "create",
      account,
      "--name",
      "bracket bot",
      "--scopes",
      "write:results,read:tournaments",
      "--expires-in",
      "30d",
    ]);
    expectExit(created, 0);
    const keys = created.stdout.match(KEY) ?? [];
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(created.stderr).toMatch(/only time it is shown.*not stored/);
    const [row] = await sql(
      "select id, name, prefix, scopes::text[] as scopes, expires_at, encode(key_hash, 'hex') as hash from app.api_keys where account_id = $1",
      [account],
    );
    expect(row).toMatchObject({ name: "bracket bot", prefix: key.slice(0, 12), scopes: ["read:tournaments", "write:results"] });
    expect(row.hash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(Math.abs(row.expires_at.getTime() - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
    expect(created.stdout).toContain(row.id);

    expectStatus(await request("GET", "/tournaments", { key }), 200);

    const secrets = [key, row.hash, Buffer.from(row.hash, "hex").toString("base64"), "key_hash"];
    const list = await admin(["keys", "list", "--account", account]);
    expectExit(list, 0);
    const [{ last_used_at }] = await sql("select last_used_at from app.api_keys where id = $1", [row.id]);
    const line = list.stdout.split("\n").find((l) => l.startsWith(row.id)) ?? "";
    for (
      const cell of [
        account,
        "bracket bot",
        row.prefix,
        "read:tournaments,write:results",
        row.expires_at.toISOString().slice(0, 19),
        last_used_at.toISOString().slice(0, 19),
      ]
    ) {
      expect(line).toContain(cell);
    }
    // (Scoped to the account: another test file may be naming its keys with SQL fragments such as "key_hash".)
    const listJson = await admin(["keys", "list", "--account", account, "--json"]);
    expectExit(listJson, 0);
    expect(JSON.parse(listJson.stdout)).toContainEqual({
      id: row.id,
      account_id: account,
      name: "bracket bot",
      prefix: row.prefix,
      scopes: row.scopes,
      expires_at: row.expires_at.toISOString(),
      revoked_at: null,
      last_used_at: last_used_at.toISOString(),
      created_at: expect.any(String),
    });
    for (const secret of secrets) {
      expect(list.stdout + list.stderr).not.toContain(secret);
      expect(listJson.stdout + listJson.stderr).not.toContain(secret);
    }

    const revoked = await admin(["keys", "revoke", row.id]);
    expectExit(revoked, 0);
    const [{ revoked_at }] = await sql("select revoked_at from app.api_keys where id = $1", [row.id]);
    expect(revoked_at).toBeInstanceOf(Date);
    const res = await request("GET", "/tournaments", { key });
    expectStatus(res, 401);
  });

  it("creates a key with every scope (all) and an exact expiry in another time zone", async () => {
    const account = await createAccount(true);
    const run = await admin([
      "keys",
      "create",
      account,
      "--name",
      "reporting",
      "--scopes",
      "all",
      "--expires",
      "2031-06-01T12:00:00+02:00",
      "--json",
    ]);
    expectExit(run, 0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ account_id: account, scopes: [...ALL_SCOPES].sort(), expires_at: "2031-06-01T10:00:00.000Z" });
    expect(out.key).toMatch(/^tmk_[0-9A-Za-z]{49}$/);
    const rows = await sql("select id, scopes::text[] as scopes, expires_at from app.api_keys where account_id = $1", [account]);
    expect(rows).toEqual([{ id: out.id, scopes: [...ALL_SCOPES].sort(), expires_at: new Date("2031-06-01T10:00:00Z") }]);
  });

  it("disables an account: its keys then get 403 api_access_disabled", async () => {
    const t = await tenant();
    expectStatus(await t.request("GET", "/tournaments"), 200);
    const run = await admin(["accounts", "disable", t.accountId]);
    expectExit(run, 0);
    expect(await sql("select api_access_enabled from app.accounts where id = $1", [t.accountId])).toEqual([{ api_access_enabled: false }]);
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 403);
    expect(res.body.error.code).toBe("api_access_disabled");
  });

  it("refuses an unknown scope with a usage error naming it, and writes nothing", async () => {
    const account = await createAccount(true);
    const run = await admin(["keys", "create", account, "--name", "x", "--scopes", "read:tournaments,read:everything"]);
    expectExit(run, 2);
    expectOneLineError(run, /unknown scope "read:everything"/);
    expect(run.stderr).not.toContain('"read:tournaments"');
    expect(run.stdout).toBe("");
    expect(await sql("select count(*)::int as n from app.api_keys where account_id = $1", [account])).toEqual([{ n: 0 }]);
  });

  it("refuses an expiry in the past or an impossible date before any SQL", async () => {
    const account = await createAccount(true);
    const past = await admin(["keys", "create", account, "--name", "x", "--scopes", "all", "--expires", "2020-01-01"]);
    expectExit(past, 2);
    expectOneLineError(past, /not in the future/);
    const impossible = await admin(["keys", "create", account, "--name", "x", "--scopes", "all", "--expires", "2031-02-30T10:00:00Z"]);
    expectExit(impossible, 2);
    expectOneLineError(impossible, /--expires must be an ISO 8601 date-time.*"2031-02-30T10:00:00Z"/);
    expect(await sql("select count(*)::int as n from app.api_keys where account_id = $1", [account])).toEqual([{ n: 0 }]);
  });

  it("answers exit 1 with one clear line for an unknown account", async () => {
    const missing = randomUUID();
    const key = await admin(["keys", "create", missing, "--name", "x", "--scopes", "all"]);
    expectExit(key, 1);
    expectOneLineError(key, new RegExp(`^error: account ${missing} not found$`));
    expect(key.stdout).not.toMatch(KEY);
    const enable = await admin(["accounts", "enable", missing]);
    expectExit(enable, 1);
    expectOneLineError(enable, new RegExp(`^error: account ${missing} not found$`));
  });

  it("answers a malformed UUID or an unknown command with a usage error (exit 2)", async () => {
    const bad = await admin(["accounts", "disable", "not-a-uuid"]);
    expectExit(bad, 2);
    expectOneLineError(bad, /<account-id> must be a UUID.*"not-a-uuid"/);
    expect(bad.stderr).toContain("Usage: npm run admin -- accounts disable <account-id>");
    const unknown = await admin(["tournaments", "list"]);
    expectExit(unknown, 2);
    expectOneLineError(unknown, /unknown command "tournaments"/);
  });

  it("creates teams, lists them, and explains a rejected logo URL", async () => {
    const name = `Aurora ${randomUUID().slice(0, 8)}`;
    const created = await admin(["teams", "create", name, "AUR", "--logo", "https://example.com/aur.png", "--json"]);
    expectExit(created, 0);
    const { id } = JSON.parse(created.stdout);
    expect(await sql("select name, tag, logo_url from app.teams where id = $1", [id]))
      .toEqual([{ name, tag: "AUR", logo_url: "https://example.com/aur.png" }]);

    const list = await admin(["teams", "list"]);
    expectExit(list, 0);
    expect(list.stdout.split("\n")).toContainEqual(
      expect.stringMatching(new RegExp(`^${id}\\s+AUR\\s+${name}\\s+platform\\s+https://example.com/aur.png$`)),
    );
    // A team an account made through the API is listed with its owner.
    const t = await tenant(["write:teams"]);
    const own = await t.request("POST", "/teams", { body: { name: `Owl ${randomUUID().slice(0, 8)}`, tag: "OWL" } });
    const again = await admin(["teams", "list"]);
    expect(again.stdout.split("\n")).toContainEqual(
      expect.stringMatching(new RegExp(`^${own.body.data.id}\\s+OWL\\s+.+\\s+${t.accountId}\\s+-$`)),
    );

    const other = `Nova ${randomUUID().slice(0, 8)}`;
    const refused = await admin(["teams", "create", other, "NOV", "--logo", "ftp://example.com/nova.png"]);
    expectExit(refused, 1);
    expectOneLineError(refused, /--logo must be an http:\/\/ or https:\/\/ URL/);
    expect(await sql("select count(*)::int as n from app.teams where name = $1", [other])).toEqual([{ n: 0 }]);
  });

  it("reports an unreachable database in one line without the password", async () => {
    const run = await admin(["accounts", "list"], "postgres://postgres:pw-Secret-123@127.0.0.1:1/postgres");
    expectExit(run, 1);
    expectOneLineError(run, /cannot use the database at 127\.0\.0\.1:1\/postgres/);
    expect(run.stdout + run.stderr).not.toContain("pw-Secret-123");
  });

  it("uses the local stack on DB_PORT when DATABASE_URL is unset or empty, as npm start does", async () => {
    const port = new URL(inject("adminDbUrl")).port;
    const created = await adminWith(["accounts", "create", "Port Esports", "--json"], { DB_PORT: port });
    expectExit(created, 0);
    const { id } = JSON.parse(created.stdout);
    expect(await sql("select name from app.accounts where id = $1", [id])).toEqual([{ name: "Port Esports" }]);
    const list = await adminWith(["accounts", "list", "--json"], { DATABASE_URL: "", DB_PORT: port });
    expectExit(list, 0);
    expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ id, name: "Port Esports" }));
  });

  it("prefers DATABASE_URL over DB_PORT", async () => {
    const run = await adminWith(["accounts", "list", "--json"], { DATABASE_URL: inject("adminDbUrl"), DB_PORT: "1" });
    expectExit(run, 0);
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
  });

  it("names the local stack and DB_PORT when nothing answers there, and refuses a DB_PORT that is not a port", async () => {
    const port = String(await freePort());
    const down = await adminWith(["accounts", "list"], { DB_PORT: port });
    expectExit(down, 1);
    expectOneLineError(
      down,
      new RegExp(
        `cannot use the database at 127\\.0\\.0\\.1:${port}/postgres \\(the local stack on DB_PORT=${port}: is npm start running\\? Or set DATABASE_URL\\)`,
      ),
    );
    for (const bad of ["54322x", "0", "70000"]) {
      const refused = await adminWith(["accounts", "list"], { DB_PORT: bad });
      expectExit(refused, 2);
      expect(refused.stderr).toBe(`error: DB_PORT must be a port number from 1 to 65535, got ${JSON.stringify(bad)}\n`);
      expect(refused.stdout).toBe("");
    }
  });

  it("prints usage and exits 0 for --help, -h and help on the CLI, every group and every command, without a database", async () => {
    // Help needs no database: DATABASE_URL points at nothing, and arguments around --help are not checked.
    const offline = { DATABASE_URL: "postgres://postgres:postgres@127.0.0.1:1/postgres" };
    const groups = [...new Set(COMMANDS.map((c) => c.split(" ")[0]))];
    const cases: [string[], string][] = [
      [[], ""],
      [["--help"], ""],
      [["-h"], ""],
      [["help"], ""],
      ...groups.flatMap((g): [string[], string][] => [[[g], g], [[g, "--help"], g], [[g, "-h"], g], [["help", g], g]]),
      ...COMMANDS.flatMap((c): [string[], string][] => [
        [[...c.split(" "), "--help"], c],
        [[...c.split(" "), "-h"], c],
        [["help", ...c.split(" ")], c],
        [[...c.split(" "), "not-a-uuid", "--no-such-option", "--help", "--json"], c],
      ]),
    ];
    const runs = await Promise.all(cases.map(([args]) => adminWith(args, offline)));
    runs.forEach((run, i) => {
      const [args, what] = cases[i];
      const label = `admin ${args.join(" ")}`;
      expect(run.code, label).toBe(0);
      expect(run.stderr, label).toBe("");
      expect(run.stdout, label).toMatch(new RegExp(`^Usage: npm run admin -- ${what ? `${what}(\\s|$)` : "<command>"}`));
      expect(run.stdout, label).toContain("DATABASE_URL");
      expect(run.stdout, label).toContain("DB_PORT");
      // A group lists its commands; a command lists its options and --json.
      if (COMMANDS.includes(what)) {
        expect(run.stdout, label).toMatch(/^ {2}--json +machine-readable output/m);
      } else {
        for (const c of COMMANDS.filter((c) => !what || c.startsWith(what + " "))) expect(run.stdout, label).toContain(`  ${c}`);
      }
    });
    const keysCreate = runs[cases.findIndex(([a]) => a.join(" ") === "keys create --help")].stdout;
    for (const option of ["--name <name>", "--scopes <scope,...|all>", "--expires <date-time>", "--expires-in <N>d"]) {
      expect(keysCreate).toContain(`  ${option}`);
    }
  });

  it("prints nothing but JSON on stdout with --json, through `npm run -s admin` too (for jq)", async () => {
    const t = await tenant();
    const steps: string[][] = [
      ["accounts", "create", "Json Esports"],
      ["accounts", "list"],
      ["accounts", "disable", t.accountId],
      ["accounts", "enable", t.accountId],
      ["keys", "create", t.accountId, "--name", "json", "--scopes", "all"],
      ["keys", "list", "--account", t.accountId],
      ["teams", "create", `Json ${randomUUID().slice(0, 8)}`, "JSN"],
      ["teams", "list"],
    ];
    for (const args of steps) {
      const run = await admin([...args, "--json"]);
      expectExit(run, 0);
      expect(() => JSON.parse(run.stdout), args.join(" ")).not.toThrow();
    }
    const keys = JSON.parse((await admin(["keys", "list", "--account", t.accountId, "--json"])).stdout);
    const revoked = await admin(["keys", "revoke", keys[0].id, "--json"]);
    expectExit(revoked, 0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: keys[0].id, revoked_at: expect.any(String) });

    // The README's pipeline: npm's banner ("> tournament-api@… admin") goes to stdout unless -s.
    const env = { DATABASE_URL: inject("adminDbUrl") };
    const silent = await runCommand("npm", ["run", "-s", "admin", "--", "accounts", "list", "--json"], env);
    expectExit(silent, 0);
    expect(JSON.parse(silent.stdout)).toContainEqual(expect.objectContaining({ id: t.accountId }));
    const loud = await runCommand("npm", ["run", "admin", "--", "accounts", "list", "--json"], env);
    expectExit(loud, 0);
    expect(loud.stdout).toMatch(/^\s*> tournament-api@[^ ]+ admin/);
  });
});
