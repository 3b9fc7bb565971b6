-- Platform: schemas, the function's database role, accounts, API keys, the rate limit,
-- teams, the operator (admin.*) functions and the request entry point (api.call).
--
-- Schemas:
--   app    tables and helpers; never exposed by the Supabase Data API
--   api    what the `api` edge function calls (role tournament_api only)
--   admin  operator functions (dashboard SQL editor, Supabase CLI, npm run admin); no
--          client role can execute them
--
-- search_path: every security definer function pins `set search_path = ''`. Security invoker
-- functions (all the rest) qualify every name and run with the caller's rights, so they do
-- without the SET clause, which would stop Postgres inlining the SQL helpers and costs a
-- configuration switch on every call (measured: a 20-row list page 4.1 -> 1.9 ms; GET by id
-- through api.call 2,069 -> 2,339 requests/s on this 2-core machine).
--
-- The edge function connects as `tournament_api`: a login role without BYPASSRLS. Each
-- request is one statement, `select api.call(...)`, so one transaction: the caller's account
-- is bound with set_config(..., is_local => true) and dies with the transaction, which keeps
-- it correct behind a transaction-mode pooler (Supavisor).

-- ============================================================================
-- schemas, roles, default privileges
-- ============================================================================
create schema if not exists app;
create schema if not exists api;
create schema if not exists admin;
create extension if not exists pgcrypto with schema extensions;

do $$
begin
  if not exists (select from pg_roles where rolname = 'tournament_api') then
    -- Login is enabled by the operator with a password (see README, "Deploying").
    create role tournament_api nologin noinherit nobypassrls;
  end if;
end
$$;
comment on role tournament_api is 'The api edge function''s role: no BYPASSRLS; RLS keeps accounts apart.';
alter role tournament_api set statement_timeout = '10s';
alter role tournament_api set idle_in_transaction_session_timeout = '10s';

revoke all on schema app, api, admin from public;
grant usage on schema app, api to tournament_api;
grant usage on schema extensions to tournament_api; -- pgcrypto: gen_random_bytes, digest

-- Default deny: PUBLIC's EXECUTE on new functions is a database-wide default that a
-- per-schema default cannot remove, so each migration revokes it from its functions
-- explicitly (`revoke execute on all functions in schema ...`) before granting each function
-- to the role that needs it.

-- ============================================================================
-- types
-- ============================================================================
create domain app.scope as text
  check (value in ('read:tournaments', 'write:tournaments', 'read:registrations',
                   'write:registrations', 'read:results', 'write:results'));
comment on domain app.scope is 'A permission an API key can carry.';

-- ============================================================================
-- tables
-- ============================================================================
create table app.accounts (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(btrim(name)) between 1 and 200),
  api_access_enabled boolean not null default false,
  created_at timestamptz not null default now()
);
comment on table app.accounts is 'A customer of the API. Its API access is off until an operator enables it.';

create table app.api_keys (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references app.accounts (id) on delete cascade,
  name text not null check (length(btrim(name)) between 1 and 200),
  prefix text not null,
  key_hash bytea not null unique check (length(key_hash) = 32),
  scopes app.scope[] not null check (array_position(scopes, null) is null),
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  rate_hits timestamptz[] not null default '{}'
);
comment on table app.api_keys is 'API keys: only the SHA-256 of a key is stored, with a short visible prefix.';
comment on column app.api_keys.prefix is 'The first 12 characters of the key, to recognise it in lists.';
comment on column app.api_keys.rate_hits is 'Times of the accepted requests in the current rolling 60 s window (at most 100).';

create table app.teams (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(btrim(name)) between 1 and 100),
  tag text not null check (length(btrim(tag)) between 1 and 20),
  logo_url text check (logo_url ~ '^https?://'),
  created_at timestamptz not null default now()
);
comment on table app.teams is 'Platform teams, created by operators; any account may register any team.';

-- ============================================================================
-- indexes
-- ============================================================================
create index api_keys_account_id_idx on app.api_keys (account_id);

-- ============================================================================
-- functions: helpers
-- ============================================================================
create function app.current_account_id() returns uuid
language sql stable
as $$
  select nullif(current_setting('app.account_id', true), '')::uuid
$$;
comment on function app.current_account_id() is 'The account bound to the current transaction by api.call, or null.';

create function app.iso(p_ts timestamptz) returns text
language sql stable parallel safe
as $$
  select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
comment on function app.iso(timestamptz) is 'ISO 8601 UTC with milliseconds and Z, the API''s one date-time format.';

create function app.raise_error(p_code text, p_message text, p_details jsonb default null)
returns void
language plpgsql
as $$
begin
  raise exception using errcode = 'P0001', message = p_message, hint = p_code,
    detail = coalesce(p_details::text, '');
