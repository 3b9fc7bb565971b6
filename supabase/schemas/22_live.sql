-- Change tracking and the live stream (contract section 14). Every tournament has a version,
-- raised once by each transaction that changes it, its stages, registrations, matches or games
-- (app.bump_version, from the triggers below); a request that changes nothing writes no row and
-- raises nothing. Each match keeps the version that last changed it and each match taken away
-- leaves a row in app.match_removals, so "what changed since version v" is an index range
-- (app.tournament_results' ?since=). The version is assigned under the tournament's row lock,
-- held to commit, so versions commit in order: a reader that has seen version v has seen every
-- change up to v.
--
-- The live stream (GET .../stream) is served by the `api` function: api.call opens it
-- (app.open_stream: at most 10 per key, a lease in app.streams), then each function instance
-- polls every tournament it streams in one statement (api.stream_poll) and closes each
-- stream's lease when it ends (api.stream_close). No LISTEN, no session state: any pooled connection of
-- any instance serves any poll.

-- ============================================================================
-- tables
-- ============================================================================
create table app.match_removals (
  tournament_id uuid not null,
  account_id uuid not null,
  match_id uuid not null,
  stage smallint not null,
  version bigint not null,
  primary key (tournament_id, version, match_id),
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade
);

comment on table app.match_removals is
  'Matches taken away (a swiss round drawn again) and the version that took them: ?since= names them in removed_matches.';

-- Open live streams, each a lease until expires_at (a little past the stream's longest life, so
-- a function instance that dies without closing frees its slots by then). Only the security
-- definer functions below read or write it: tournament_api_owner has no privilege on it.
create table app.streams (
  id uuid primary key default gen_random_uuid(),
  api_key_id uuid not null references app.api_keys (id) on delete cascade,
  account_id uuid not null references app.accounts (id) on delete cascade,
  tournament_id uuid not null,
  opened_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null
);

comment on table app.streams is 'Open live streams (GET .../stream): at most 10 live leases per key.';

-- ============================================================================
-- indexes
-- ============================================================================
create index match_removals_account_idx on app.match_removals (account_id, tournament_id);

create index streams_key_idx on app.streams (api_key_id, expires_at);

create index streams_expires_idx on app.streams (expires_at);

create index streams_account_idx on app.streams (account_id);

-- ============================================================================
-- functions
-- ============================================================================
-- Raises tournament p_id's version (app.tournament_versions), once per transaction, and returns
-- it; null: no such tournament, or one being deleted (a cascade's triggers ask too). Its callers
-- hold the tournament's row lock (every writer of a tournament takes it first), kept to commit:
-- versions commit in order. A look first: a transaction's later changes (a bracket's thousand
-- matches) cost a read, not a write.
create function app.bump_version(p_id uuid, p_account_id uuid) returns bigint
language plpgsql volatile
set search_path = ''
as $$
declare
  v_version bigint;
  v_xact xid8;
begin
  select v.version, v.xact into v_version, v_xact
    from app.tournaments t left join app.tournament_versions v on v.tournament_id = t.id where t.id = p_id;
  if not found or v_xact = pg_current_xact_id() then
    return v_version;
  end if;
  insert into app.tournament_versions as v (tournament_id, account_id, version, xact)
  values (p_id, p_account_id, 2, pg_current_xact_id())
  on conflict (tournament_id) do update set version = v.version + 1, xact = excluded.xact
   where v.xact is distinct from excluded.xact
  returning v.version into v_version;
  if v_version is null then
    select v.version into v_version from app.tournament_versions v where v.tournament_id = p_id;
  end if;
  return v_version;
end
$$;
comment on function app.bump_version(uuid, uuid) is
  'Raises a tournament''s version once per transaction; returns the version this transaction writes.';

-- ============================================================================
-- triggers
-- ============================================================================
-- A change of the tournament's own row raises its version.
create function app.tournament_version() returns trigger
language plpgsql volatile
set search_path = ''
as $$
begin
  perform app.bump_version(new.id, new.account_id);
  return null;
end
$$;

create trigger tournaments_version after update on app.tournaments
  for each row when (old.* is distinct from new.*) execute function app.tournament_version();

-- A match's version: the tournament's, raised by the match's change (after app.match_seeds, so
-- the seeds it sets are part of the change). An update that changes nothing raises nothing.
create function app.match_version() returns trigger
language plpgsql volatile
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' or new is distinct from old then
    new.version := coalesce(app.bump_version(new.tournament_id, new.account_id), new.version);
  end if;
  return new;
