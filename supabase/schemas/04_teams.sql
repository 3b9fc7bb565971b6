-- Teams: operator-made (platform) teams and the teams an account makes through the API, which
-- it alone may change or delete (teams.account_id); any account may read and register any team
-- (registering is 07_registrations.sql). Players (contract section 16) are private to the account
-- that made them; a team's roster (app.team_members) is its owner's players, with a role and at
-- most one captain. A registration's lineup, copied from the roster, is 07_registrations.sql's.
-- Locks, always in this order: tournament rows (no key update, several in id order), then team
-- rows. Registering, starting and reporting take the tournament, then share the team (for key
-- share: app.share_team, or the foreign keys of registrations and matches). Renaming or deleting
-- a team takes every tournament it is registered in, then the team for update
-- (app.lock_team_and_tournaments), which keeps new registrations of it out until the end. So a
-- registration racing a team's deletion lands first or finds the team gone, and nothing
-- deadlocks (tests/teams/lock-order.test.ts races them all).

-- ============================================================================
-- tables
-- ============================================================================
create table app.teams (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(btrim(name)) between 1 and 100),
  tag text not null check (length(btrim(tag)) between 1 and 20),
  logo_url text check (logo_url ~ '^https?://'),
  created_at timestamptz not null default now(),
  account_id uuid references app.accounts (id) on delete set null,
  constraint teams_logo_url_length check (length(logo_url) <= 2048)
);

comment on table app.teams is
  'Teams any account may register: operator-made (no owner) or made by an account through the API.';
comment on column app.teams.account_id is
  'The account that made the team through the API and alone may change it; null for operator-made (platform) teams.';

create view app.team_documents with (security_invoker = true) as
  select tm.id, tm.account_id, tm.name,
         json_build_object('id', tm.id, 'name', tm.name, 'tag', tm.tag, 'logo_url', tm.logo_url,
           'owned', coalesce(tm.account_id = (select nullif(current_setting('app.account_id', true), '')::uuid), false),
           'created_at', to_char(tm.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.teams tm;
comment on view app.team_documents is 'Each team with its API representation (doc); owned is the bound account''s.';

-- A person who plays (or coaches): private to the account that made them. The function checks
-- the shapes first (resources/players.ts); the checks here keep the rules where the data is.
create table app.players (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references app.accounts (id) on delete cascade,
  handle text not null check (length(handle) between 1 and 50 and handle = btrim(handle)),
  name text check (length(name) <= 100),
  country text check (country ~ '^[A-Z]{2}$'),
  external_id text check (length(external_id) between 1 and 200),
  game_accounts jsonb not null default '{}' check (jsonb_typeof(game_accounts) = 'object'),
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  constraint players_external_id_key unique (account_id, external_id)
);

comment on table app.players is 'A player of one account (contract section 16): never visible to another account.';
comment on column app.players.external_id is 'The organiser''s own id for the player; unique in the account.';
comment on column app.players.game_accounts is 'The player''s game accounts: {provider: id}.';

-- A team's standing members: players of the team's own account, in the order they were added.
create table app.team_members (
  team_id uuid not null references app.teams (id) on delete cascade,
  player_id uuid not null references app.players (id) on delete cascade,
  account_id uuid not null,
  role text not null check (role in ('player', 'substitute', 'coach')),
  captain boolean not null default false,
  seq bigint generated always as identity,
  primary key (team_id, player_id)
);

comment on table app.team_members is 'A team''s roster: the owning account''s players with a role and at most one captain.';
comment on column app.team_members.account_id is 'The team''s (and player''s) account, copied so that RLS needs no join.';

create view app.player_documents with (security_invoker = true) as
  select p.id, p.account_id, p.handle,
         json_build_object('id', p.id, 'handle', p.handle, 'name', p.name, 'country', p.country,
           'external_id', p.external_id, 'game_accounts', p.game_accounts,
           'created_at', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'updated_at', to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.players p;
comment on view app.player_documents is 'Each player with its API representation (doc).';

-- ============================================================================
-- indexes
-- ============================================================================
create index teams_name_idx on app.teams (name, id);

create index teams_account_name_idx on app.teams (account_id, name, id);

create index players_account_handle_idx on app.players (account_id, handle, id);

-- A team has at most one captain.
create unique index team_members_captain_key on app.team_members (team_id) where captain;

create index team_members_player_idx on app.team_members (player_id);

create index team_members_account_idx on app.team_members (account_id);

-- ============================================================================
-- policies
-- ============================================================================
alter table app.teams enable row level security;

create policy "Teams are visible once an account is bound" on app.teams
  for select to tournament_api_owner using ((select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)) is not null);

create policy "Teams are created in the bound account" on app.teams
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Teams are updated by their account" on app.teams
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

alter table app.players enable row level security;

create policy "Players are visible to their account" on app.players
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Players are created in the bound account" on app.players
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Players are updated by their account" on app.players
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Players are deleted by their account" on app.players
  for delete to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

alter table app.team_members enable row level security;

create policy "Team members are visible to their account" on app.team_members
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- A new member's team and player are the row's account's too: an account cannot put another's
-- player on its team, nor a member on another's team (the foreign keys alone would take any).
create policy "Team members are added in the bound account" on app.team_members
  for insert to tournament_api_owner with check (
    account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v))
    and exists (select from app.teams t where t.id = team_members.team_id and t.account_id = team_members.account_id)
    and exists (select from app.players p where p.id = team_members.player_id and p.account_id = team_members.account_id));

