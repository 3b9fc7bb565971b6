// Operator CLI: `npm run admin -- <command>`. A thin layer over the admin.* SQL functions
// (supabase/migrations) against DATABASE_URL, else the local stack on DB_PORT (as `npm start`):
// it checks the arguments, calls one function and prints the outcome. The rules stay in SQL;
// lists read the app.* tables directly. `--help` (or `-h`) works on every command and group.
// Exit codes: 0 done, 1 the database refused or could not be reached, 2 usage error.
import pg from "pg";
import { expiry, type OptionType, parse, type Parsed, required, SCOPES, scopes, UsageError, uuid } from "./admin/args.ts";
import { describeError, json, redact, table, when } from "./admin/output.ts";

const DEFAULT_DB_PORT = 54322;
const CLI = "npm run admin --";
const HELP = ["--help", "-h"];

/** The database to use, as `npm start` chooses it: DATABASE_URL, else the local stack on DB_PORT. */
function database(): { url: string; source: string } {
  const url = Deno.env.get("DATABASE_URL");
  if (url) {
    if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError("DATABASE_URL must be a postgres:// URL");
    return { url, source: "DATABASE_URL" };
  }
  const raw = Deno.env.get("DB_PORT");
  let port = DEFAULT_DB_PORT;
  if (raw) {
    port = Number(raw);
    if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
      throw new UsageError(`DB_PORT must be a port number from 1 to 65535, got ${JSON.stringify(raw)}`);
    }
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    source: `the local stack${raw ? ` on DB_PORT=${port}` : ""}: is npm start running? Or set DATABASE_URL`,
  };
}

/** One command: its arguments, a check that turns them into input, and the SQL it runs. */
interface Command<T> {
  args: string[];
  options?: Record<string, OptionType>;
  usage: string;
  summary: string;
  /** The command's own options and what they take, for its --help. */
  optionHelp?: [string, string][];
  check(p: Parsed): T;
  run(db: pg.Client, input: T, asJson: boolean): Promise<void>;
}

const command = <T>(c: Command<T>): Command<T> => c;
const accountId = (p: Parsed) => uuid("<account-id>", p.args[0]);