end
$$;

create trigger matches_version before insert or update on app.matches
  for each row execute function app.match_version();

-- A match taken away is remembered with the version that took it (not when its tournament goes).
create function app.match_removed() returns trigger
language plpgsql volatile
set search_path = ''
as $$
declare
  v_version bigint := app.bump_version(old.tournament_id, old.account_id);
begin
  if v_version is not null then
    insert into app.match_removals (tournament_id, account_id, match_id, stage, version)
    values (old.tournament_id, old.account_id, old.id, old.stage, v_version)
    on conflict do nothing;
  end if;
  return null;
end
$$;

create trigger matches_removed after delete on app.matches
  for each row execute function app.match_removed();

-- Registrations and stages raise their tournament's version.
create function app.child_version() returns trigger
language plpgsql volatile
set search_path = ''
as $$
begin
  if tg_op = 'DELETE' then
    perform app.bump_version(old.tournament_id, old.account_id);
  else
    perform app.bump_version(new.tournament_id, new.account_id);
  end if;
  return null;
end
$$;

create trigger registrations_version after insert or delete on app.registrations
  for each row execute function app.child_version();

create trigger registrations_version_update after update on app.registrations
  for each row when (old.* is distinct from new.*) execute function app.child_version();

create trigger stages_version after insert or delete on app.stages
  for each row execute function app.child_version();

create trigger stages_version_update after update on app.stages
  for each row when (old.* is distinct from new.*) execute function app.child_version();

-- A team renamed or retagged raises the version of every tournament still in registration it is
-- registered in (a started one keeps the names it started with: contract section 16); another
-- logo, of every tournament it is registered in (they all show it). Whoever changes it: PATCH
-- /teams/{id} or an operator in SQL.
create function app.team_version() returns trigger
language plpgsql volatile
set search_path = ''
as $$
begin
  perform app.team_changed(new.id, old.logo_url is distinct from new.logo_url);
  return null;
end
$$;

create trigger teams_version after update of name, tag, logo_url on app.teams
  for each row when (old.name is distinct from new.name or old.tag is distinct from new.tag
                     or old.logo_url is distinct from new.logo_url)
  execute function app.team_version();

-- ============================================================================
-- policies
-- ============================================================================
alter table app.match_removals enable row level security;

create policy "Match removals are visible to their account" on app.match_removals
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Match removals are recorded in the bound account" on app.match_removals
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- No policy: only the security definer functions below (owned by the migration role) use it.
alter table app.streams enable row level security;