create policy "Team members are updated by their account" on app.team_members
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Team members are removed by their account" on app.team_members
  for delete to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
-- ============================================================================
-- Operators (admin.*): a platform team, owned by no account, that any account may register.
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

-- Trims and checks a team's name, tag and logo URL as SQL stores them (the function checks the
-- same first; these keep the rule where the data is).
create function app.team_fields(p_body jsonb, p_old app.teams default null,
                                out name text, out tag text, out logo_url text)
language plpgsql immutable
set search_path = ''
as $$
begin
  name := case when p_body ? 'name' then btrim(p_body ->> 'name') else p_old.name end;
  tag := case when p_body ? 'tag' then btrim(p_body ->> 'tag') else p_old.tag end;
  logo_url := case when p_body ? 'logo_url' then p_body ->> 'logo_url' else p_old.logo_url end;
  if name is null or length(name) not between 1 and 100 then
    perform app.raise_invalid('name', 'must be 1 to 100 characters after trimming');
  end if;
  if tag is null or length(tag) not between 1 and 20 then
    perform app.raise_invalid('tag', 'must be 1 to 20 characters after trimming');
  end if;
  if logo_url is not null and (logo_url !~ '^https?://[^\s/?#]+' or length(logo_url) > 2048) then
    perform app.raise_invalid('logo_url', 'must be an http(s) URL of at most 2048 characters');
  end if;
end
$$;