const commands: Record<string, Command<unknown>> = {
  "accounts create": command({
    args: ["<name>"],
    options: { enable: "boolean" },
    usage: "<name> [--enable]",
    summary: "create an account (API access off unless --enable)",
    optionHelp: [["--enable", "turn its API access on at once"]],
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
    args: [],
    usage: "",
    summary: "list accounts with their API access and active keys",
    check: () => null,
    async run(db, _, asJson) {
      const { rows } = await db.query(`
        select a.id, a.name, a.api_access_enabled, a.created_at,
               (select count(*)::int from app.api_keys k
                 where k.account_id = a.id and k.revoked_at is null
                   and (k.expires_at is null or k.expires_at > now())) as active_keys
          from app.accounts a order by a.created_at, a.id`);
      if (asJson) return json(rows);
      table(
        ["ID", "NAME", "API ACCESS", "ACTIVE KEYS", "CREATED"],
        rows.map((r) => [
          r.id,
          r.name,
          r.api_access_enabled ? "enabled" : "disabled",
          String(r.active_keys),
          when(r.created_at),
        ]),
        "No accounts.",
      );
    },
  }),
  "keys create": command({
    args: ["<account-id>"],
    options: { name: "string", scopes: "string", expires: "string", "expires-in": "string" },
    usage: "<account-id> --name <name> --scopes <scope,...|all> [--expires <date-time> | --expires-in <N>d]",
    summary: "create a key and print it, once",
    optionHelp: [
      ["--name <name>", "what the key is for (1-200 characters)"],
      ["--scopes <scope,...|all>", `comma-separated, from: ${SCOPES.join(", ")}; or all`],
      ["--expires <date-time>", "ISO 8601 with a time zone (2027-01-31T18:00:00Z), or a date (midnight UTC)"],
      ["--expires-in <N>d", "expire N days from now (instead of --expires); no expiry when neither is given"],
    ],
    check: (p) => ({
      account: accountId(p),
      name: required(p.opts, "name"),
      scopes: scopes(required(p.opts, "scopes")),
      expiresAt: expiry(p.opts.expires as string | undefined, p.opts["expires-in"] as string | undefined),
    }),
    async run(db, input, asJson) {
      const [{ id, key }] =
        (await db.query("select * from admin.create_api_key($1, $2, $3, $4)", [input.account, input.name, input.scopes, input.expiresAt]))
          .rows;
      const [k] = (await db.query(
        "select name, prefix, scopes::text[] as scopes, expires_at from app.api_keys where id = $1",
        [id],
      )).rows;
      if (asJson) {
        json({ id, account_id: input.account, name: k.name, prefix: k.prefix, scopes: k.scopes, expires_at: k.expires_at, key });
      } else {
        console.log(`Created API key ${id} (${JSON.stringify(k.name)}) for account ${input.account}`);
        console.log(`Scopes:  ${k.scopes.join(", ")}\nExpires: ${k.expires_at ? when(k.expires_at) : "never"}\n\n${key}\n`);
      }
      console.error(
        "Copy the key now: this is the only time it is shown. It is not stored (only its SHA-256 hash), so it cannot be recovered.",
      );
    },
  }),
  "keys list": command({
    args: [],
    options: { account: "string" },
    usage: "[--account <account-id>]",
    summary: "list keys (prefix, scopes, expiry, revocation, last use)",
    optionHelp: [["--account <account-id>", "only that account's keys"]],
    check: (p) => ({ account: p.opts.account === undefined ? null : uuid("--account", p.opts.account as string) }),
    async run(db, { account }, asJson) {
      const { rows } = await db.query(
        `
        select k.id, k.account_id, k.name, k.prefix, k.scopes::text[] as scopes, k.expires_at,
               k.revoked_at, k.last_used_at, k.created_at
          from app.api_keys k
         where $1::uuid is null or k.account_id = $1
         order by k.created_at, k.id`,
        [account],
      );
      if (account && rows.length === 0 && (await db.query("select from app.accounts where id = $1", [account])).rowCount === 0) {
        throw Object.assign(new Error(`account ${account} not found`), { code: "P0002" });
      }
      if (asJson) return json(rows);
      const expires = (d: Date | null) => (d ? when(d) + (d.getTime() <= Date.now() ? " (expired)" : "") : "never");
      table(
        ["ID", "ACCOUNT", "NAME", "PREFIX", "SCOPES", "EXPIRES", "REVOKED", "LAST USED"],
        rows.map((r) => [
          r.id,
          r.account_id,
          r.name,
          r.prefix,
          r.scopes.length === SCOPES.length ? "all" : r.scopes.join(","),
          expires(r.expires_at),
          when(r.revoked_at),
          r.last_used_at ? when(r.last_used_at) : "never",
        ]),
        "No API keys.",
      );
    },
  }),
  "keys revoke": command({
    args: ["<key-id>"],
    usage: "<key-id>",
    summary: "revoke a key (effective on its next request)",
    check: (p) => uuid("<key-id>", p.args[0]),
    async run(db, id, asJson) {
      await db.query("select admin.revoke_api_key($1)", [id]);
      const [{ revoked_at }] = (await db.query("select revoked_at from app.api_keys where id = $1", [id])).rows;
      if (asJson) json({ id, revoked_at });
      else console.log(`Revoked API key ${id} (at ${when(revoked_at)}).`);
    },
  }),
  "teams create": command({
    args: ["<name>", "<tag>"],
    options: { logo: "string" },
    usage: "<name> <tag> [--logo <url>]",
    summary: "create a platform team",
    optionHelp: [["--logo <url>", "an http:// or https:// URL of the team's logo"]],
    check: (p) => ({ name: p.args[0], tag: p.args[1], logo: (p.opts.logo as string | undefined) ?? null }),
    async run(db, t, asJson) {
      const [{ id }] = (await db.query("select admin.create_team($1, $2, $3) as id", [t.name, t.tag, t.logo])).rows;
      if (asJson) json({ id, name: t.name.trim(), tag: t.tag.trim(), logo_url: t.logo });
      else console.log(`Created team ${id} (${JSON.stringify(t.name.trim())}, ${t.tag.trim()}).`);
    },
  }),
  "teams list": command({
    args: [],
    usage: "",
    summary: "list every team: platform teams and those accounts made through the API",
    check: () => null,
    async run(db, _, asJson) {
      const { rows } = await db.query(
        "select id, name, tag, logo_url, account_id, created_at from app.teams order by name, id",
      );
      if (asJson) return json(rows);
      table(
        ["ID", "TAG", "NAME", "OWNER", "LOGO"],
        rows.map((r) => [r.id, r.tag, r.name, r.account_id ?? "platform", r.logo_url ?? "-"]),
        "No teams.",
      );
    },
  }),
  "webhooks list": command({
    args: [],
    options: { account: "string" },
    usage: "[--account <account-id>]",
    summary: "list webhook endpoints with their delivery backlog (where to look when deliveries fail)",
    optionHelp: [["--account <account-id>", "only that account's endpoints"]],
    check: (p) => ({ account: p.opts.account === undefined ? null : uuid("--account", p.opts.account as string) }),
    async run(db, { account }, asJson) {
      const { rows } = await db.query(
        `
        select w.id, w.account_id, w.url, w.enabled, w.disabled_reason, w.failing_since,
               count(*) filter (where d.status = 'pending')::int as pending,
               count(*) filter (where d.status = 'failed')::int as failed,
               count(*) filter (where d.status = 'exhausted')::int as exhausted,
               max(d.delivered_at) as last_success,
               (array_agg(d.last_error order by d.last_attempt_at desc nulls last)
                  filter (where d.last_error is not null))[1] as last_error
          from app.webhook_endpoints w
          left join app.webhook_deliveries d on d.endpoint_id = w.id
         where $1::uuid is null or w.account_id = $1
         group by w.id order by w.account_id, w.created_at, w.id`,
        [account],
      );
      if (asJson) return json(rows);
      table(
        ["ID", "ACCOUNT", "URL", "STATE", "PENDING", "FAILED", "EXHAUSTED", "LAST SUCCESS", "LAST ERROR"],
        rows.map((r) => [
          r.id,
          r.account_id,
          r.url,
          r.enabled
            ? (r.failing_since ? `failing since ${when(r.failing_since)}` : "ok")
            : `disabled (${r.disabled_reason ?? "by its account"})`,
          String(r.pending),
          String(r.failed),
          String(r.exhausted),
          when(r.last_success),
          r.last_error ?? "-",
        ]),
        "No webhook endpoints.",
      );
    },
  }),
  "webhooks deliveries": command({
    args: ["<webhook-id>"],
    options: { status: "string" },
    usage: "<webhook-id> [--status <status>]",
    summary: "an endpoint's latest deliveries, newest first (50)",
    optionHelp: [["--status <status>", "pending, succeeded, failed or exhausted"]],
    check: (p) => {
      const status = p.opts.status as string | undefined;
      if (status !== undefined && !["pending", "succeeded", "failed", "exhausted"].includes(status)) {
        throw new UsageError("--status must be pending, succeeded, failed or exhausted");
      }
      return { id: uuid("<webhook-id>", p.args[0]), status: status ?? null };
    },
    async run(db, { id, status }, asJson) {
      const { rows } = await db.query(
        `
        select d.id, e.id as event_id, e.type, d.status, d.attempts, d.last_attempt_at, d.next_attempt_at,
               d.last_status_code, d.last_error
          from app.webhook_deliveries d join app.webhook_events e on e.id = d.event_id
         where d.endpoint_id = $1 and ($2::text is null or d.status = $2)
         order by d.created_at desc, d.id desc limit 50`,
        [id, status],
      );
      if (rows.length === 0 && (await db.query("select from app.webhook_endpoints where id = $1", [id])).rowCount === 0) {
        throw Object.assign(new Error(`webhook endpoint ${id} not found`), { code: "P0002" });
      }
      if (asJson) return json(rows);
      table(
        ["ID", "EVENT", "TYPE", "STATUS", "ATTEMPTS", "LAST ATTEMPT", "NEXT", "CODE", "ERROR"],
        rows.map((r) => [
          r.id,
          r.event_id,
          r.type,
          r.status,
          String(r.attempts),
          when(r.last_attempt_at),
          ["pending", "failed"].includes(r.status) ? when(r.next_attempt_at) : "-",
          r.last_status_code === null ? "-" : String(r.last_status_code),
          r.last_error ?? "-",
        ]),
        "No deliveries.",
      );
    },
  }),
  "members add": command({
    args: ["<account-id>", "<user-id>"],
    usage: "<account-id> <user-id>",
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
    args: ["<account-id>"],
    usage: "<account-id>",
    summary: `${enabled ? "turn on" : "turn off"} an account's API access${enabled ? "" : " (its keys get 403)"}`,
    check: accountId,
    async run(db, id, asJson) {
      await db.query("select admin.set_api_access($1, $2)", [id, enabled]);
      if (asJson) json({ id, api_access_enabled: enabled });
      else console.log(`API access ${enabled ? "enabled" : "disabled"} for account ${id}.`);
    },
  });
}