-- ============================================================================
-- functions: conditional requests (api.call)
-- ============================================================================
-- The version a conditional request compares with, read before the operation runs (so an ETag
-- is never newer than the body it comes with): the tournament's, when what the request names
-- exists for the bound account (the tournament; the registration, match, game to delete or
-- stage; a ?stage= of the tournament); else null, and the operation answers its 404 (or 400) as
-- it would without the condition (RFC 9110 13.2.1: a request that would fail anyway ignores it).
create function app.current_version(p_op text, p_args jsonb, p_arg text) returns bigint
language plpgsql stable
set search_path = ''
as $$
declare
  v_id uuid;
  v_stages int;
  v_version bigint;
  v_number text := coalesce(p_args ->> 'number', p_args #>> '{query,stage}');
begin
  if p_arg is null or not pg_input_is_valid(p_args ->> p_arg, 'uuid') then
    return null;
  end if;
  v_id := (p_args ->> p_arg)::uuid;
  -- The stages are counted only for a request that names one (the list costs a tenth of a 304).
  if (p_op like 'stages.%' and p_args ? 'number') or (p_op in ('results.get', 'bracket.get') and v_number is not null) then
    select jsonb_array_length(app.stage_list(t)), coalesce(v.version, 1) into v_stages, v_version
      from app.tournaments t left join app.tournament_versions v on v.tournament_id = t.id where t.id = v_id;
    if found and not coalesce(pg_input_is_valid(v_number, 'int') and v_number::int between 1 and v_stages, false) then
      return null;
    end if;
  else
    select coalesce(v.version, 1) into v_version
      from app.tournaments t left join app.tournament_versions v on v.tournament_id = t.id where t.id = v_id;
  end if;
  if not found then
    return null;
  end if;
  if p_op like 'registrations.%' and p_args ? 'registration_id' and not exists (
       select from app.registrations r
        where r.tournament_id = v_id and pg_input_is_valid(p_args ->> 'registration_id', 'uuid')
          and r.id = (p_args ->> 'registration_id')::uuid) then
    return null;
  end if;
  if p_args ? 'match_id' and not exists (
       select from app.matches m
        where m.tournament_id = v_id and pg_input_is_valid(p_args ->> 'match_id', 'uuid')
          and m.id = (p_args ->> 'match_id')::uuid
          and (p_op <> 'games.delete' or (pg_input_is_valid(p_args ->> 'number', 'int')
                                          and (p_args ->> 'number')::int between 1 and jsonb_array_length(m.games)))) then
    return null;
  end if;
  return v_version;
end
$$;
comment on function app.current_version(text, jsonb, text) is
  'The tournament''s version for ETag, If-None-Match and If-Match, or null when what the request names does not exist.';

-- If-Match on a write: 412 precondition_failed unless the tournament's version is one of those
-- named. Takes the tournament's row lock first (as every writer of it does), then reads the
-- version, which cannot move between the comparison and the write. What does not exist passes:
-- the operation answers 404.
create function app.check_if_match(p_op text, p_args jsonb, p_arg text, p_versions jsonb) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_version bigint;
begin
  if pg_input_is_valid(p_args ->> p_arg, 'uuid') then
    perform from app.tournaments t where t.id = (p_args ->> p_arg)::uuid for no key update;
  end if;
  v_version := app.current_version(p_op, p_args, p_arg);
  if v_version is not null and not (p_versions @> to_jsonb(v_version)) then
    perform app.raise_error('precondition_failed', format(
      'The tournament has changed: it is at version %s, not the one in If-Match. Read it again and retry.', v_version));
  end if;
end
$$;
comment on function app.check_if_match(text, jsonb, text, jsonb) is
  'If-Match: 412 precondition_failed when the tournament''s version is none of those named (under its row lock).';

-- A team's name and tag are part of every tournament still in registration it is registered in
-- (registrations, standings), its logo of all of them: a change raises their versions
-- (p_all: a change every tournament shows, the logo), each under its tournament's row lock (as
-- every writer of a tournament), taken in id order (any account's: security definer, as
-- app.remove_team).
create function app.team_changed(p_team_id uuid, p_all boolean) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_t record;
begin
  for v_t in select t.id, t.account_id from app.tournaments t
              where t.id in (select r.tournament_id from app.registrations r where r.team_id = p_team_id)
                and (p_all or t.status = 'registration')
              order by t.id for no key update loop
    perform app.bump_version(v_t.id, v_t.account_id);
  end loop;
end
$$;
comment on function app.team_changed(uuid, boolean) is
  'Raises the version of the tournaments showing a team''s change: those in registration for a name or tag, all for a logo.';