end
$$;
comment on function app.raise_error(text, text, jsonb) is
  'Raises a business error; the hint is the API error code that the function layer maps to HTTP.';

create function app.raise_invalid(p_field text, p_message text) returns void
language sql
as $$
  select app.raise_error('validation_error', 'The request is invalid.',
    jsonb_build_array(jsonb_build_object('field', p_field, 'message', p_message)))
$$;

-- Base62 with the alphabet 0-9A-Za-z, big-endian, left-padded with '0' to p_width.
create function app.base62(p_value numeric, p_width int) returns text
language plpgsql immutable strict
as $$
declare
  v_alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  v_out text := '';
  v_n numeric := p_value;
begin
  while v_n > 0 loop
    v_out := substr(v_alphabet, (mod(v_n, 62))::int + 1, 1) || v_out;
    v_n := div(v_n, 62);
  end loop;
  return lpad(v_out, p_width, '0');
end
$$;

create function app.crc32(p_data bytea) returns bigint
language plpgsql immutable strict
as $$
declare
  v_crc bigint := 4294967295;
begin
  for i in 0 .. length(p_data) - 1 loop
    v_crc := v_crc # get_byte(p_data, i);
    for j in 1 .. 8 loop
      if (v_crc & 1) = 1 then
        v_crc := (v_crc >> 1) # 3988292384; -- 0xEDB88320
      else
        v_crc := v_crc >> 1;
      end if;
    end loop;
  end loop;
  return v_crc # 4294967295;
end
$$;

create function app.new_api_key() returns text
language plpgsql volatile
as $$
declare
  v_bytes bytea := extensions.gen_random_bytes(32);
  v_n numeric := 0;
  v_body text;
begin
  for i in 0 .. 31 loop
    v_n := v_n * 256 + get_byte(v_bytes, i);
  end loop;
  v_body := 'tmk_' || app.base62(v_n, 43);
  return v_body || app.base62(app.crc32(convert_to(v_body, 'UTF8')), 6);
end
$$;
comment on function app.new_api_key() is
  'A new key: tmk_, 32 random bytes in base62 (43 chars), then a 6-char base62 CRC32 checksum of what precedes it.';

-- ============================================================================
-- functions: key check and rate limit
-- ============================================================================
create function app.authenticate(p_key_hash bytea, p_scope text) returns json
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  c_limit constant int := 100;
  c_window constant interval := interval '60 seconds';
  v_now timestamptz := clock_timestamp();
  v_key record;
  v_hits timestamptz[];
  v_reset int;
begin
  select k.id, k.account_id, k.scopes, k.expires_at, k.revoked_at, k.rate_hits,
         a.api_access_enabled
    into v_key
    from app.api_keys k
    join app.accounts a on a.id = k.account_id
   where k.key_hash = p_key_hash;

  if not found or v_key.revoked_at is not null or v_key.expires_at <= v_now then
    return json_build_object('error', 'unauthorized');
  end if;
  if not v_key.api_access_enabled then
    return json_build_object('error', 'api_access_disabled', 'key_id', v_key.id);
  end if;

  -- Hits are only ever added, so a full window in this unlocked read is full for certain:
  -- that 429 needs no lock and writes nothing. Otherwise the key's row lock serialises its
  -- requests, which makes the count exact.
  v_hits := array(select h from unnest(v_key.rate_hits) h where h > v_now - c_window order by h);
  if cardinality(v_hits) < c_limit then
    select k.rate_hits into v_hits from app.api_keys k
     where k.id = v_key.id and k.revoked_at is null
       for no key update;
    if not found then
      return json_build_object('error', 'unauthorized'); -- revoked meanwhile
    end if;
    v_hits := array(select h from unnest(v_hits) h where h > v_now - c_window order by h);
  end if;
  if cardinality(v_hits) >= c_limit then
    v_reset := greatest(1, ceil(extract(epoch from v_hits[1] + c_window - v_now)))::int;
    return json_build_object('error', 'rate_limited', 'key_id', v_key.id,
      'limit', c_limit, 'remaining', 0, 'reset', v_reset, 'window', 60);
  end if;

  v_hits := v_hits || v_now;
  update app.api_keys set rate_hits = v_hits, last_used_at = v_now where id = v_key.id;
  v_reset := greatest(1, ceil(extract(epoch from v_hits[1] + c_window - v_now)))::int;

  return json_build_object(
    'error', case when p_scope is not null and not coalesce(p_scope = any (v_key.scopes::text[]), false)
                  then 'insufficient_scope' end,
    'key_id', v_key.id, 'account_id', v_key.account_id,
    'limit', c_limit, 'remaining', c_limit - cardinality(v_hits), 'reset', v_reset, 'window', 60);
end
$$;
comment on function app.authenticate(bytea, text) is
  'Key lookup, account check, rolling-window rate limit (100 per key per 60 s) and scope check, in the contract''s order.';

