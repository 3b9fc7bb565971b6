// Operator CLI: `npm run admin -- <command>`. A thin layer over the admin.* SQL functions
// (supabase/migrations) against DATABASE_URL: it checks the arguments, calls one function and
// prints the outcome. The rules stay in SQL; lists read the app.* tables directly.
// Exit codes: 0 done, 1 the database refused or could not be reached, 2 usage error.
import pg from "pg";
import {
  expiry, type OptionType, parse, type Parsed, required, SCOPES, scopes, UsageError, uuid,
} from "./admin/args.ts";
import { describeError, json, redact, table, when } from "./admin/output.ts";

const LOCAL_DATABASE_URL = "postgres://postgres:postgres@127.0.0.1:54322/postgres";
const CLI = "npm run admin --";

/** One command: its arguments, a check that turns them into input, and the SQL it runs. */
interface Command<T> {
  args: string[];
  options?: Record<string, OptionType>;
  usage: string;
  summary: string;
  check(p: Parsed): T;
  run(db: pg.Client, input: T, asJson: boolean): Promise<void>;
}

const command = <T>(c: Command<T>): Command<T> => c;
const accountId = (p: Parsed) => uuid("<account-id>", p.args[0]);

const commands: Record<string, Command<unknown>> = {
  "accounts create": command({
    args: ["<name>"], options: { enable: "boolean" },
    usage: "<name> [--enable]", summary: "create an account (API access off unless --enable)",
    check: (p) => ({ name: p.args[0], enable: p.opts.enable === true }),
    async run(db, { name, enable }, asJson) {
      await db.query("begin");
      const [{ id }] = (await db.query("select admin.create_account($1) as id", [name])).rows;
      if (enable) await db.query("select admin.set_api_access($1, true)", [id]);
      await db.query("commit");
      if (asJson) json({ id, name: name.trim(), api_access_enabled: enable });
      else console.log(`Created account ${id} (${JSON.stringify(name.trim())}), API access ${enable ? "enabled" : "off"}.`);
    },
  }),
  "accounts enable": accessCommand(true),
  "accounts disable": accessCommand(false),
  "accounts list": command({
    args: [], usage: "", summary: "list accounts with their API access and active keys",
    check: () => null,
    async run(db, _, asJson) {
      const { rows } = await db.query(`
        select a.id, a.name, a.api_access_enabled, a.created_at,
               (select count(*)::int from app.api_keys k
                 where k.account_id = a.id and k.revoked_at is null
                   and (k.expires_at is null or k.expires_at > now())) as active_keys
          from app.accounts a order by a.created_at, a.id`);
      if (asJson) return json(rows);
      table(["ID", "NAME", "API ACCESS", "ACTIVE KEYS", "CREATED"], rows.map((r) => [
        r.id, r.name, r.api_access_enabled ? "enabled" : "disabled", String(r.active_keys), when(r.created_at),
      ]), "No accounts.");
    },
  }),
  "keys create": command({
    args: ["<account-id>"], options: { name: "string", scopes: "string", expires: "string", "expires-in": "string" },
    usage: "<account-id> --name <name> --scopes <scope,...|all> [--expires <date-time> | --expires-in <N>d]",
    summary: "create a key and print it, once",
    check: (p) => ({
      account: accountId(p), name: required(p.opts, "name"), scopes: scopes(required(p.opts, "scopes")),
      expiresAt: expiry(p.opts.expires as string | undefined, p.opts["expires-in"] as string | undefined),
    }),
    async run(db, input, asJson) {
      const [{ id, key }] = (await db.query("select * from admin.create_api_key($1, $2, $3, $4)",
        [input.account, input.name, input.scopes, input.expiresAt])).rows;
      const [k] = (await db.query(
        "select name, prefix, scopes::text[] as scopes, expires_at from app.api_keys where id = $1", [id])).rows;
      if (asJson) {
        json({ id, account_id: input.account, name: k.name, prefix: k.prefix, scopes: k.scopes, expires_at: k.expires_at, key });
      } else {
        console.log(`Created API key ${id} (${JSON.stringify(k.name)}) for account ${input.account}`);
        console.log(`Scopes:  ${k.scopes.join(", ")}\nExpires: ${k.expires_at ? when(k.expires_at) : "never"}\n\n${key}\n`);
      }
      console.error("Copy the key now: this is the only time it is shown. It is not stored (only its SHA-256 hash), so it cannot be recovered.");
    },
  }),
  "keys list": command({
    args: [], options: { account: "string" },
    usage: "[--account <account-id>]", summary: "list keys (prefix, scopes, expiry, revocation, last use)",
    check: (p) => ({ account: p.opts.account === undefined ? null : uuid("--account", p.opts.account as string) }),
    async run(db, { account }, asJson) {
      const { rows } = await db.query(`
        select k.id, k.account_id, k.name, k.prefix, k.scopes::text[] as scopes, k.expires_at,
               k.revoked_at, k.last_used_at, k.created_at
          from app.api_keys k
         where $1::uuid is null or k.account_id = $1
         order by k.created_at, k.id`, [account]);
      if (account && rows.length === 0 && (await db.query("select from app.accounts where id = $1", [account])).rowCount === 0) {
        throw Object.assign(new Error(`account ${account} not found`), { code: "P0002" });
      }
      if (asJson) return json(rows);
      const expires = (d: Date | null) => (d ? when(d) + (d.getTime() <= Date.now() ? " (expired)" : "") : "never");
      table(["ID", "ACCOUNT", "NAME", "PREFIX", "SCOPES", "EXPIRES", "REVOKED", "LAST USED"], rows.map((r) => [
        r.id, r.account_id, r.name, r.prefix, r.scopes.length === SCOPES.length ? "all" : r.scopes.join(","),
        expires(r.expires_at), when(r.revoked_at), r.last_used_at ? when(r.last_used_at) : "never",
      ]), "No API keys.");
    },
  }),
  "keys revoke": command({
    args: ["<key-id>"], usage: "<key-id>", summary: "revoke a key (effective on its next request)",
    check: (p) => uuid("<key-id>", p.args[0]),
    async run(db, id, asJson) {
      await db.query("select admin.revoke_api_key($1)", [id]);
      const [{ revoked_at }] = (await db.query("select revoked_at from app.api_keys where id = $1", [id])).rows;
      if (asJson) json({ id, revoked_at });
      else console.log(`Revoked API key ${id} (at ${when(revoked_at)}).`);
    },
  }),
  "teams create": command({
    args: ["<name>", "<tag>"], options: { logo: "string" },
    usage: "<name> <tag> [--logo <url>]", summary: "create a platform team",
    check: (p) => ({ name: p.args[0], tag: p.args[1], logo: (p.opts.logo as string | undefined) ?? null }),
    async run(db, t, asJson) {
      const [{ id }] = (await db.query("select admin.create_team($1, $2, $3) as id", [t.name, t.tag, t.logo])).rows;
      if (asJson) json({ id, name: t.name.trim(), tag: t.tag.trim(), logo_url: t.logo });
      else console.log(`Created team ${id} (${JSON.stringify(t.name.trim())}, ${t.tag.trim()}).`);
    },
  }),
  "teams list": command({
    args: [], usage: "", summary: "list platform teams",
    check: () => null,
    async run(db, _, asJson) {
      const { rows } = await db.query("select id, name, tag, logo_url, created_at from app.teams order by name, id");
      if (asJson) return json(rows);
      table(["ID", "TAG", "NAME", "LOGO"], rows.map((r) => [r.id, r.tag, r.name, r.logo_url ?? "-"]), "No teams.");
    },
  }),
  "members add": command({
    args: ["<account-id>", "<user-id>"], usage: "<account-id> <user-id>",
    summary: "let a Supabase Auth user manage the account's keys",
    check: (p) => ({ account: accountId(p), user: uuid("<user-id>", p.args[1]) }),
    async run(db, { account, user }, asJson) {
      await db.query("select admin.add_account_member($1, $2)", [account, user]);
      if (asJson) json({ account_id: account, user_id: user });
      else console.log(`User ${user} is a member of account ${account}.`);
    },
  }),
};

