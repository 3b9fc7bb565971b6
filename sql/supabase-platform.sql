-- Supabase platform replay: what a hosted Supabase database already holds before the first
-- project migration runs, so that local dev and the tests run supabase/migrations as a
-- NON-superuser `postgres`, as hosted does (a plain Postgres, where `postgres` is superuser,
-- hides deploy failures such as `alter function ... owner to x` without CREATE on the schema).
-- LOCAL ONLY: every role that logs in gets the password 'postgres'.
--
-- Source, replayed (not copied) in upstream order, newest versions read 2026:
--   supabase/postgres (PostgreSQL License) migrations/db/migrate.sh: supabase_admin is the initdb
--     superuser; `postgres` is created SUPERUSER and owns database postgres; init-scripts/*
--     run AS postgres; migrations/* run as supabase_admin (10000000000000 demotes postgres).
--     init-scripts 00-schema.sql (= ansible/files/pgbouncer_config/pgbouncer_auth_schema.sql),
--     00000000000000-initial-schema (aec7381; + supabase_etl_admin of later revisions),
--     00000000000001-auth-schema (ce2035d), 00000000000002-storage-schema (1921aa3),
--     00000000000003-post-setup (79b9d75), 00000000000003-realtime-schema (96d8873);
--     migrations/* as at 7db7e1a (snapshot, 2024-10) plus the newer files named below;
--     nix/tests/expected/roles.out (96d8873) and z_17_roles.out: the expected end state.
--   supabase/auth (GoTrue, MIT) migrations 20220224000811, 20220531120530 (auth.jwt) and
--     20240612123726 (RLS on auth tables): hosted projects run them at first start.
--
-- How it runs: once, on a fresh cluster made by `initdb --username=supabase_admin`, by
-- supabase_admin on database postgres, as ONE multi-statement simple query (no psql
-- meta-commands). That is one implicit transaction: all of it applies or none; a second run
-- stops at the guard below and changes nothing. Then migrations run as the login `postgres`.
--
-- Skipped (needs what this Postgres lacks, or belongs to a service we do not run):
--   pgjwt, pg_graphql, pg_net, pgsodium + supabase_vault, pg_cron, pg_tle, pgmq, orioledb,
--     pg_duckdb (not installed): their extensions, roles (pgsodium_key*, pgtle_admin,
--     supabase_functions_admin), schemas and grants, and the event triggers that grant on them
--     (issue_pg_cron_access, issue_pg_net_access, issue_pg_graphql_access,
--     issue_graphql_placeholder); 20240822021428 webhooks (supabase_functions, needs pg_net).
--   safeupdate + supautils (libraries not shipped): session/local_preload_libraries of
--     authenticator, anon, authenticated, postgres and `safeupdate.enabled` (20220118070449,
--     20260130074514, 20260403172611, 20260413000000, 20261010094800). Without supautils,
--     nothing here lets `postgres` do superuser-only things (event triggers, untrusted
--     extensions, pgrst.* settings) nor stops it altering the reserved roles, as hosted does.
--   Storage internals (storage.buckets/objects/migrations, functions) and realtime internals:
--     made by the Storage and Realtime services' own migrations; so 20250623125453 (grants on
--     storage tables) is skipped too. The storage and realtime schemas, roles, grants are kept.
--   GoTrue's later tables and columns (identities, sessions, mfa_*, is_anonymous, ...).
--   20250915105031 supabase_subscription_mgmt (logical-replication helpers): irrelevant here.
--   20240124080435 (lo_import/lo_export owner -> supabase_admin): already so (bootstrap user).
--   20220609081115's grant of supabase_auth_admin/storage_admin to postgres: 20250421084701
--     revokes it, so that membership is not replayed. Upstream files since deleted or
--     superseded are not replayed either (e.g. 20230607094822, 20230713185014, 20240319072844,
--     20251215120934_supabase_superuser, replaced by 20260211120934_supabase_privileged_role).

-- ============================================================================
-- guard, and migrate.sh's preamble (as supabase_admin)
-- ============================================================================
do $$
begin
  if current_user <> 'supabase_admin' or not (select rolsuper from pg_roles where rolname = current_user) then
    raise exception 'run sql/supabase-platform.sql as the initdb superuser supabase_admin';
  end if;
  if exists (select from pg_roles where rolname = 'authenticator') then
    raise exception 'the Supabase platform roles already exist: nothing to do';
  end if;
end
$$;
create role postgres superuser login password 'postgres';
alter database postgres owner to postgres;

-- ============================================================================
-- init-scripts, run AS postgres (still a superuser here)
-- ============================================================================
set role postgres;

-- 00-schema.sql: PgBouncer's auth lookup (function body as 20251121132723 left it; created
-- here, as upstream does, so its owner is postgres)
create user pgbouncer;
revoke all privileges on schema public from pgbouncer;
create schema pgbouncer authorization pgbouncer;
create function pgbouncer.get_auth(p_usename text) returns table (username text, password text)
language plpgsql set search_path = '' security definer as $$
begin
  raise debug 'PgBouncer auth request: %', p_usename;
  return query
  select rolname::text, case when rolvaliduntil < now() then null else rolpassword::text end
  from pg_authid where rolname = $1 and rolcanlogin;
end;
$$;
revoke all on function pgbouncer.get_auth(text) from public;
grant execute on function pgbouncer.get_auth(text) to pgbouncer;

-- 00000000000000-initial-schema.sql
create publication supabase_realtime;
alter user supabase_admin with superuser createdb createrole replication bypassrls;
create user supabase_replication_admin with login replication;
create user supabase_etl_admin with login replication bypassrls;
grant pg_read_all_data to supabase_etl_admin;
grant create on database postgres to supabase_etl_admin;
create role supabase_read_only_user with login bypassrls;
grant pg_read_all_data to supabase_read_only_user;

create schema if not exists extensions;
create extension if not exists "uuid-ossp" with schema extensions;
create extension if not exists pgcrypto with schema extensions;

create role anon nologin noinherit;
create role authenticated nologin noinherit;
create role service_role nologin noinherit bypassrls;
create user authenticator noinherit password 'postgres'; -- password: local stand-in
grant anon, authenticated, service_role to authenticator;
grant supabase_admin to authenticator; -- revoked again by 20221103090837 below

grant usage on schema public to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to postgres, anon, authenticated, service_role;
grant usage on schema extensions to postgres, anon, authenticated, service_role;
alter user supabase_admin set search_path to public, extensions;
alter default privileges for user supabase_admin in schema public grant all on sequences to postgres, anon, authenticated, service_role;
alter default privileges for user supabase_admin in schema public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for user supabase_admin in schema public grant all on functions to postgres, anon, authenticated, service_role;
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';

-- 00000000000001-auth-schema.sql (GoTrue later adds columns and tables; see the header)
create schema if not exists auth authorization supabase_admin;
create table auth.users (
  instance_id uuid null, id uuid not null unique, aud varchar(255) null, "role" varchar(255) null,
  email varchar(255) null unique, encrypted_password varchar(255) null, confirmed_at timestamptz null,
  invited_at timestamptz null, confirmation_token varchar(255) null,
  confirmation_sent_at timestamptz null, recovery_token varchar(255) null,
  recovery_sent_at timestamptz null, email_change_token varchar(255) null,
  email_change varchar(255) null, email_change_sent_at timestamptz null,
  last_sign_in_at timestamptz null, raw_app_meta_data jsonb null, raw_user_meta_data jsonb null,
  is_super_admin bool null, created_at timestamptz null, updated_at timestamptz null,
  constraint users_pkey primary key (id) -- no default on id, as on hosted
);
create index users_instance_id_email_idx on auth.users using btree (instance_id, email);
create index users_instance_id_idx on auth.users using btree (instance_id);
comment on table auth.users is 'Auth: Stores user login data within a secure schema.';
create table auth.refresh_tokens (
  instance_id uuid null, id bigserial not null, "token" varchar(255) null,
  user_id varchar(255) null, revoked bool null, created_at timestamptz null,
  updated_at timestamptz null, constraint refresh_tokens_pkey primary key (id)
);
create index refresh_tokens_instance_id_idx on auth.refresh_tokens using btree (instance_id);
create index refresh_tokens_instance_id_user_id_idx on auth.refresh_tokens using btree (instance_id, user_id);
create index refresh_tokens_token_idx on auth.refresh_tokens using btree (token);
comment on table auth.refresh_tokens is 'Auth: Store of tokens used to refresh JWT tokens once they expire.';
create table auth.instances (
  id uuid not null, uuid uuid null, raw_base_config text null,
  created_at timestamptz null, updated_at timestamptz null,
  constraint instances_pkey primary key (id)
);
comment on table auth.instances is 'Auth: Manages users across multiple sites.';
create table auth.audit_log_entries (
  instance_id uuid null, id uuid not null, payload json null, created_at timestamptz null,
  constraint audit_log_entries_pkey primary key (id)
);
create index audit_logs_instance_id_idx on auth.audit_log_entries using btree (instance_id);
comment on table auth.audit_log_entries is 'Auth: Audit trail for user actions.';
create table auth.schema_migrations (
  "version" varchar(255) not null,
  constraint schema_migrations_pkey primary key ("version")
);
comment on table auth.schema_migrations is 'Auth: Manages updates to the auth system.';
insert into auth.schema_migrations (version) values ('20171026211738'), ('20171026211808'),
  ('20171026211834'), ('20180103212743'), ('20180108183307'), ('20180119214651'), ('20180125194653');
-- auth.uid/role/email: GoTrue's versions replace these bodies below
create function auth.uid() returns uuid language sql stable
  as $$ select nullif(current_setting('request.jwt.claim.sub', true), '')::uuid $$;
create function auth.role() returns text language sql stable
  as $$ select nullif(current_setting('request.jwt.claim.role', true), '')::text $$;
create function auth.email() returns text language sql stable
  as $$ select nullif(current_setting('request.jwt.claim.email', true), '')::text $$;
grant usage on schema auth to anon, authenticated, service_role;
create user supabase_auth_admin noinherit nocreaterole login noreplication;
grant all privileges on schema auth to supabase_auth_admin;
grant all privileges on all tables in schema auth to supabase_auth_admin;
grant all privileges on all sequences in schema auth to supabase_auth_admin;
alter user supabase_auth_admin set search_path = "auth";
alter table auth.users owner to supabase_auth_admin;
alter table auth.refresh_tokens owner to supabase_auth_admin;
alter table auth.audit_log_entries owner to supabase_auth_admin;
alter table auth.instances owner to supabase_auth_admin;
alter table auth.schema_migrations owner to supabase_auth_admin;

-- 00000000000002-storage-schema.sql (the tables come from the Storage service)
create schema if not exists storage authorization supabase_admin;
create user supabase_storage_admin noinherit createrole login noreplication;
alter user supabase_storage_admin set search_path = "storage";
grant create on database postgres to supabase_storage_admin;
grant usage on schema storage to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_storage_admin in schema storage grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_storage_admin in schema storage grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges for role supabase_storage_admin in schema storage grant all on sequences to postgres, anon, authenticated, service_role;
grant all on schema storage to supabase_storage_admin with grant option;

-- 00000000000003-post-setup.sql (the pg_cron / pg_net event triggers are skipped)
-- sic: upstream writes "\$user" (a shell-escape leftover) in both; the image's
-- postgresql.schema.sql resets supabase_admin's to "$user", while `postgres` keeps
-- search_path = "\$user", public, extensions on hosted (roles.out shows both).
alter role supabase_admin set search_path to "$user", public, auth, extensions;
alter role postgres set search_path to "\$user", public, extensions;
create role dashboard_user nosuperuser createdb createrole replication;
grant all on database postgres to dashboard_user;
grant all on schema auth, extensions, storage to dashboard_user;
grant all on all tables in schema auth, extensions to dashboard_user;
grant all on all sequences in schema auth, storage, extensions to dashboard_user;
grant all on all routines in schema auth, storage, extensions to dashboard_user;

-- 00000000000003-realtime-schema.sql (the realtime.* objects come from the Realtime service)
create schema if not exists realtime authorization supabase_admin;
create user supabase_realtime_admin noinherit createrole login replication;
alter user supabase_realtime_admin set search_path = public, extensions, realtime;
grant create on database postgres to supabase_realtime_admin;
grant anon, authenticated, service_role to supabase_realtime_admin;
grant set on parameter log_min_messages to supabase_realtime_admin;
grant usage on schema realtime to postgres, anon, authenticated, service_role;
grant all on schema realtime to supabase_realtime_admin with grant option;
grant usage on schema auth to supabase_realtime_admin;
grant execute on all functions in schema auth to supabase_realtime_admin;
grant create, usage on schema public to supabase_realtime_admin;
grant usage on schema extensions to supabase_realtime_admin;

reset role;
-- migrate.sh, between the two phases
alter user supabase_admin with password 'postgres';

-- ============================================================================
-- migrations, as supabase_admin
-- ============================================================================
-- 00-extension.sql (ansible/files/stat_extension.sql)
create extension if not exists pg_stat_statements with schema extensions;

-- 10000000000000_demote-postgres.sql
grant all on database postgres to postgres;
grant all on schema auth, extensions, storage to postgres;
grant all on all tables in schema auth, extensions, storage to postgres;
grant all on all sequences in schema auth, extensions, storage to postgres;
grant all on all routines in schema auth, extensions, storage to postgres;
alter role postgres nosuperuser createdb createrole login replication bypassrls;

-- 20211115181400_update-auth-permissions.sql (the default privileges are what roles.out expects)
grant usage on schema auth to postgres;
alter default privileges for role supabase_auth_admin in schema auth grant all on tables to postgres, dashboard_user;
alter default privileges for role supabase_auth_admin in schema auth grant all on sequences to postgres, dashboard_user;
alter default privileges for role supabase_auth_admin in schema auth grant all on routines to postgres, dashboard_user;

-- 20211118015519, 20211122051245, 20211130151719: realtime permissions
grant usage on schema realtime to postgres;
alter default privileges for role supabase_admin in schema realtime grant all on tables to postgres, dashboard_user;
alter default privileges for role supabase_admin in schema realtime grant all on sequences to postgres, dashboard_user;
alter default privileges for role supabase_admin in schema realtime grant all on routines to postgres, dashboard_user;

-- 20211124212715_update-auth-owner.sql
alter function auth.uid() owner to supabase_auth_admin;
alter function auth.role() owner to supabase_auth_admin;
alter function auth.email() owner to supabase_auth_admin;

-- 20220126121436 / 20220321174452, bodies as updated by 20260923021047: PostgREST's schema
-- cache reload on DDL (fires for every role, `postgres` included)
create function extensions.pgrst_ddl_watch() returns event_trigger language plpgsql as $$
declare
  cmd record;
begin
  for cmd in select * from pg_event_trigger_ddl_commands() loop
    if cmd.command_tag in (
      'CREATE SCHEMA', 'ALTER SCHEMA', 'CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
      'ALTER TABLE', 'CREATE FOREIGN TABLE', 'ALTER FOREIGN TABLE', 'CREATE VIEW', 'ALTER VIEW',
      'CREATE MATERIALIZED VIEW', 'ALTER MATERIALIZED VIEW', 'CREATE FUNCTION', 'ALTER FUNCTION',
      'CREATE TYPE', 'ALTER TYPE', 'CREATE RULE', 'COMMENT')
      and coalesce(cmd.schema_name, '') not in ('pg_temp', 'auth', 'realtime', '_realtime', 'storage')
      or (cmd.command_tag = 'CREATE TRIGGER' and cmd.object_identity not like '% pg\_temp.%')
    then
      notify pgrst, 'reload schema';
    end if;
  end loop;
end; $$;
create function extensions.pgrst_drop_watch() returns event_trigger language plpgsql as $$
declare
  obj record;
begin
  for obj in select * from pg_event_trigger_dropped_objects() loop
    if obj.object_type in ('schema', 'table', 'foreign table', 'view', 'materialized view',
                           'function', 'type', 'rule')
      and obj.is_temporary is false
      and coalesce(obj.schema_name, '') not in ('auth', 'realtime', '_realtime', 'storage')
      or (obj.object_type = 'trigger' and obj.object_identity not like '% pg\_temp.%')
    then
      notify pgrst, 'reload schema';
    end if;
  end loop;
end; $$;
create event trigger pgrst_ddl_watch on ddl_command_end execute procedure extensions.pgrst_ddl_watch();
create event trigger pgrst_drop_watch on sql_drop execute procedure extensions.pgrst_drop_watch();

-- 20220317095840_pg_graphql.sql: the exposed graphql_public schema and its placeholder entry
-- point (pg_graphql and its event triggers are skipped; 20260421000000 turns it off anyway)
create schema if not exists graphql_public;
create function graphql_public.graphql("operationName" text default null, query text default null,
                                       variables jsonb default null, extensions jsonb default null)
returns jsonb language plpgsql as $$
begin
  return jsonb_build_object('errors', jsonb_build_array(
    jsonb_build_object('message', 'pg_graphql extension is not enabled.')));
end;
$$;
grant usage on schema graphql_public to postgres, anon, authenticated, service_role;
alter default privileges in schema graphql_public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges in schema graphql_public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges in schema graphql_public grant all on sequences to postgres, anon, authenticated, service_role;

-- 20220322085208_gotrue-session-limit.sql
alter role supabase_auth_admin set idle_in_transaction_session_timeout to 60000;
-- 20221028101028_set_authenticator_timeout.sql
alter role authenticator set statement_timeout = '8s';
-- 20221103090837_revoke_admin.sql
revoke supabase_admin from authenticator;
-- 20230201083204_grant_auth_roles_to_postgres.sql
grant anon, authenticated, service_role to postgres;
-- 20230224042246_grant_extensions_perms_for_postgres.sql
grant all privileges on all tables in schema extensions to postgres with grant option;
grant all privileges on all routines in schema extensions to postgres with grant option;
grant all privileges on all sequences in schema extensions to postgres with grant option;
alter default privileges in schema extensions grant all on tables to postgres with grant option;
alter default privileges in schema extensions grant all on routines to postgres with grant option;
alter default privileges in schema extensions grant all on sequences to postgres with grant option;
-- 20230306081037_grant_pg_monitor_to_postgres.sql
grant pg_monitor to postgres;
-- 20230327032006 + 20231013070755: supabase_storage_admin ends with authenticator only
grant authenticator to supabase_storage_admin;
-- 20230529180330_alter_api_roles_for_inherit.sql (its pgsodium grant is skipped)
alter role authenticated inherit;
alter role anon inherit;
alter role service_role inherit;
-- 20231130133139_set_lock_timeout_to_authenticator_role.sql
alter role authenticator set lock_timeout to '8s';
-- 20240606060239_grant_predefined_roles_to_postgres.sql
grant pg_read_all_data, pg_signal_backend to postgres;
-- 20250421084701_revoke_admin_roles_from_postgres.sql (the parts whose objects exist here)
revoke create on schema storage from postgres;
revoke create on schema auth from postgres;
revoke all on auth.schema_migrations from dashboard_user, postgres;
revoke create on schema realtime from postgres;
-- 20250605172253_grant_with_admin_to_postgres_16_and_above.sql (PG16+; the revision that also
-- names authenticator and the predefined roles, as hosted PG17 projects have them)
grant anon, authenticated, service_role, authenticator, pg_monitor, pg_read_all_data,
  pg_signal_backend to postgres with admin option;
-- 20250709135250_grant_storage_schema_to_postgres_with_grant_option.sql
grant usage on schema storage to postgres with grant option;
-- 20250710151649_supabase_read_only_user_default_transaction_read_only.sql
alter role supabase_read_only_user set default_transaction_read_only = on;
-- 20251001204436_predefined_role_grants.sql
grant pg_monitor to supabase_etl_admin, supabase_read_only_user;
grant pg_create_subscription to postgres with admin option;
-- 20251105172723_grant_pg_reload_conf_to_postgres.sql
grant execute on function pg_catalog.pg_reload_conf() to postgres;
-- 20251121141100_supabase_auth_admin_db_grants.sql
grant create on database postgres to supabase_auth_admin;
-- 20260211120934_supabase_privileged_role.sql (supautils.privileged_role on hosted; inert here)
create role supabase_privileged_role;
grant supabase_privileged_role to postgres, supabase_etl_admin;
-- 20260506172403_grant_realtime_schema_to_postgres_with_grant_option.sql
grant usage on schema realtime to postgres with grant option;
-- 20260821154147_revoke_createrole_from_auth_admin.sql: supabase_auth_admin is created
-- NOCREATEROLE above already.
-- Image build settings (not in migrations/; roles.out expects them)
alter role supabase_admin set log_statement = none;
alter role supabase_auth_admin set log_statement = none;
alter role supabase_storage_admin set log_statement = none;

-- ============================================================================
-- GoTrue's own migrations, run by Supabase Auth as supabase_auth_admin on first start
-- ============================================================================
set role supabase_auth_admin;
-- 20220224000811_update_auth_functions
create or replace function auth.uid() returns uuid language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;
create or replace function auth.role() returns text language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;
create or replace function auth.email() returns text language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;
-- 20220531120530_add_auth_jwt_function
comment on function auth.uid() is 'Deprecated. Use auth.jwt() -> ''sub'' instead.';
comment on function auth.role() is 'Deprecated. Use auth.jwt() -> ''role'' instead.';
comment on function auth.email() is 'Deprecated. Use auth.jwt() -> ''email'' instead.';
create or replace function auth.jwt() returns jsonb language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;
-- 20240612123726_enable_rls_update_grants (for the auth tables that exist here)
alter table auth.schema_migrations enable row level security;
alter table auth.instances enable row level security;
alter table auth.users enable row level security;
alter table auth.audit_log_entries enable row level security;
alter table auth.refresh_tokens enable row level security;
grant select on auth.schema_migrations, auth.instances, auth.users, auth.audit_log_entries,
  auth.refresh_tokens to postgres with grant option;
reset role;

-- ============================================================================
-- PostgREST: the exposed schemas (config.toml [api] schemas), for the advisors' lints
-- ============================================================================
-- Hosted PostgREST reads db-schemas from its own configuration and from `pgrst.*` settings on
-- role authenticator (its in-database config; hosted role dumps show pgrst.db_schemas there).
-- The advisors' lints read current_setting('pgrst.db_schemas') in their own session (here
-- `postgres`), which the role setting does not reach: so it is also set for the database.
alter role authenticator set pgrst.db_schemas = 'public,graphql_public';
alter database postgres set pgrst.db_schemas = 'public,graphql_public';
