// What a database holds, as text to compare: the drift check (tests/schema-drift.test.ts,
// `npm run db:drift`) builds one database from supabase/migrations and one from
// supabase/schemas and asks for the two catalogs to be equal. Every object of every schema but
// the system's and the migration history's, with what defines it: tables (columns in order,
// types, defaults, constraints, RLS), views, indexes, triggers, policies, functions with their
// bodies, types and domains, sequences, extensions, owners, grants (object, column, schema),
// default privileges, role attributes, memberships and settings, comments. Names only: no OID,
// no statistic, no data.
import pg from "pg";

const SKIP = "('pg_catalog', 'information_schema', 'pg_toast', 'supabase_migrations')";
// An array as text in a fixed order: the same privileges granted in another order are equal.
const sorted = (expr) => `(select string_agg(x::text, ',' order by x::text) from unnest(${expr}) x)`;

/** @type {Record<string, string>} kind -> a query returning (key, def) rows */
const QUERIES = {
  schema: `
    select n.nspname as key, concat_ws(' | ', 'owner ' || pg_get_userbyid(n.nspowner), ${sorted("n.nspacl")},
      obj_description(n.oid, 'pg_namespace')) as def
      from pg_namespace n where n.nspname not in ${SKIP} and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%'`,
  role: `
    select r.rolname as key, concat_ws(' | ', concat_ws(',', case when r.rolsuper then 'superuser' end,
      case when r.rolinherit then 'inherit' end, case when r.rolcreaterole then 'createrole' end,
      case when r.rolcreatedb then 'createdb' end, case when r.rolcanlogin then 'login' end,
      case when r.rolreplication then 'replication' end, case when r.rolbypassrls then 'bypassrls' end),
      r.rolconnlimit::text, ${sorted("r.rolconfig")}, 'valid until ' || r.rolvaliduntil::text,
      shobj_description(r.oid, 'pg_authid')) as def
      from pg_roles r where r.rolname !~ '^pg_'`,
  membership: `
    select pg_get_userbyid(m.roleid) || ' -> ' || pg_get_userbyid(m.member) || ' by ' || pg_get_userbyid(m.grantor) as key,
      concat_ws(',', case when m.admin_option then 'admin' end, case when m.inherit_option then 'inherit' end,
        case when m.set_option then 'set' end) as def
      from pg_auth_members m`,
  role_setting: `
    select coalesce(d.datname, '*') || ' / ' || coalesce(pg_get_userbyid(s.setrole), '*') as key,
      ${sorted("s.setconfig")} as def
      from pg_db_role_setting s left join pg_database d on d.oid = s.setdatabase`,
  extension: `
    select e.extname as key, e.extnamespace::regnamespace::text || ' ' || e.extversion as def from pg_extension e`,
  relation: `
    select n.nspname || '.' || c.relname as key, concat_ws(' | ', c.relkind::text, c.relpersistence::text,
      'owner ' || pg_get_userbyid(c.relowner), ${sorted("c.relacl")}, ${sorted("c.reloptions")},
      case when c.relrowsecurity then 'rls' end, case when c.relforcerowsecurity then 'force rls' end,
      'replica identity ' || c.relreplident::text,
      case when c.relkind = 'v' then pg_get_viewdef(c.oid) end, obj_description(c.oid, 'pg_class')) as def
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ${SKIP} and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')`,
  column: `
    select n.nspname || '.' || c.relname || '.' || lpad(a.attnum::text, 3, '0') || ' ' || a.attname as key,
      concat_ws(' | ', format_type(a.atttypid, a.atttypmod), case when a.attnotnull then 'not null' end,
        pg_get_expr(d.adbin, d.adrelid), nullif(a.attidentity, ''), nullif(a.attgenerated, ''),
        ${sorted("a.attacl")}, case when a.attcollation <> 0 then 'collate ' || a.attcollation::regcollation::text end,
        'storage ' || a.attstorage::text, 'statistics ' || coalesce(a.attstattarget::text, 'default'),
        ${sorted("a.attoptions")}, col_description(c.oid, a.attnum)) as def
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where n.nspname not in ${SKIP} and c.relkind in ('r', 'p', 'v', 'm', 'f') and a.attnum > 0 and not a.attisdropped`,
  constraint: `
    select coalesce(n.nspname || '.' || c.relname, t.typname) || ' ' || k.conname as key,
      concat_ws(' | ', pg_get_constraintdef(k.oid), case when not k.convalidated then 'not valid' end,
        obj_description(k.oid, 'pg_constraint')) as def
      from pg_constraint k left join pg_class c on c.oid = k.conrelid left join pg_namespace n on n.oid = c.relnamespace
      left join pg_type t on t.oid = k.contypid join pg_namespace kn on kn.oid = k.connamespace
     where kn.nspname not in ${SKIP}`,
  index: `
    select n.nspname || '.' || i.relname as key,
      concat_ws(' | ', pg_get_indexdef(i.oid), case when x.indisclustered then 'clustered' end) as def
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
     where n.nspname not in ${SKIP}`,
  trigger: `
    select n.nspname || '.' || c.relname || ' ' || t.tgname as key, pg_get_triggerdef(t.oid) || ' | ' || t.tgenabled::text as def
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
     where not t.tgisinternal and n.nspname not in ${SKIP}`,
  policy: `
    select schemaname || '.' || tablename || ' ' || policyname as key,
      concat_ws(' | ', permissive, cmd, ${sorted("roles")}, qual, with_check) as def
      from pg_policies where schemaname not in ${SKIP}`,
  function: `
    select p.oid::regprocedure::text as key, concat_ws(' | ', 'owner ' || pg_get_userbyid(p.proowner), ${sorted("p.proacl")},
      obj_description(p.oid, 'pg_proc'),
      case when p.prokind = 'a' then (select concat_ws(' ', 'aggregate', a.aggkind::text, a.aggtransfn::text,
        a.aggfinalfn::text, a.aggcombinefn::text, format_type(a.aggtranstype, null), a.agginitval)
        from pg_aggregate a where a.aggfnoid = p.oid) else pg_get_functiondef(p.oid) end) as def
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname not in ${SKIP} and p.prokind in ('f', 'p', 'w', 'a')
       and not exists (select from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
  type: `
    select n.nspname || '.' || t.typname as key, concat_ws(' | ', t.typtype::text, 'owner ' || pg_get_userbyid(t.typowner),
      case when t.typtype = 'd' then format_type(t.typbasetype, t.typtypmod) end, ${sorted("t.typacl")},
      case when t.typnotnull then 'not null' end, 'default ' || t.typdefault,
      case when t.typtype = 'e' then (select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid) end,
      obj_description(t.oid, 'pg_type')) as def
      from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where n.nspname not in ${SKIP} and t.typtype in ('d', 'e', 'r', 'm')
        or (t.typtype = 'c' and n.nspname not in ${SKIP} and (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c')`,
  default_privilege: `
    select pg_get_userbyid(d.defaclrole) || ' ' || coalesce(d.defaclnamespace::regnamespace::text, '*') || ' ' || d.defaclobjtype::text as key,
      ${sorted("d.defaclacl")} as def from pg_default_acl d`,
  sequence: `
    select q.seqrelid::regclass::text as key, concat_ws(' ', format_type(q.seqtypid, null), 'start', q.seqstart,
      'increment', q.seqincrement, 'min', q.seqmin, 'max', q.seqmax, 'cache', q.seqcache,
      case when q.seqcycle then 'cycle' end) as def
      from pg_sequence q join pg_class c on c.oid = q.seqrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ${SKIP}`,
  rule: `
    select n.nspname || '.' || c.relname || ' ' || r.rulename as key, pg_get_ruledef(r.oid) || ' | ' || r.ev_enabled::text as def
      from pg_rewrite r join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ${SKIP} and r.rulename <> '_RETURN'`,
  statistics: `
    select n.nspname || '.' || s.stxname as key, pg_get_statisticsobjdef(s.oid) as def
      from pg_statistic_ext s join pg_namespace n on n.oid = s.stxnamespace where n.nspname not in ${SKIP}`,
  publication: `
    select p.pubname as key, concat_ws(' | ', 'owner ' || pg_get_userbyid(p.pubowner),
      case when p.puballtables then 'all tables' end, p.pubinsert::text || p.pubupdate::text || p.pubdelete::text || p.pubtruncate::text,
      (select string_agg(r.prrelid::regclass::text, ',' order by r.prrelid::regclass::text) from pg_publication_rel r where r.prpubid = p.oid),
      (select string_agg(x.pnnspid::regnamespace::text, ',' order by x.pnnspid::regnamespace::text) from pg_publication_namespace x where x.pnpubid = p.oid)) as def
      from pg_publication p`,
  event_trigger: `
    select e.evtname as key, concat_ws(' | ', e.evtevent, e.evtfoid::regproc::text, e.evtenabled::text,
      ${sorted("e.evttags")}, 'owner ' || pg_get_userbyid(e.evtowner)) as def from pg_event_trigger e`,
  operator: `
    select o.oid::regoperator::text as key, concat_ws(' | ', o.oprcode::text, o.oprcom::regoperator::text,
      o.oprnegate::regoperator::text, 'owner ' || pg_get_userbyid(o.oprowner)) as def
      from pg_operator o join pg_namespace n on n.oid = o.oprnamespace where n.nspname not in ${SKIP}`,
  collation: `
    select n.nspname || '.' || c.collname as key, concat_ws(' | ', c.collprovider::text, c.collcollate, c.collctype,
      c.colllocale, c.collicurules, c.collisdeterministic::text) as def
      from pg_collation c join pg_namespace n on n.oid = c.collnamespace where n.nspname not in ${SKIP}`,
  cast: `
    select format_type(c.castsource, null) || ' -> ' || format_type(c.casttarget, null) as key,
      concat_ws(' | ', c.castfunc::regprocedure::text, c.castcontext::text, c.castmethod::text) as def
      from pg_cast c where c.oid >= 16384`,
  // Every comment, on whatever it is (indexes, triggers, policies, constraints, schemas...).
  comment: `
    select pg_describe_object(d.classoid, d.objoid, d.objsubid) as key, d.description as def
      from pg_description d where d.objoid >= 16384
    union all
    select pg_describe_object(d.classoid, d.objoid, 0), d.description from pg_shdescription d where d.objoid >= 16384`,
  database: `
    select d.datname as key, concat_ws(' | ', 'owner ' || pg_get_userbyid(d.datdba), ${sorted("d.datacl")}) as def
      from pg_database d where d.datname = current_database()`,
};

/**
 * Every object of the database at `url`, as a map from "kind key" to its definition.
 * @param {string} url
 * @returns {Promise<Map<string, string>>}
 */
export async function catalog(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out = new Map();
    for (const [kind, sql] of Object.entries(QUERIES)) {
      const { rows } = await client.query(sql);
      for (const row of rows) out.set(`${kind} ${row.key}`, row.def ?? "");
    }
    return out;
  } finally {
    await client.end();
  }
}

/**
 * The differences between two catalogs, one readable line each (with both definitions for an
 * object defined differently); empty when equal.
 * @param {Map<string, string>} a @param {Map<string, string>} b @param {[string, string]} names
 */
export function differences(a, b, [nameA, nameB] = ["a", "b"]) {
  const lines = [];
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (!b.has(key)) lines.push(`only in ${nameA}: ${key}`);
    else if (!a.has(key)) lines.push(`only in ${nameB}: ${key}`);
    else if (a.get(key) !== b.get(key)) lines.push(`differs: ${key}\n${firstDifference(a.get(key), b.get(key), nameA, nameB)}`);
  }
  return lines;
}

// The first differing line of two definitions, with a line of context on each side.
function firstDifference(x, y, nameA, nameB) {
  const xs = x.split("\n");
  const ys = y.split("\n");
  let i = 0;
  while (i < xs.length && i < ys.length && xs[i] === ys[i]) i++;
  const show = (lines) => lines.slice(Math.max(0, i - 1), i + 2).map((l) => `      ${l}`).join("\n");
  return `  line ${i + 1}, ${nameA}:\n${show(xs)}\n  ${nameB}:\n${show(ys)}`;
}