-- ============================================================================
-- functions: the live stream
-- ============================================================================
-- A stream's lease for a key (security definer: app.streams has no policy): null when the key
-- already holds p_max live ones, with when the oldest of them ends (p_life seconds after it
-- opened). Serialised per key by an advisory lock, so p_max is exact under concurrency. Leases
-- that expired (an instance that died without closing its streams) are cleared on the way.
create function app.take_stream_lease(p_key_id uuid, p_account_id uuid, p_tournament_id uuid, p_max int,
                                      p_seconds int, p_life int, out stream_id uuid, out retry_after int)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
begin
  perform pg_advisory_xact_lock(hashtextextended('stream:' || p_key_id::text, 0));
  delete from app.streams s
   where s.id in (select x.id from app.streams x where x.expires_at <= v_now limit 100 for update skip locked);
  if (select count(*) from app.streams s where s.api_key_id = p_key_id and s.expires_at > v_now) >= p_max then
    retry_after := (select greatest(1, ceil(extract(epoch from min(s.opened_at) + make_interval(secs => p_life) - v_now)))::int
                      from app.streams s where s.api_key_id = p_key_id and s.expires_at > v_now);
    return;
  end if;
  insert into app.streams (api_key_id, account_id, tournament_id, expires_at)
  values (p_key_id, p_account_id, p_tournament_id, v_now + make_interval(secs => p_seconds))
  returning id into stream_id;
end
$$;
comment on function app.take_stream_lease(uuid, uuid, uuid, int, int, int) is
  'A live stream''s lease for a key, or null (and when one frees) when it holds the maximum already.';

-- The account and tournament of a live stream's lease; nulls once it has ended or expired.
create function app.stream_lease(p_stream_id uuid, out account_id uuid, out tournament_id uuid)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  select s.account_id, s.tournament_id into stream_lease.account_id, stream_lease.tournament_id
    from app.streams s where s.id = p_stream_id and s.expires_at > clock_timestamp();
end
$$;

create function app.end_stream_lease(p_stream_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  delete from app.streams s where s.id = p_stream_id;
end
$$;

-- GET .../stream through api.call (read:results): the lease, then the first event's data (the
-- results, or with Last-Event-ID the delta since that version). At most 10 open streams per
-- key: beyond, 429 rate_limited (api.call then counts nothing), with when a slot frees.
create function app.open_stream(p_args jsonb, p_key_id uuid) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  c_max constant int := 10;
  c_life_seconds constant int := 120; -- the function ends a stream within this
  c_lease_seconds constant int := 130;
  v_lease record;
  v_results json;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  if not exists (select from app.tournaments t where t.id = (p_args ->> 'tournament_id')::uuid) then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  select * into v_lease
    from app.take_stream_lease(p_key_id, app.current_account_id(), (p_args ->> 'tournament_id')::uuid, c_max,
                                c_lease_seconds, c_life_seconds);
  if v_lease.stream_id is null then
    perform app.raise_error('rate_limited', format('At most %s live streams may be open per key.', c_max),
      jsonb_build_array(jsonb_build_object('field', 'retry_after', 'message', v_lease.retry_after::text)));
  end if;
  v_results := app.tournament_results(p_args);
  return json_build_object('stream', v_lease.stream_id, 'version', (v_results -> 'tournament' ->> 'version')::bigint,
                           'data', v_results);
end
$$;
comment on function app.open_stream(jsonb, uuid) is
  'Opens a live stream: its lease (at most 10 per key) and the first event''s data.';

-- A function instance's poll of every tournament it streams, in one statement: for each
-- question {stream, since} (in order, ord from 1), as the stream's account (its lease must be
-- live), the tournament's version and, when it is past since, the results since then (the next
-- event's data). state: 'unchanged', 'changed', 'deleted' (the tournament is gone) or 'ended'
-- (the lease is not live). A public stream's question is {public: tournament id, since}: no
-- lease, and a tournament no longer public is 'deleted'.
create function api.stream_poll(p_asks jsonb)
returns table (ord int, state text, version bigint, data json)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_ask record;
  v_tournament_id uuid;
  v_account_id uuid;