function accessCommand(enabled: boolean) {
  return command({
    args: ["<account-id>"], usage: "<account-id>",
    summary: `${enabled ? "turn on" : "turn off"} an account's API access${enabled ? "" : " (its keys get 403)"}`,
    check: accountId,
    async run(db, id, asJson) {
      await db.query("select admin.set_api_access($1, $2)", [id, enabled]);
      if (asJson) json({ id, api_access_enabled: enabled });
      else console.log(`API access ${enabled ? "enabled" : "disabled"} for account ${id}.`);
    },
  });
}

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${`${name} ${c.usage}`.trim()}\n      ${c.summary}`);
  return [`Usage: ${CLI} <command> [options]`, "", "Commands:", ...lines, "",
    "Options:",
    "  --json      machine-readable output",
    "  -h, --help  show this help", "",
    `Scopes: ${SCOPES.join(", ")}, or all.`,
    `--expires takes an ISO 8601 date-time with a time zone (2027-01-31T18:00:00Z) or a date (midnight UTC).`,
    `DATABASE_URL selects the database (default: the local stack, ${LOCAL_DATABASE_URL.replace(/:[^:@/]+@/, ":***@")}).`,
    "Exit status: 0 done, 1 refused by the database or unreachable, 2 usage error.",
  ].join("\n");
}

function usageError(message: string, hint: string): number {
  console.error(redact(`error: ${message}`));
  if (hint) console.error(hint);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || ["help", "--help", "-h"].includes(argv[0])) {
    console.log(usage());
    return 0;
  }
  const name = argv.slice(0, 2).join(" ");
  const cmd = commands[name];
  if (!cmd) {
    const group = Object.keys(commands).filter((n) => n.startsWith(argv[0] + " "));
    const what = group.length ? `unknown ${argv[0]} command ${JSON.stringify(argv[1] ?? "")}` : `unknown command ${JSON.stringify(argv[0])}`;
    return usageError(what, group.length ? `Commands: ${group.join(", ")}` : `Run '${CLI} help' for the commands.`);
  }
  const synopsis = `Usage: ${CLI} ${name} ${cmd.usage}`.trim();
  let parsed: Parsed;
  let input: unknown;
  try {
    parsed = parse(argv.slice(2), cmd.args, cmd.options ?? {});
    if (parsed.help) {
      console.log(`${synopsis}\n\n${cmd.summary[0].toUpperCase()}${cmd.summary.slice(1)}.`);
      return 0;
    }
    input = cmd.check(parsed);
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, synopsis);
    throw err;
  }

  const url = Deno.env.get("DATABASE_URL") || LOCAL_DATABASE_URL;
  if (!/^postgres(ql)?:\/\//.test(url)) return usageError("DATABASE_URL must be a postgres:// URL", "");
  const db = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: "tournament-admin" });
  db.on("error", () => {}); // a dropped connection surfaces as the failed query
  try {
    await db.connect();
    await cmd.run(db, input, parsed.json);
    return 0;
  } catch (err) {
    const args = parsed.args;
    console.error(`error: ${describeError(err, url, { account: args[0], user: args[1] })}`);
    return 1;
  } finally {
    await db.end().catch(() => {});
  }
}

Deno.exit(await main(Deno.args));