const GROUPS = [...new Set(Object.keys(commands).map((name) => name.split(" ")[0]))];

/** Aligned "  flag  text" lines. */
function optionLines(options: [string, string][]): string[] {
  const width = Math.max(...options.map(([flag]) => flag.length));
  return options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}

const COMMON_OPTIONS: [string, string][] = [["--json", "machine-readable output (JSON on stdout)"], ["-h, --help", "show this help"]];

function databaseHelp(): string {
  return `The database: DATABASE_URL, else the local stack (npm start) at 127.0.0.1:$DB_PORT (default ${DEFAULT_DB_PORT}).`;
}

function commandList(names: string[]): string[] {
  return names.map((name) => `  ${`${name} ${commands[name].usage}`.trim()}\n      ${commands[name].summary}`);
}

function usage(): string {
  return [
    `Usage: ${CLI} <command> [options]`,
    "",
    "Commands:",
    ...commandList(Object.keys(commands)),
    "",
    "Options:",
    ...optionLines(COMMON_OPTIONS),
    "",
    `Run '${CLI} <command> --help' for a command's options, '${CLI} <group> --help' for a group (${GROUPS.join(", ")}).`,
    `Scopes: ${SCOPES.join(", ")}, or all.`,
    databaseHelp(),
    `For JSON without npm's banner: npm run -s admin -- <command> --json | jq`,
    "Exit status: 0 done, 1 refused by the database or unreachable, 2 usage error.",
  ].join("\n");
}

