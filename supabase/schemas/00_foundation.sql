-- Foundation: the schemas, the roles, default privileges and the helpers every area uses (the
-- scopes, the bound account, date-times, business errors, input checks, pages). Every later
-- file builds on it: accounts and keys (01-03), teams, tournaments and registrations (04-07),
-- matches and formats (08-15), webhooks (16-19), change tracking and the live stream
-- (22_live.sql), the public view (23_public.sql) and the door, api.call (25_api.sql).

-- ============================================================================
-- schemas and roles
-- ============================================================================
-- Schemas:
--   app       tables and helpers; never exposed by the Supabase Data API
--   api       what the `api` edge function may call: api.call (25_api.sql), the live stream's
--             poll (22_live.sql) and api.public_call (23_public.sql)
--   admin     operator functions (dashboard SQL editor, Supabase CLI, npm run admin); no client
--             role can execute them
--   webhooks  the dispatcher's door (21_webhook_dispatch.sql): webhooks.claim, settle, sleep, prune
create schema if not exists app;

create schema if not exists api;

create schema if not exists admin;

create schema if not exists webhooks;

create extension if not exists pgcrypto with schema extensions;

-- The API's roles:
--   tournament_api        the edge function's login role. It can execute api.call and nothing
--                         else: no table, no other function. A leaked DATABASE_URL is worth
--                         nothing without a valid API key.
--   tournament_api_owner  owns api.call (security definer) and holds the table privileges the
--                         operations need. No login, no BYPASSRLS: row-level security still
--                         applies to everything api.call does, with the account that api.call
--                         bound after checking the key.
do $$
begin
  if not exists (select from pg_roles where rolname = 'tournament_api') then
    -- Login is enabled by the operator with a password (docs/deploying.md).
    create role tournament_api nologin noinherit nobypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'tournament_api_owner') then
    create role tournament_api_owner nologin noinherit nobypassrls;
  end if;
  -- ALTER ... OWNER TO needs membership in the new owner unless the migration role is a
  -- superuser (on Supabase, `postgres` is not).
  if not (select r.rolsuper from pg_roles r where r.rolname = current_user) then
    execute format('grant tournament_api_owner to %I', current_user);
  end if;
end
$$;

comment on role tournament_api is 'The api edge function''s login role: it may execute api.call, nothing else.';

comment on role tournament_api_owner is
  'Owns api.call and holds the table privileges of the operations; no login, no BYPASSRLS.';

alter role tournament_api set statement_timeout = '10s';

alter role tournament_api set idle_in_transaction_session_timeout = '10s';

-- Default deny: functions the migration role creates (in this file and every later one) are
-- executable by no one until granted. Supabase's own defaults grant functions in `public` to
-- its API roles; take that back too (a no-op on plain Postgres).
alter default privileges revoke execute on functions from public;

alter default privileges in schema public revoke execute on functions from anon, authenticated, service_role;

revoke all on schema app, api, admin from public;

-- The webhook dispatcher's roles (18_webhook_endpoints.sql to 21_webhook_dispatch.sql):
--   tournament_webhooks        the dispatcher's login role: it may execute the webhooks.*
--                              functions (claim, settle, sleep, prune) and nothing else.
--   tournament_webhooks_owner  owns them; reads endpoints and events, updates deliveries and
--                              endpoints' delivery state. No login, no BYPASSRLS.
-- Neither role can call api.call, and tournament_api cannot call webhooks.*.
do $$
begin
  if not exists (select from pg_roles where rolname = 'tournament_webhooks') then
    create role tournament_webhooks nologin noinherit nobypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'tournament_webhooks_owner') then
    create role tournament_webhooks_owner nologin noinherit nobypassrls;
  end if;
  if not (select r.rolsuper from pg_roles r where r.rolname = current_user) then
    execute format('grant tournament_webhooks_owner to %I', current_user);
  end if;
end
$$;

comment on role tournament_webhooks is 'The webhooks dispatcher''s login role: it may execute webhooks.*, nothing else.';

comment on role tournament_webhooks_owner is 'Owns webhooks.* and holds what claiming and settling deliveries need.';

alter role tournament_webhooks set statement_timeout = '10s';

alter role tournament_webhooks set idle_in_transaction_session_timeout = '10s';

revoke all on schema webhooks from public;

-- ============================================================================
-- types
-- ============================================================================
-- The scopes, listed once for SQL (the API's list is functions/api/contract.ts; a test keeps
-- the two equal).
create function app.scopes() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['read:tournaments', 'write:tournaments', 'read:registrations',
               'write:registrations', 'read:results', 'write:results', 'read:teams', 'write:teams',
               'read:webhooks', 'write:webhooks']
$$;
comment on function app.scopes() is 'Every permission an API key can carry.';

-- A participant token's scopes (contract section 17): a token of one tournament carries only
-- these, an API key never (app.insert_api_key checks against app.scopes()).
create function app.participant_scopes() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['participant:register', 'participant:lineup', 'participant:check_in', 'participant:withdraw',
               'participant:report']
$$;
comment on function app.participant_scopes() is 'Every permission a participant token can carry.';

create domain app.scope as text check (value = any (app.scopes() || app.participant_scopes()));

comment on domain app.scope is 'A permission an API key (app.scopes()) or a participant token (app.participant_scopes()) can carry.';