begin
  perform set_config('synchronous_commit', 'off', true);
  for v_ask in select a.ordinality::int as n, a.value as q from jsonb_array_elements(p_asks) with ordinality a loop
    ord := v_ask.n;
    state := null;
    version := null;
    data := null;
    if not pg_input_is_valid(case when v_ask.q ? 'public' then v_ask.q ->> 'public' else v_ask.q ->> 'stream' end, 'uuid')
       or not pg_input_is_valid(v_ask.q ->> 'since', 'bigint') then
      state := 'ended';
      return next;
      continue;
    end if;
    if v_ask.q ? 'public' then
      -- A public stream (section 15): no lease; a tournament no longer public is gone from the
      -- public view ('deleted', as an unknown one).
      v_tournament_id := (v_ask.q ->> 'public')::uuid;
      v_account_id := app.public_account(v_tournament_id);
    else
      select l.tournament_id, l.account_id into v_tournament_id, v_account_id
        from app.stream_lease((v_ask.q ->> 'stream')::uuid) l;
    end if;
    if v_account_id is null then
      state := case when v_ask.q ? 'public' then 'deleted' else 'ended' end;
    else
      perform set_config('app.account_id', v_account_id::text, true);
      version := app.version_of(v_tournament_id);
      if version is null then
        state := 'deleted';
      elsif version <= (v_ask.q ->> 'since')::bigint then
        state := 'unchanged';
      else
        state := 'changed';
        data := app.tournament_results(jsonb_build_object('tournament_id', v_tournament_id,
                                                          'query', jsonb_build_object('since', (v_ask.q ->> 'since')::bigint)));
        version := (data -> 'tournament' ->> 'version')::bigint;
      end if;
    end if;
    return next;
  end loop;
  perform set_config('app.account_id', '', true);
end
$$;
comment on function api.stream_poll(jsonb) is
  'The live streams'' poll: per {stream | public, since}, the tournament''s version and, when past since, the delta since it.';

create function api.stream_close(p_stream_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  perform app.end_stream_lease(p_stream_id);
end
$$;
comment on function api.stream_close(uuid) is 'Ends a live stream''s lease (its slot of the key''s 10).';

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert on app.match_removals to tournament_api_owner;
grant execute on function app.bump_version(uuid, uuid) to tournament_api_owner;
grant execute on function app.tournament_version() to tournament_api_owner;
grant execute on function app.match_version() to tournament_api_owner;
grant execute on function app.match_removed() to tournament_api_owner;
grant execute on function app.child_version() to tournament_api_owner;
grant execute on function app.current_version(text, jsonb, text) to tournament_api_owner;
grant execute on function app.check_if_match(text, jsonb, text, jsonb) to tournament_api_owner;
grant execute on function app.team_changed(uuid, boolean) to tournament_api_owner;
grant execute on function app.team_version() to tournament_api_owner;
grant execute on function app.take_stream_lease(uuid, uuid, uuid, int, int, int) to tournament_api_owner;
grant execute on function app.stream_lease(uuid) to tournament_api_owner;
grant execute on function app.end_stream_lease(uuid) to tournament_api_owner;
grant execute on function app.open_stream(jsonb, uuid) to tournament_api_owner;
-- The api function's role may poll and close streams (a lease id is the capability: unguessable,
-- issued only by api.call after the key's checks, live 130 s at most).
grant execute on function api.stream_poll(jsonb) to tournament_api;
grant execute on function api.stream_close(uuid) to tournament_api;
grant create on schema api to tournament_api_owner;
alter function api.stream_poll(jsonb) owner to tournament_api_owner;
alter function api.stream_close(uuid) owner to tournament_api_owner;
revoke create on schema api from tournament_api_owner;
