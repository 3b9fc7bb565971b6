-- Teams: operator-made (platform) teams and the teams an account makes through the API, which
-- it alone may change or delete (teams.account_id); any account may read and register any team
-- (registering is 07_registrations.sql).
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

-- ============================================================================
-- indexes
-- ============================================================================
create index teams_name_idx on app.teams (name, id);

create index teams_account_name_idx on app.teams (account_id, name, id);

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
begin
  if not app.lock_team_and_tournaments(p_team_id) then
    return 'gone';
  end if;
  if exists (select from app.registrations r join app.tournaments t on t.id = r.tournament_id
              where r.team_id = p_team_id and t.status <> 'registration') then
    return 'in_use';
  end if;
  delete from app.registrations r where r.team_id = p_team_id;
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