-- The key check alone, with the rate-limit state as of an unlocked read: no lock, no count.
-- For a retry whose Idempotency-Key is in flight (answered 409 without waiting for the key).
create function app.check_key(p_key_hash bytea, p_scope text) returns json
language sql stable security definer
set search_path = ''
as $$
  select coalesce(
    (select case
              when not a.api_access_enabled then json_build_object('error', 'api_access_disabled', 'key_id', k.id)
              else json_build_object(
                'error', case when w.n >= 100 then 'rate_limited'
                              when p_scope is not null and not coalesce(p_scope = any (k.scopes::text[]), false)
                                then 'insufficient_scope' end,
                'key_id', k.id, 'account_id', k.account_id, 'limit', 100, 'remaining', greatest(0, 100 - w.n),
                'reset', greatest(1, ceil(extract(epoch from w.oldest + interval '60 seconds' - clock_timestamp())))::int,
                'window', 60)
            end
       from app.api_keys k
       join app.accounts a on a.id = k.account_id
       cross join lateral (select count(*)::int as n, min(h) as oldest from unnest(k.rate_hits) h
                            where h > clock_timestamp() - interval '60 seconds') w
      where k.key_hash = p_key_hash and k.revoked_at is null
        and (k.expires_at is null or k.expires_at > clock_timestamp())),
    json_build_object('error', 'unauthorized'))
$$;

-- ============================================================================
-- functions: request entry point
-- ============================================================================
create table app.operations (
  name text primary key,
  fn regprocedure not null,
  read_only boolean not null default false
);
comment on column app.operations.read_only is
  'Writes nothing but the rate-limit count, so its commit need not wait for the WAL flush.';
comment on table app.operations is
  'The operations api.call may run, by name: each is a function (p_args jsonb) returning json.';

create function api.call(p_key_hash bytea, p_scope text, p_op text, p_args jsonb,
                         p_idempotency jsonb default null,
                         out auth json, out error json, out result json, out replay json)
language plpgsql volatile
as $$
declare
  v_fn regprocedure;
  v_read_only boolean;
  v_state text;
  v_message text;
  v_hint text;
  v_detail text;
begin
  -- An Idempotency-Key is claimed before the key's rate-limit row is locked (which waits for
  -- the key's request in flight): so a retry of a request still in flight sees the claim and
  -- answers 409 at once, after a key check that neither waits nor counts.
  if p_idempotency is not null and p_op is not null
     and not pg_try_advisory_xact_lock(hashtextextended(encode(p_key_hash, 'hex') || ':' || (p_idempotency ->> 'key'), 0)) then
    auth := app.check_key(p_key_hash, p_scope);
    if auth ->> 'error' is null then
      error := json_build_object('sqlstate', 'P0001', 'code', 'idempotency_conflict',
        'message', 'A request with this Idempotency-Key is still in progress; retry once it has finished.');
    end if;
    return;
  end if;

  -- A request that writes only its rate-limit count (a read, or one refused before its
  -- operation) need not wait for the WAL flush: a crash could forget a few counted requests,
  -- never a write. Writing operations switch it back on below. Transaction-scoped.
  perform set_config('synchronous_commit', 'off', true);

  auth := app.authenticate(p_key_hash, p_scope);
  if auth ->> 'error' is not null or p_op is null then
    return;
  end if;

  select o.fn, o.read_only into v_fn, v_read_only from app.operations o where o.name = p_op;
  if v_fn is null then
    raise exception 'unknown operation %', p_op;
  end if;
  if not v_read_only then
    perform set_config('synchronous_commit', 'on', true);
  end if;

  perform set_config('app.account_id', auth ->> 'account_id', true);

  if p_idempotency is not null then
    select i.conflict, i.replay into error, replay
      from app.idempotency_begin((auth ->> 'key_id')::uuid, p_idempotency) i;
    if replay is not null then -- a retry: the first response's result or error, as saved
      result := case when json_typeof(replay -> 'result') <> 'null' then replay -> 'result' end;
      error := case when json_typeof(replay -> 'error') <> 'null' then replay -> 'error' end;
      return;
    elsif error is not null then
      return;
    end if;
  end if;

  -- The operation runs in a subtransaction: its failure undoes its writes, but the rate-limit
  -- count above stays, since every request that passed the key check counts.
  begin
    execute format('select %s($1)', v_fn::regproc) into result using p_args;
  exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_message = message_text,
                            v_hint = pg_exception_hint, v_detail = pg_exception_detail;
    error := json_build_object('sqlstate', v_state, 'code', v_hint, 'message', v_message,
      'details', case when v_state = 'P0001' and v_detail like '[%' then v_detail::json end);
  end;

  -- Saved in the same transaction as the operation's writes: both or neither.
  if p_idempotency is not null
     and (error is null or ((error ->> 'sqlstate') = 'P0001' and (error ->> 'code') <> 'validation_error')) then
    perform app.idempotency_save((auth ->> 'key_id')::uuid, p_idempotency, result, error);
  end if;