-- Teams: every team, by name then id; search on name or tag (substring, any case, literal);
-- owned=true keeps the bound account's, owned=false the others'.
create function app.list_teams(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_account uuid := app.current_account_id();
  v_page int;
  v_limit int;
  v_owned boolean;
  v_pattern text;
  v_total bigint;
  v_data json;
begin
  perform app.check_input(v_query, '{"page": "int", "limit": "int", "owned": "boolean"}');
  v_page := coalesce((v_query ->> 'page')::int, 1);
  v_limit := coalesce((v_query ->> 'limit')::int, 20);
  v_owned := (v_query ->> 'owned')::boolean;
  if v_page < 1 or v_limit not between 1 and 100 then
    perform app.raise_invalid(case when v_page < 1 then 'page' else 'limit' end, 'out of range');
  end if;
  if length(v_query ->> 'search') > 100 then
    perform app.raise_invalid('search', 'must be at most 100 characters');
  end if;
  v_pattern := '%' || replace(replace(replace(coalesce(v_query ->> 'search', ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';

  -- The filters on the table's columns; only the page's rows are built.
  select count(*) into v_total from app.teams t
   where (v_pattern = '%%' or t.name ilike v_pattern or t.tag ilike v_pattern)
     and (v_owned is null or (t.account_id = v_account) = v_owned or (t.account_id is null and not v_owned));
  select coalesce(json_agg(d.doc order by d.name, d.id), '[]') into v_data
    from app.team_documents d
   where d.id = any (array(
     select t.id from app.teams t
      where (v_pattern = '%%' or t.name ilike v_pattern or t.tag ilike v_pattern)
        and (v_owned is null or (t.account_id = v_account) = v_owned or (t.account_id is null and not v_owned))
      order by t.name, t.id
     offset (v_page - 1)::bigint * v_limit limit v_limit));

  return json_build_object('data', v_data,
    'pagination', json_build_object('page', v_page, 'limit', v_limit, 'total', v_total, 'next_cursor', null));
end
$$;

create function app.get_team(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_doc json;
begin
  perform app.check_input(p_args, '{"team_id": "uuid"}');
  select d.doc into v_doc from app.team_documents d where d.id = (p_args ->> 'team_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Team not found.');
  end if;
  return v_doc;
end
$$;

create function app.create_team(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_f record;
  v_id uuid;
begin
  select * into v_f from app.team_fields(coalesce(p_args -> 'body', '{}'));
  insert into app.teams (name, tag, logo_url, account_id)
  values (v_f.name, v_f.tag, v_f.logo_url, app.current_account_id())
  returning id into v_id;
  return (select d.doc from app.team_documents d where d.id = v_id);
end
$$;

-- A team of the bound account (not locked: app.lock_team_and_tournaments does that); 404 if there
-- is none, 403 team_not_owned if it is a platform team or another account's (readable by all, so
-- its existence is no secret).
create function app.own_team(p_id uuid) returns app.teams
language plpgsql volatile
set search_path = ''
as $$
declare
  v_team app.teams;
begin
  select * into v_team from app.teams where id = p_id;
  if not found then
    perform app.raise_error('not_found', 'Team not found.');
  end if;
  if v_team.account_id is distinct from app.current_account_id() then
    perform app.raise_error('team_not_owned', 'This team is not owned by your account; it can be read and registered, not changed.');
  end if;
  return v_team;
end
$$;

-- Locks a team of the bound account for a change every tournament it is registered in shows
-- (rename, deletion), in the order of the header: those tournaments' rows first (id order), then
-- the team's, for update, so that no registration of it lands until the transaction ends. A
-- registration committed between reading the tournaments and locking the team would need its
-- tournament locked after the team: then every lock taken here is let go (the block's
-- subtransaction rolled back) and all are taken again, in order. False if the team is gone.
-- Security definer: those tournaments and their registrations are any account's.
create function app.lock_team_and_tournaments(p_team_id uuid) returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_tournaments uuid[];
begin
  for v_attempt in 1..50 loop
    begin
      v_tournaments := array(select distinct r.tournament_id from app.registrations r where r.team_id = p_team_id);
      perform from app.tournaments t where t.id = any (v_tournaments) order by t.id for no key update;
      perform from app.teams tm where tm.id = p_team_id
         and tm.account_id = (select nullif(current_setting('app.account_id', true), '')::uuid)
         for update;
      if not found then
        return false;
      end if;
      if not exists (select from app.registrations r
                      where r.team_id = p_team_id and r.tournament_id <> all (v_tournaments)) then
        return true; -- the block's locks stay with the transaction
      end if;
      raise exception using errcode = 'TAREL'; -- let go of them, take them again
    exception when sqlstate 'TAREL' then
      null;
    end;
  end loop;
  -- 50 registrations of one team, each landing in the instant between two reads: give up
  -- cleanly (503, nothing done) rather than lock out of order.
  raise exception 'the team''s registrations kept changing while it was being locked'
    using errcode = '40001';
end
$$;
comment on function app.lock_team_and_tournaments(uuid) is
  'Locks the tournaments a team of the bound account is registered in, then the team (for update); false if it is gone.';

create function app.update_team(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_team app.teams;
  v_f record;
begin
  perform app.check_input(p_args, '{"team_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  if not app.lock_team_and_tournaments(v_team.id) then
    perform app.raise_error('not_found', 'Team not found.');
  end if;
  select * into v_team from app.teams t where t.id = v_team.id; -- as it is now, under the lock
  select * into v_f from app.team_fields(coalesce(p_args -> 'body', '{}'), v_team);
  -- Its tournaments show it: their versions go up (the trigger teams_version, 22_live.sql).
  update app.teams t set name = v_f.name, tag = v_f.tag, logo_url = v_f.logo_url
   where t.id = v_team.id and (t.name, t.tag, t.logo_url) is distinct from (v_f.name, v_f.tag, v_f.logo_url);
  return (select d.doc from app.team_documents d where d.id = v_team.id);
end
$$;

-- Deletes a team of the bound account with its registrations in tournaments still in
-- registration, whichever account they belong to; 'in_use' (and nothing deleted) if it is
-- registered in a tournament that has started. Security definer: those registrations are
-- other accounts' rows.
create function app.remove_team(p_team_id uuid) returns text
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_tournament_id uuid;
begin
  if not app.lock_team_and_tournaments(p_team_id) then
    return 'gone';
  end if;
  if exists (select from app.registrations r join app.tournaments t on t.id = r.tournament_id
              where r.team_id = p_team_id and t.status <> 'registration') then
    return 'in_use';
  end if;
  for v_tournament_id in with gone as (delete from app.registrations r where r.team_id = p_team_id
                                       returning r.tournament_id, r.state)
                        select g.tournament_id from gone g where g.state = 'accepted'
  loop
    -- the slot it held goes to the oldest waitlisted registration
    perform app.fill_slots((select t from app.tournaments t where t.id = v_tournament_id));
  end loop;
  delete from app.teams tm where tm.id = p_team_id;
  return 'removed';
end
$$;
comment on function app.remove_team(uuid) is
  'Deletes a team of the bound account and its open registrations (any account''s); in_use if a started tournament has it.';

create function app.delete_team(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_team app.teams;
begin
  perform app.check_input(p_args, '{"team_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  case app.remove_team(v_team.id)
    when 'in_use' then
      perform app.raise_error('team_in_use',
        'The team is registered in a tournament that has started; it cannot be deleted.');
    when 'gone' then
      perform app.raise_error('not_found', 'Team not found.');
    else
      null;
  end case;
  return json_build_object('message', 'Team deleted');
end
$$;

-- A team, locked against deletion (for key share) until the transaction ends; null if there is
-- none. Security definer: a lock asks the table's UPDATE policies too, which let an account
-- lock only its own teams, and any team may be registered.
create function app.share_team(p_id uuid) returns app.teams
language sql volatile security definer
set search_path = ''
as $$
  select * from app.teams where id = p_id for key share
$$;

-- ----------------------------------------------------------------------------
-- players (contract section 16): the body's shapes are the function's (resources/players.ts)
-- ----------------------------------------------------------------------------
-- Players of the bound account, by handle then id; search on handle, name or external_id
-- (substring, any case, literal); external_id exact.
create function app.list_players(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_page int;
  v_limit int;
  v_external text := v_query ->> 'external_id';
  v_pattern text;
  v_total bigint;
  v_data json;
begin
  perform app.check_input(v_query, '{"page": "int", "limit": "int"}');
  v_page := coalesce((v_query ->> 'page')::int, 1);
  v_limit := coalesce((v_query ->> 'limit')::int, 20);
  v_pattern := '%' || replace(replace(replace(coalesce(v_query ->> 'search', ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  select count(*) into v_total from app.players p
   where (v_pattern = '%%' or p.handle ilike v_pattern or p.name ilike v_pattern or p.external_id ilike v_pattern)
     and (v_external is null or p.external_id = v_external);
  select coalesce(json_agg(d.doc order by d.handle, d.id), '[]') into v_data
    from app.player_documents d
   where d.id = any (array(
     select p.id from app.players p
      where (v_pattern = '%%' or p.handle ilike v_pattern or p.name ilike v_pattern or p.external_id ilike v_pattern)
        and (v_external is null or p.external_id = v_external)
      order by p.handle, p.id
     offset (v_page - 1)::bigint * v_limit limit v_limit));
  return json_build_object('data', v_data,
    'pagination', json_build_object('page', v_page, 'limit', v_limit, 'total', v_total, 'next_cursor', null));
end
$$;

-- A player of the bound account (RLS: another account's is not found).
create function app.get_player(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_doc json;
begin
  perform app.check_input(p_args, '{"player_id": "uuid"}');
  select d.doc into v_doc from app.player_documents d where d.id = (p_args ->> 'player_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  return v_doc;
end
$$;

create function app.create_player(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_id uuid;
begin
  begin
    insert into app.players (account_id, handle, name, country, external_id, game_accounts)
    values (app.current_account_id(), btrim(v_body ->> 'handle'), v_body ->> 'name', v_body ->> 'country',
            v_body ->> 'external_id', coalesce(v_body -> 'game_accounts', '{}'))
    returning id into v_id;
  exception when unique_violation then
    perform app.raise_error('external_id_taken',
      format('Another player of your account has external_id %s.', v_body ->> 'external_id'));
  end;
  return (select d.doc from app.player_documents d where d.id = v_id);
end
$$;

-- Locks a player of the bound account for a change its lineups show (a new handle, a deletion),
-- in the order 04_teams.sql's header gives: the tournaments whose lineups hold the player first
-- (id order), then the player's row, for update, so that no lineup takes the player until the
-- transaction ends; a lineup committed in between is let go of and all taken again, as
-- app.lock_team_and_tournaments does. False if the player is not found.
create function app.lock_player_and_tournaments(p_player_id uuid) returns boolean
language plpgsql volatile
set search_path = ''
as $$
declare
  v_tournaments uuid[];
begin
  for v_attempt in 1..50 loop
    begin
      v_tournaments := array(select distinct e.tournament_id from app.lineup_entries e where e.player_id = p_player_id);
      perform from app.tournaments t where t.id = any (v_tournaments) order by t.id for no key update;
      perform from app.players p where p.id = p_player_id for update;
      if not found then
        return false;
      end if;
      if not exists (select from app.lineup_entries e
                      where e.player_id = p_player_id and e.tournament_id <> all (v_tournaments)) then
        return true;
      end if;
      raise exception using errcode = 'TAREL';
    exception when sqlstate 'TAREL' then
      null;
    end;
  end loop;
  raise exception 'the player''s lineups kept changing while it was being locked' using errcode = '40001';
end
$$;

-- PATCH: the fields sent. A new handle or country reaches the lineups of tournaments still in
-- registration (a started one keeps its lineups as they were played), raising their versions.
create function app.update_player(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_old app.players;
  v_new app.players;
begin
  perform app.check_input(p_args, '{"player_id": "uuid"}');
  if not app.lock_player_and_tournaments((p_args ->> 'player_id')::uuid) then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  select * into v_old from app.players p where p.id = (p_args ->> 'player_id')::uuid;
  v_new := jsonb_populate_record(v_old, v_body - 'id' - 'account_id' - 'created_at' - 'updated_at');
  v_new.handle := btrim(v_new.handle);
  v_new.game_accounts := coalesce(v_new.game_accounts, '{}');
  if (v_new.handle, v_new.name, v_new.country, v_new.external_id, v_new.game_accounts)
     is not distinct from (v_old.handle, v_old.name, v_old.country, v_old.external_id, v_old.game_accounts) then
    return (select d.doc from app.player_documents d where d.id = v_old.id);
  end if;
  begin
    update app.players p
       set handle = v_new.handle, name = v_new.name, country = v_new.country, external_id = v_new.external_id,
           game_accounts = v_new.game_accounts, updated_at = now()
     where p.id = v_old.id;
  exception when unique_violation then
    perform app.raise_error('external_id_taken',
      format('Another player of your account has external_id %s.', v_new.external_id));
  end;
  if (v_new.handle, v_new.country) is distinct from (v_old.handle, v_old.country) then
    with changed as (
      update app.lineup_entries e set handle = v_new.handle, country = v_new.country
        from app.tournaments t
       where e.player_id = v_old.id and t.id = e.tournament_id and t.status = 'registration'
      returning e.registration_id)
    update app.registrations r set lineup = app.lineup_json(r.id), lineup_rev = r.lineup_rev + 1
     where r.id in (select c.registration_id from changed c);
  end if;
  return (select d.doc from app.player_documents d where d.id = v_old.id);
end
$$;

-- DELETE: 409 player_in_use while a started tournament's lineup holds the player; otherwise the
-- player leaves every roster and open lineup (those registrations' versions go up).
create function app.delete_player(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_lineups uuid[];
begin
  perform app.check_input(p_args, '{"player_id": "uuid"}');
  if not app.lock_player_and_tournaments((p_args ->> 'player_id')::uuid) then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  if exists (select from app.lineup_entries e join app.tournaments t on t.id = e.tournament_id
              where e.player_id = (p_args ->> 'player_id')::uuid and t.status <> 'registration') then
    perform app.raise_error('player_in_use',
      'The player is in the lineup of a tournament that has started; they cannot be deleted.');
  end if;
  v_lineups := array(select e.registration_id from app.lineup_entries e where e.player_id = (p_args ->> 'player_id')::uuid);
  delete from app.players p where p.id = (p_args ->> 'player_id')::uuid; -- and their roster and lineup entries
  update app.registrations r set lineup = app.lineup_json(r.id), lineup_rev = r.lineup_rev + 1 where r.id = any (v_lineups);
  return json_build_object('message', 'Player deleted');
end
$$;

-- ----------------------------------------------------------------------------
-- rosters: a team's members, its owning account's players
-- ----------------------------------------------------------------------------
-- A member as the API shows it: the player's fields with role and captain.
create function app.member_document(p_team_id uuid, p_player_id uuid) returns json
language sql stable
set search_path = ''
as $$
  select (d.doc::jsonb || jsonb_build_object('role', m.role, 'captain', m.captain))::json
    from app.team_members m join app.player_documents d on d.id = m.player_id
   where m.team_id = p_team_id and m.player_id = p_player_id
$$;

create function app.list_roster(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_team app.teams;
begin
  perform app.check_input(p_args, '{"team_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  return (select coalesce(json_agg((d.doc::jsonb || jsonb_build_object('role', m.role, 'captain', m.captain)) order by m.seq), '[]')
            from app.team_members m join app.player_documents d on d.id = m.player_id
           where m.team_id = v_team.id);
end
$$;

-- PUT: adds the player or changes their role; a new captain is the team's only one. The team's
-- row (for no key update) orders the roster changes of a team; the player's (for key share)
-- orders this change and the player's deletion.
create function app.put_roster_member(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_team app.teams;
  v_player uuid;
  v_captain boolean := coalesce((p_args #>> '{body,captain}')::boolean, false);
begin
  perform app.check_input(p_args, '{"team_id": "uuid", "player_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  perform from app.teams t where t.id = v_team.id for no key update;
  if not found then
    perform app.raise_error('not_found', 'Team not found.'); -- deleted meanwhile
  end if;
  -- (For key share: a deletion of the player waits for this change, or this finds it gone.)
  select p.id into v_player from app.players p where p.id = (p_args ->> 'player_id')::uuid for key share;
  if v_player is null then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  if v_captain then
    update app.team_members m set captain = false where m.team_id = v_team.id and m.captain and m.player_id <> v_player;
  end if;
  insert into app.team_members (team_id, player_id, account_id, role, captain)
  values (v_team.id, v_player, v_team.account_id, p_args #>> '{body,role}', v_captain)
  on conflict (team_id, player_id) do update set role = excluded.role, captain = excluded.captain;
  return app.member_document(v_team.id, v_player);
end
$$;

create function app.delete_roster_member(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_team app.teams;
begin
  perform app.check_input(p_args, '{"team_id": "uuid", "player_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  perform from app.teams t where t.id = v_team.id for no key update;
  if not found then
    perform app.raise_error('not_found', 'Team not found.'); -- deleted meanwhile
  end if;
  delete from app.team_members m where m.team_id = v_team.id and m.player_id = (p_args ->> 'player_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Player not found on this team.');
  end if;
  return json_build_object('message', 'Player removed');
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant select on app.teams to tournament_api_owner;
grant insert (name, tag, logo_url, account_id), update (name, tag, logo_url) on app.teams to tournament_api_owner;
grant select on app.team_documents to tournament_api_owner;
grant execute on function app.team_fields(jsonb, app.teams) to tournament_api_owner;
grant execute on function app.list_teams(jsonb) to tournament_api_owner;
grant execute on function app.get_team(jsonb) to tournament_api_owner;
grant execute on function app.create_team(jsonb) to tournament_api_owner;
grant execute on function app.own_team(uuid) to tournament_api_owner;
grant execute on function app.lock_team_and_tournaments(uuid) to tournament_api_owner;
grant execute on function app.update_team(jsonb) to tournament_api_owner;
grant execute on function app.remove_team(uuid) to tournament_api_owner;
grant execute on function app.delete_team(jsonb) to tournament_api_owner;
grant execute on function app.share_team(uuid) to tournament_api_owner;
grant select, insert, delete on app.players to tournament_api_owner;
grant update (handle, name, country, external_id, game_accounts, updated_at) on app.players to tournament_api_owner;
grant select on app.player_documents to tournament_api_owner;
grant select, insert, delete on app.team_members to tournament_api_owner;
grant update (role, captain) on app.team_members to tournament_api_owner;
grant execute on function app.list_players(jsonb) to tournament_api_owner;
grant execute on function app.get_player(jsonb) to tournament_api_owner;
grant execute on function app.create_player(jsonb) to tournament_api_owner;
grant execute on function app.lock_player_and_tournaments(uuid) to tournament_api_owner;
grant execute on function app.update_player(jsonb) to tournament_api_owner;
grant execute on function app.delete_player(jsonb) to tournament_api_owner;
grant execute on function app.member_document(uuid, uuid) to tournament_api_owner;
grant execute on function app.list_roster(jsonb) to tournament_api_owner;
grant execute on function app.put_roster_member(jsonb) to tournament_api_owner;
grant execute on function app.delete_roster_member(jsonb) to tournament_api_owner;