function groupUsage(group: string): string {
  const names = Object.keys(commands).filter((name) => name.startsWith(group + " "));
  return [
    `Usage: ${CLI} ${group} <command> [options]`,
    "",
    "Commands:",
    ...commandList(names),
    "",
    "Options:",
    ...optionLines(COMMON_OPTIONS),
    "",
    `Run '${CLI} ${group} <command> --help' for a command's options.`,
    databaseHelp(),
  ].join("\n");
}

function commandUsage(name: string): string {
  const cmd = commands[name];
  return [
    `Usage: ${CLI} ${name} ${cmd.usage}`.trim(),
    "",
    `${cmd.summary[0].toUpperCase()}${cmd.summary.slice(1)}.`,
    "",
    "Options:",
    ...optionLines([...(cmd.optionHelp ?? []), ...COMMON_OPTIONS]),
    "",
    databaseHelp(),
  ].join("\n");
}

function usageError(message: string, hint: string): number {
  console.error(redact(`error: ${message}`));
  if (hint) console.error(hint);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  // `help [<group> [<command>]]` reads as `<group> <command> --help`.
  if (argv[0] === "help") argv = [...argv.slice(1), "--help"];
  const end = argv.indexOf("--");
  const wantsHelp = (end === -1 ? argv : argv.slice(0, end)).some((a) => HELP.includes(a));
  if (argv.length === 0 || HELP.includes(argv[0])) {
    console.log(usage());
    return 0;
  }
  const group = argv[0];
  if (GROUPS.includes(group) && (argv.length === 1 || HELP.includes(argv[1]) || argv[1] === "help")) {
    console.log(groupUsage(group));
    return 0;
  }
  const name = argv.slice(0, 2).join(" ");
  const cmd = commands[name];
  if (!cmd) {
    const what = GROUPS.includes(group)
      ? `unknown ${group} command ${JSON.stringify(argv[1] ?? "")}`
      : `unknown command ${JSON.stringify(group)}`;
    const names = Object.keys(commands).filter((n) => n.startsWith(group + " "));
    return usageError(what, names.length ? `Commands: ${names.join(", ")}` : `Run '${CLI} --help' for the commands.`);
  }
  if (wantsHelp) {
    console.log(commandUsage(name));
    return 0;
  }
  const synopsis = `Usage: ${CLI} ${name} ${cmd.usage}`.trim();
  let parsed: Parsed;
  let input: unknown;
  let db: { url: string; source: string };
  try {
    parsed = parse(argv.slice(2), cmd.args, cmd.options ?? {});
    input = cmd.check(parsed);
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, synopsis);
    throw err;
  }
  try {
    db = database();
  } catch (err) {
    if (err instanceof UsageError) return usageError(err.message, "");
    throw err;
  }

  const client = new pg.Client({ connectionString: db.url, connectionTimeoutMillis: 10_000, application_name: "tournament-admin" });
  client.on("error", () => {}); // a dropped connection surfaces as the failed query
  try {
    await client.connect();
    await cmd.run(client, input, parsed.json);
    return 0;
  } catch (err) {
    const args = parsed.args;
    console.error(`error: ${describeError(err, db.url, { account: args[0], user: args[1] }, db.source)}`);
    return 1;
  } finally {
    await client.end().catch(() => {});
  }
}

Deno.exit(await main(Deno.args));
