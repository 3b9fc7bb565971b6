-- Tournaments: the table and its domain, the per-account counts behind the list's total, the
-- document (the API's JSON shape), slugs, the row lock every change takes, and reading (list,
-- get). Creating, changing and deleting them, with every field and status rule of the contract
-- (section 3), is in 06_tournament_changes.sql; the formats' options in 09_formats.sql.

-- ============================================================================
-- types
-- ============================================================================
-- The formats a tournament may take, listed once for SQL (functions/api/contract.ts has the
-- API's list; a test keeps the two equal).
create function app.formats() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['single_elimination', 'double_elimination', 'round_robin', 'swiss', 'ffa']
$$;
comment on function app.formats() is 'Every tournament format the API offers.';

create domain app.tournament_status as text
  check (value in ('registration', 'ongoing', 'completed'));

-- Who may see a tournament without a key (contract section 15): public ones by their slug.
create domain app.tournament_visibility as text
  check (value in ('private', 'public'));

-- ============================================================================
-- tables
-- ============================================================================
create table app.tournaments (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references app.accounts (id) on delete cascade,
  name text not null check (length(name) between 1 and 100 and name = btrim(name)),
  slug text not null unique,
  description text not null default '' check (length(description) <= 5000),
  game_id uuid not null,
  status app.tournament_status not null default 'registration',
  format text not null default 'single_elimination' constraint tournaments_format_check check (format = any (app.formats())),
  team_size int not null check (team_size between 1 and 100),
  max_teams int not null check (max_teams between 2 and 1024),
  entry_fee numeric(9, 2) not null default 0 check (entry_fee between 0 and 1000000),
  prize_pool numeric(11, 2) not null default 0 check (prize_pool between 0 and 100000000),
  starts_at timestamptz(3) not null,
  registration_closes timestamptz(3) not null,
  rules text not null default '' check (length(rules) <= 20000),
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  check_in_opens timestamptz(3),
  format_options jsonb not null default '{}',
  -- Stages (contract section 12): the definitions when the tournament was given `stages`, null
  -- for one stage made of format and format_options (app.stage_list); the stage being played.
  stages jsonb,
  stage smallint not null default 1 check (stage between 1 and 4),
  visibility app.tournament_visibility not null default 'private',
  -- Lineups (contract section 16): the substitutes a lineup may hold, and whether a full lineup
  -- (team_size players) is needed to check in and to start.
  substitutes_max int not null default 0 check (substitutes_max between 0 and 50),
  lineups text not null default 'off' check (lineups in ('off', 'required')),
  -- Participants (contract section 17): sign-ups wait for the organiser's approval (pending);
  -- past max_teams a registration waits in line (waitlisted) rather than being refused.
  approval boolean not null default false,
  waitlist boolean not null default false,
  -- Reported results (contract section 18): whether participants report their matches for the
  -- opponent to confirm, and how long a report waits before it counts as confirmed.
  participant_reporting text not null default 'off' check (participant_reporting in ('off', 'confirm')),
  report_confirm_minutes int not null default 15 check (report_confirm_minutes between 1 and 1440),
  unique (id, account_id),
  check (registration_closes <= starts_at),
  constraint tournaments_check_in_before_start check (check_in_opens <= starts_at)
);

comment on table app.tournaments is 'A tournament owned by one account: its format and options, dates, fees and status.';
comment on column app.tournaments.slug is 'Generated from the name at creation; stable afterwards.';
comment on column app.tournaments.visibility is
  'public: shown without a key at /public/tournaments/{slug} (contract section 15); private (the default): not.';
comment on column app.tournaments.check_in_opens is
  'When set, only teams checked in (from this time until the start) take part in the bracket.';
comment on column app.tournaments.format_options is
  'The format''s options, complete with their defaults (app.format_options); locked once ongoing.';
comment on column app.tournaments.stages is
  'The stages as defined (app.stage_definitions), 1-4 of {name, format, format_options, advance}; null: one stage of format and format_options.';
comment on column app.tournaments.stage is 'The number of the stage being played (1 until stage 2 starts).';

-- The list's pagination.total without counting the account's rows on every page: per account,
-- the number of tournaments by status, for all games (game_id = the nil UUID) and per game.
-- Kept by statement-level triggers in the same transaction as the change, so it is exact under
-- concurrency. Each count is split over 16 slots (the writer's backend pid mod 16) whose sum is
-- the count: a slot's row lock, held to commit, serialises only the writers that share it, so
-- one account's concurrent creates do not queue on one row (measured: one row per count cut
-- 16-connection creates in one account from ~660 to ~385 req/s). A slot's n may be negative (a
-- tournament created through one slot and deleted through another); only the sum means anything.
-- A transaction stays on one backend, so it uses one slot, and each statement takes its count
-- rows in one fixed order: writers cannot deadlock on them.
create table app.tournament_counts (
  account_id uuid not null references app.accounts (id) on delete cascade,
  game_id uuid not null,
  status app.tournament_status not null,
  slot smallint not null check (slot between 0 and 15),
  n bigint not null,
  primary key (account_id, game_id, status, slot)
);