-- ============================================================================
-- functions
-- ============================================================================
-- Every function pins `set search_path = ''` and qualifies every name (pg_catalog is always
-- searched first). A SQL function with a SET clause is never inlined, and calling one costs
-- far more than a PL/pgSQL function (its body is parsed and planned again in each statement
-- that calls it): helpers are PL/pgSQL, and what must stay inlinable is not a function. The
-- JSON shape of each resource is a security_invoker view (app.*_documents), which the planner
-- inlines like any view; RLS policies spell out the bound-account expression.

-- The bound account. Only api.call sets app.account_id (transaction-local), after the key
-- check and before any operation runs, overwriting whatever the session had set; the function
-- role can execute nothing else, so no value it sets beforehand is ever read.
--
-- The RLS policies spell the same expression out instead of calling this function (a SQL
-- function with `set search_path` is never inlined and measured 60-70 µs per call, paid by
-- every statement under a policy), as `(select nullif(s.v, '')::uuid from (select
-- current_setting('app.account_id', true)) as s(v))`: one InitPlan per statement, and the
-- words `select current_setting(` that Supabase's advisors look for (their auth_rls_initplan
-- lint matches text and flags `(select nullif(current_setting(…)…))`; the planner flattens the
-- inner select, so the plan is the same).
create function app.current_account_id() returns uuid
language plpgsql stable
set search_path = ''
as $$
begin
  return nullif(current_setting('app.account_id', true), '')::uuid;
end
$$;
comment on function app.current_account_id() is 'The account api.call bound to the current transaction, or null.';

create function app.iso(p_ts timestamptz) returns text
language plpgsql stable parallel safe
set search_path = ''
as $$
begin
  return to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
end
$$;
comment on function app.iso(timestamptz) is 'ISO 8601 UTC with milliseconds and Z, the API''s one date-time format.';

create function app.raise_error(p_code text, p_message text, p_details jsonb default null)
returns void
language plpgsql
set search_path = ''
as $$
begin
  raise exception using errcode = 'P0001', message = p_message, hint = p_code,
    detail = coalesce(p_details::text, '');
end
$$;
comment on function app.raise_error(text, text, jsonb) is
  'Raises a business error; the hint is the API error code that the function layer maps to HTTP.';

-- A 400 validation_error naming one field.
create function app.raise_invalid(p_field text, p_message text) returns void
language plpgsql
set search_path = ''
as $$
begin
  perform app.raise_error('validation_error', 'The request is invalid.',
    jsonb_build_array(jsonb_build_object('field', p_field, 'message', p_message)));
end
$$;

-- The one place SQL casts the caller's input: each present, non-null member of p_values must
-- be valid input for its type in p_types ({"field": "type", ...}), else a 400
-- validation_error naming every such field. Once it passed, the casts cannot fail, so any
-- other data error an operation raises is a bug (500), never the caller's.
create function app.check_input(p_values jsonb, p_types jsonb) returns void
language plpgsql stable
set search_path = ''
as $$
declare
  v_bad jsonb;
begin
  select jsonb_agg(jsonb_build_object('field', t.key, 'message', 'must be a valid ' || t.value) order by t.key)
    into v_bad
    from jsonb_each_text(p_types) t
   where jsonb_typeof(p_values -> t.key) is distinct from 'null'
     and p_values ? t.key
     and (jsonb_typeof(p_values -> t.key) in ('object', 'array')
          or not pg_input_is_valid(p_values ->> t.key, t.value));
  if v_bad is not null then
    perform app.raise_error('validation_error', 'The request is invalid.', v_bad);
  end if;
end
$$;
comment on function app.check_input(jsonb, jsonb) is
  'Validates the caller''s values before any cast: 400 validation_error naming each invalid field.';

-- Whether a JSON value is an integer from p_min to p_max (for options inside a JSON body).
create function app.is_int(p_value jsonb, p_min int, p_max int) returns boolean
language sql immutable
set search_path = ''
as $$
  select jsonb_typeof(p_value) = 'number' and p_value::text ~ '^-?\d{1,9}$'
     and (p_value::text)::int between p_min and p_max
$$;

-- A list's page and page size from its query (1 and 20 by default; 400 when out of range).
create function app.page_of(p_query jsonb, out page int, out page_size int)
language plpgsql stable
set search_path = ''
as $$
begin
  perform app.check_input(p_query, '{"page": "int", "limit": "int"}');
  page := coalesce((p_query ->> 'page')::int, 1);
  page_size := coalesce((p_query ->> 'limit')::int, 20);
  if page < 1 or page_size not between 1 and 100 then
    perform app.raise_invalid(case when page < 1 then 'page' else 'limit' end, 'out of range');
  end if;
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant usage on schema api to tournament_api;

grant usage on schema app, extensions to tournament_api_owner;

grant execute on function app.current_account_id() to tournament_api_owner;
grant execute on function app.iso(timestamptz) to tournament_api_owner;
grant execute on function app.raise_error(text, text, jsonb) to tournament_api_owner;
grant execute on function app.raise_invalid(text, text) to tournament_api_owner;
grant execute on function app.check_input(jsonb, jsonb) to tournament_api_owner;
grant execute on function app.is_int(jsonb, int, int) to tournament_api_owner;
grant execute on function app.page_of(jsonb) to tournament_api_owner;