end
$$;
comment on function api.call(bytea, text, text, jsonb, jsonb) is
  'One API request in one statement: authenticate, rate-limit, check scope, bind the account, run the operation.';

-- ============================================================================
-- functions: operators (admin.*); the parameter names are the documented interface
-- ============================================================================
create function admin.create_account(name text) returns uuid
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into app.accounts (name) values (btrim(create_account.name)) returning id into v_id;
  return v_id;
end
$$;
comment on function admin.create_account(text) is 'Creates an account with API access off.';

create function admin.set_api_access(account_id uuid, enabled boolean) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  update app.accounts set api_access_enabled = set_api_access.enabled
   where id = set_api_access.account_id;
  if not found then
    raise exception 'account % not found', set_api_access.account_id using errcode = 'P0002';
  end if;
end
$$;

create function admin.create_api_key(account_id uuid, name text, scopes text[],
                                     expires_at timestamptz default null)
returns table (id uuid, key text)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_key text := app.new_api_key();
  v_unknown text[];
begin
  if not exists (select from app.accounts a where a.id = create_api_key.account_id) then
    raise exception 'account % not found', create_api_key.account_id using errcode = 'P0002';
  end if;
  if coalesce(cardinality(create_api_key.scopes), 0) = 0 then
    raise exception 'a key needs at least one scope' using errcode = '22023';
  end if;
  v_unknown := array(select coalesce(s, 'null') from unnest(create_api_key.scopes) s
    where s is null or s not in ('read:tournaments', 'write:tournaments', 'read:registrations',
                    'write:registrations', 'read:results', 'write:results'));
  if cardinality(v_unknown) > 0 then
    raise exception 'unknown scope(s): %', array_to_string(v_unknown, ', ') using errcode = '22023',
      hint = 'Scopes: read:tournaments, write:tournaments, read:registrations, write:registrations, read:results, write:results';
  end if;
  if create_api_key.expires_at is not null and create_api_key.expires_at <= now() then
    raise exception 'expires_at must be in the future' using errcode = '22023';
  end if;

  return query
  insert into app.api_keys as k (account_id, name, prefix, key_hash, scopes, expires_at)
  values (create_api_key.account_id, btrim(create_api_key.name), left(v_key, 12),
          extensions.digest(v_key, 'sha256'),
          array(select distinct s from unnest(create_api_key.scopes) s order by s)::app.scope[],
          create_api_key.expires_at)
  returning k.id, v_key;
end
$$;
comment on function admin.create_api_key(uuid, text, text[], timestamptz) is
  'Creates a key and returns its plaintext, the only time it is ever shown.';

create function admin.revoke_api_key(key_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  update app.api_keys set revoked_at = coalesce(revoked_at, now()) where id = revoke_api_key.key_id;
  if not found then
    raise exception 'API key % not found', revoke_api_key.key_id using errcode = 'P0002';
  end if;
end
$$;

create function admin.create_team(name text, tag text, logo_url text default null) returns uuid
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into app.teams (name, tag, logo_url)
  values (btrim(create_team.name), btrim(create_team.tag), create_team.logo_url)
  returning id into v_id;
  return v_id;
end
$$;

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.accounts enable row level security;
alter table app.api_keys enable row level security;
alter table app.teams enable row level security;
alter table app.operations enable row level security;

create policy "Accounts are visible to the bound account" on app.accounts
  for select to tournament_api using (id = (select app.current_account_id()));

create policy "Teams are visible once an account is bound" on app.teams
  for select to tournament_api using ((select app.current_account_id()) is not null);

-- api_keys: no policy for any client role; only the security definer functions read it.

-- ============================================================================
-- grants
-- ============================================================================
revoke execute on all functions in schema app, api, admin from public;
grant select on app.accounts, app.teams to tournament_api;

grant execute on function app.current_account_id() to tournament_api;
grant execute on function app.iso(timestamptz) to tournament_api;
grant execute on function app.raise_error(text, text, jsonb) to tournament_api;
grant execute on function app.raise_invalid(text, text) to tournament_api;
grant execute on function app.authenticate(bytea, text) to tournament_api;
grant execute on function app.check_key(bytea, text) to tournament_api;
grant execute on function api.call(bytea, text, text, jsonb, jsonb) to tournament_api;

-- app.operations is read by api.call as the invoker, so the role may read (never write) it.
grant select on app.operations to tournament_api;
create policy "Operations are readable by the function role" on app.operations
  for select to tournament_api using (true);