comment on table app.tournament_counts is
  'Tournaments per account, status and game (game_id 00000000-… = every game), in 16 slots to sum: the list''s total.';

-- Each tournament's version (contract section 14), raised once by each transaction that changes
-- the tournament, its stages, registrations, matches or games (app.bump_version, 22_live.sql); a
-- tournament without a row here is at version 1. A narrow row of its own rather than a column:
-- raising it is a small update that fires none of the tournament's triggers (measured: as a
-- column of the tournament, POST registration into one tournament lost ~15% of its rate). xact
-- is the transaction that last raised it. Every writer of a tournament holds its row lock to
-- commit, so versions commit in order.
create table app.tournament_versions (
  tournament_id uuid primary key,
  account_id uuid not null,
  version bigint not null check (version >= 2),
  xact xid8 not null,
  foreign key (tournament_id, account_id) references app.tournaments (id, account_id) on delete cascade
);

comment on table app.tournament_versions is
  'Each changed tournament''s version (a tournament without a row is at 1): the ETag and ?since= of contract section 14.';

-- Every stage's definition, {name, format, format_options, advance} in order: the stored list,
-- or one stage made of format and format_options. (Used by the document below, so defined here.)
-- PL/pgSQL, not SQL: a SQL function with its own search_path is never inlined, so each call in a
-- new statement parsed its body again, copying the tournaments row type with its constraints
-- for every column it names (a quarter of a GET by id's time in Postgres, measured in issue 25).
create function app.stage_list(p_t app.tournaments) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
begin
  return coalesce(p_t.stages, jsonb_build_array(jsonb_build_object(
    'name', 'Stage 1', 'format', p_t.format, 'format_options', p_t.format_options, 'advance', null)));
end
$$;
comment on function app.stage_list(app.tournaments) is 'A tournament''s stage definitions, the one-stage shorthand included.';

create view app.tournament_documents with (security_invoker = true) as
  select t.id, t.account_id, t.status, t.game_id, t.created_at,
         json_build_object(
           'id', t.id, 'name', t.name, 'slug', t.slug, 'description', t.description,
           'game_id', t.game_id, 'status', t.status, 'format', t.format, 'format_options', t.format_options,
           'stages', app.stage_list(t), 'team_size', t.team_size, 'substitutes_max', t.substitutes_max,
           'lineups', t.lineups, 'max_teams', t.max_teams, 'approval', t.approval, 'waitlist', t.waitlist,
           'participant_reporting', t.participant_reporting, 'report_confirm_minutes', t.report_confirm_minutes,
           'entry_fee', t.entry_fee, 'prize_pool', t.prize_pool,
           'starts_at', to_char(t.starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'registration_closes', to_char(t.registration_closes at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'check_in_opens', to_char(t.check_in_opens at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'rules', t.rules, 'visibility', t.visibility,
           'created_at', to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'updated_at', to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'version', coalesce((select v.version from app.tournament_versions v where v.tournament_id = t.id), 1)) as doc
    from app.tournaments t;
comment on view app.tournament_documents is 'Each tournament with its API representation (doc).';

-- ============================================================================
-- indexes
-- ============================================================================
-- The list is always one account's, newest first; the filters narrow it further.
create index tournaments_account_created_idx on app.tournaments (account_id, created_at desc, id desc);

create index tournaments_account_status_created_idx
  on app.tournaments (account_id, status, created_at desc, id desc);

create index tournament_versions_account_idx on app.tournament_versions (account_id, tournament_id);

create index tournaments_account_game_created_idx
  on app.tournaments (account_id, game_id, created_at desc, id desc);

-- ============================================================================
-- triggers
-- ============================================================================
-- Applies the net change of one statement to app.tournament_counts: +1 for each new row's
-- (account, status) and (account, game, status), -1 for each old row's, into the slot of this
-- backend. A decrement for an account that is gone (the cascade of its deletion) is skipped, so
-- it cannot recreate the account's counts.
create function app.count_tournaments() returns trigger
language plpgsql volatile
set search_path = ''
as $$
declare
  v_rows jsonb; -- [{account_id, game_id, status, d}], d = +1 for a new row, -1 for an old one
begin
  -- Transition tables exist only for the events that have them, so each event reads its own.
  if tg_op = 'INSERT' then
    v_rows := (select jsonb_agg(jsonb_build_object('account_id', n.account_id, 'game_id', n.game_id,
                                                   'status', n.status, 'd', 1)) from new_rows n);
  elsif tg_op = 'DELETE' then
    v_rows := (select jsonb_agg(jsonb_build_object('account_id', o.account_id, 'game_id', o.game_id,
                                                   'status', o.status, 'd', -1)) from old_rows o);
  else
    v_rows := (select jsonb_agg(r) from (
                 select jsonb_build_object('account_id', n.account_id, 'game_id', n.game_id, 'status', n.status, 'd', 1) r
                   from new_rows n join old_rows o on o.id = n.id
                  where (n.status, n.game_id, n.account_id) is distinct from (o.status, o.game_id, o.account_id)
                 union all
                 select jsonb_build_object('account_id', o.account_id, 'game_id', o.game_id, 'status', o.status, 'd', -1)
                   from new_rows n join old_rows o on o.id = n.id
                  where (n.status, n.game_id, n.account_id) is distinct from (o.status, o.game_id, o.account_id)) x);
  end if;
  if v_rows is null then
    return null;
  end if;

  with delta as (
    select r.account_id, g.game_id, r.status, sum(r.d)::bigint as d
      from jsonb_to_recordset(v_rows) r (account_id uuid, game_id uuid, status text, d int)
     cross join lateral (values ('00000000-0000-0000-0000-000000000000'::uuid), (r.game_id)) g (game_id)
     group by 1, 2, 3
    having sum(r.d) <> 0)
  insert into app.tournament_counts as tc (account_id, game_id, status, slot, n)
  select d.account_id, d.game_id, d.status::app.tournament_status, (pg_backend_pid() % 16)::smallint, d.d
    from delta d
   where d.d > 0 or exists (select from app.accounts a where a.id = d.account_id)
   order by d.account_id, d.game_id, d.status
  on conflict (account_id, game_id, status, slot) do update set n = tc.n + excluded.n;
  return null;
end
$$;
comment on function app.count_tournaments() is
  'Statement trigger: applies the statement''s net change to app.tournament_counts.';

create trigger tournaments_count_insert after insert on app.tournaments
  referencing new table as new_rows for each statement execute function app.count_tournaments();

create trigger tournaments_count_update after update on app.tournaments
  referencing old table as old_rows new table as new_rows for each statement execute function app.count_tournaments();

create trigger tournaments_count_delete after delete on app.tournaments
  referencing old table as old_rows for each statement execute function app.count_tournaments();

-- ============================================================================
-- policies
-- ============================================================================
alter table app.tournaments enable row level security;

alter table app.tournament_counts enable row level security;

create policy "Tournament counts are visible to their account" on app.tournament_counts
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournament counts are created in the bound account" on app.tournament_counts
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournament counts are updated by their account" on app.tournament_counts
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournaments are visible to their account" on app.tournaments
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournaments are created in the bound account" on app.tournaments
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournaments are updated by their account" on app.tournaments
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournaments are deleted by their account" on app.tournaments
  for delete to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

alter table app.tournament_versions enable row level security;

create policy "Tournament versions are visible to their account" on app.tournament_versions
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournament versions are created in the bound account" on app.tournament_versions
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Tournament versions are raised by their account" on app.tournament_versions
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
-- ============================================================================
-- A tournament's version (1 until its first change; null: no such tournament to the caller).
create function app.version_of(p_id uuid) returns bigint
language plpgsql stable
set search_path = ''
as $$
begin
  return (select coalesce(v.version, 1) from app.tournaments t
            left join app.tournament_versions v on v.tournament_id = t.id where t.id = p_id);
end
$$;

create function app.slugify(p_name text) returns text
language plpgsql immutable strict
set search_path = ''
as $$
declare
  v text := lower(normalize(p_name, nfkd));
begin
  v := regexp_replace(v, '[\u0300-\u036f]', '', 'g');
  v := translate(v, 'øđłħŧı', 'odlhti');
  v := replace(replace(replace(replace(v, 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th');
  v := btrim(regexp_replace(v, '[^a-z0-9]+', '-', 'g'), '-');
  v := rtrim(left(v, 60), '-');
  return coalesce(nullif(v, ''), 'tournament');
end
$$;
comment on function app.slugify(text) is
  'The slug stem: lower-case ASCII, accents folded, other runs turned into one -, at most 60 chars.';

create function app.random_suffix() returns text
language plpgsql volatile
set search_path = ''
as $$
begin
  return (select string_agg(substr('abcdefghijklmnopqrstuvwxyz0123456789', get_byte(b, i) % 36 + 1, 1), '' order by i)
            from extensions.gen_random_bytes(6) b, generate_series(0, 5) i);
end
$$;

-- Loads a tournament of the bound account for change, or raises not_found.
create function app.lock_tournament(p_id uuid) returns app.tournaments
language plpgsql volatile
set search_path = ''
as $$
declare
  v_t app.tournaments;
begin
  select * into v_t from app.tournaments where id = p_id for no key update;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  return v_t;
end
$$;

-- The list: newest first, by page (OFFSET) or by keyset cursor. The cursor is opaque to clients:
-- 48 hex digits, the last row's created_at in microseconds since the epoch (16) and its id (32).
-- Ids are picked first from the covering indexes (one static query per filter shape, so each
-- gets its own plan), then only the page's rows are built; the total comes from the counts.
create function app.list_tournaments(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  c_nil constant uuid := '00000000-0000-0000-0000-000000000000';
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_page int;
  v_limit int;
  v_status text;
  v_game uuid;
  v_cursor text := v_query ->> 'cursor';
  v_after_ts timestamptz := 'infinity';
  v_after_id uuid := 'ffffffff-ffff-ffff-ffff-ffffffffffff';
  v_offset bigint;
  v_ids uuid[];
  v_next text;
  v_total bigint;
  v_data json;
begin
  perform app.check_input(v_query, '{"page": "int", "limit": "int", "status": "app.tournament_status", "game_id": "uuid"}');
  v_page := coalesce((v_query ->> 'page')::int, 1);
  v_limit := coalesce((v_query ->> 'limit')::int, 20);
  v_status := v_query ->> 'status';
  v_game := (v_query ->> 'game_id')::uuid;
  if v_page < 1 or v_limit not between 1 and 100 then
    perform app.raise_invalid(case when v_page < 1 then 'page' else 'limit' end, 'out of range');
  end if;
  if v_cursor is not null then
    if v_cursor !~ '^[0-9a-f]{48}$' then
      perform app.raise_invalid('cursor', 'must be a next_cursor value from a previous page');
    end if;
    v_after_ts := timestamptz 'epoch' + ('x' || left(v_cursor, 16))::bit(64)::bigint * interval '1 microsecond';
    v_after_id := right(v_cursor, 32)::uuid;
    v_page := null;
  end if;
  v_offset := case when v_page is null then 0 else (v_page - 1)::bigint * v_limit end;

  -- One more id than the page holds tells whether a next page exists.
  if v_status is null and v_game is null then
    v_ids := array(select t.id from app.tournaments t
                    where (t.created_at, t.id) < (v_after_ts, v_after_id)
                    order by t.created_at desc, t.id desc offset v_offset limit v_limit + 1);
  elsif v_game is null then
    v_ids := array(select t.id from app.tournaments t
                    where t.status = v_status and (t.created_at, t.id) < (v_after_ts, v_after_id)
                    order by t.created_at desc, t.id desc offset v_offset limit v_limit + 1);
  elsif v_status is null then
    v_ids := array(select t.id from app.tournaments t
                    where t.game_id = v_game and (t.created_at, t.id) < (v_after_ts, v_after_id)
                    order by t.created_at desc, t.id desc offset v_offset limit v_limit + 1);
  else
    v_ids := array(select t.id from app.tournaments t
                    where t.game_id = v_game and t.status = v_status and (t.created_at, t.id) < (v_after_ts, v_after_id)
                    order by t.created_at desc, t.id desc offset v_offset limit v_limit + 1);
  end if;

  if cardinality(v_ids) > v_limit then
    select lpad(to_hex(((extract(epoch from t.created_at) * 1000000)::bigint)), 16, '0') || replace(t.id::text, '-', '')
      into v_next from app.tournaments t where t.id = v_ids[v_limit];
  end if;

  select coalesce(sum(c.n), 0) into v_total from app.tournament_counts c
   where c.game_id = coalesce(v_game, c_nil) and (v_status is null or c.status = v_status);

  select coalesce(json_agg(d.doc order by d.created_at desc, d.id desc), '[]') into v_data
    from app.tournament_documents d where d.id = any (v_ids[1:v_limit]);

  return json_build_object('data', v_data,
    'pagination', json_build_object('page', v_page, 'limit', v_limit, 'total', v_total, 'next_cursor', v_next));
end
$$;

create function app.get_tournament(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_doc json;
begin
  perform app.check_input(p_args, '{"id": "uuid"}');
  select d.doc into v_doc from app.tournament_documents d where d.id = (p_args ->> 'id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  return v_doc;
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert, update, delete on app.tournaments to tournament_api_owner;
grant select, insert, update on app.tournament_counts to tournament_api_owner;
grant select on app.tournament_documents to tournament_api_owner;
grant select, insert, update on app.tournament_versions to tournament_api_owner;
grant execute on function app.version_of(uuid) to tournament_api_owner;
grant execute on function app.stage_list(app.tournaments) to tournament_api_owner;
grant execute on function app.count_tournaments() to tournament_api_owner;
grant execute on function app.slugify(text) to tournament_api_owner;
grant execute on function app.random_suffix() to tournament_api_owner;
grant execute on function app.lock_tournament(uuid) to tournament_api_owner;
grant execute on function app.list_tournaments(jsonb) to tournament_api_owner;
grant execute on function app.get_tournament(jsonb) to tournament_api_owner;