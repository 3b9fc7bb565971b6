-- Clients without an operator (contract section 9): teams made and managed through the API,
-- key introspection (GET /me), the registration lifecycle (withdraw, seed, payment, check-in),
-- seeding at start, and match scheduling and forfeits.
--
-- Teams: any account may read and register any team; a team made through the API is owned by
-- its account (teams.account_id), which alone may change or delete it; operator-made teams have
-- no owner. Deleting a team reaches registrations in other accounts' tournaments, which the
-- account cannot see: app.remove_team (security definer) does that one job after the ownership
-- check, and answers only "in use" or "removed".
--
-- Locks, always in this order: tournament rows (no key update), then the team row. Registering
-- takes the tournament, then the team (for key share); deleting a team takes the tournaments it
-- is registered in, then the team (for update). So a registration racing a team's deletion
-- either lands first (and the deletion sees it) or finds the team gone (404), and the two
-- cannot deadlock.

-- ============================================================================
-- scopes
-- ============================================================================
create or replace function app.scopes() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['read:tournaments', 'write:tournaments', 'read:registrations',
               'write:registrations', 'read:results', 'write:results', 'read:teams', 'write:teams']
$$;

-- ============================================================================
-- tables
-- ============================================================================
alter table app.teams
  add column account_id uuid references app.accounts (id) on delete set null,
  add constraint teams_logo_url_length check (length(logo_url) <= 2048) not valid;
comment on column app.teams.account_id is
  'The account that made the team through the API and alone may change it; null for operator-made (platform) teams.';
comment on table app.teams is
  'Teams any account may register: operator-made (no owner) or made by an account through the API.';

alter table app.tournaments
  add column check_in_opens timestamptz(3),
  add constraint tournaments_check_in_before_start check (check_in_opens <= starts_at);
comment on column app.tournaments.check_in_opens is
  'When set, only teams checked in (from this time until the start) take part in the bracket.';

alter table app.registrations
  add column seed int check (seed between 1 and 1024),
  add column checked_in_at timestamptz(3),
  add column bracket_seed int check (bracket_seed >= 1),
  add constraint registrations_seed_key unique (tournament_id, seed);
comment on column app.registrations.seed is 'The seed the organiser asked for; seeded teams come first at the start.';
comment on column app.registrations.bracket_seed is
  'The team''s seed in the bracket (1..N), given at the start; null for a team that took no part.';

alter table app.matches
  add column scheduled_at timestamptz(3),
  add column forfeit text check (forfeit in ('team1', 'team2')),
  add constraint matches_forfeit_has_no_score check (forfeit is null or (team1_score is null and team2_score is null));
comment on column app.matches.forfeit is 'The team that forfeited a completed match (the other won); null otherwise.';

-- ============================================================================
-- indexes
-- ============================================================================
create index teams_name_idx on app.teams (name, id);
create index teams_account_name_idx on app.teams (account_id, name, id);

-- ============================================================================
-- RLS + policies
-- ============================================================================
create policy "Teams are created in the bound account" on app.teams
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Teams are updated by their account" on app.teams
  for update to tournament_api_owner
  using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid))
  with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));

create policy "Registrations are updated by their account" on app.registrations
  for update to tournament_api_owner
  using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid))
  with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Registrations are withdrawn by their account" on app.registrations
  for delete to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));

-- ============================================================================
-- views
-- ============================================================================
create view app.team_documents with (security_invoker = true) as
  select tm.id, tm.account_id, tm.name,
         json_build_object('id', tm.id, 'name', tm.name, 'tag', tm.tag, 'logo_url', tm.logo_url,
           'owned', coalesce(tm.account_id = (select nullif(current_setting('app.account_id', true), '')::uuid), false),
           'created_at', to_char(tm.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.teams tm;
comment on view app.team_documents is 'Each team with its API representation (doc); owned is the bound account''s.';

create or replace view app.tournament_documents with (security_invoker = true) as
  select t.id, t.account_id, t.status, t.game_id, t.created_at,
         json_build_object(
           'id', t.id, 'name', t.name, 'slug', t.slug, 'description', t.description,
           'game_id', t.game_id, 'status', t.status, 'format', t.format,
           'team_size', t.team_size, 'max_teams', t.max_teams,
           'entry_fee', t.entry_fee, 'prize_pool', t.prize_pool,
           'starts_at', to_char(t.starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'registration_closes', to_char(t.registration_closes at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'check_in_opens', to_char(t.check_in_opens at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'rules', t.rules,
           'created_at', to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'updated_at', to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.tournaments t;

create or replace view app.registration_documents with (security_invoker = true) as
  select r.id, r.tournament_id, r.payment_status, r.seq,
         json_build_object('id', r.id, 'tournament_id', r.tournament_id, 'team_id', r.team_id,
           'payment_status', r.payment_status,
           'registered_at', to_char(r.registered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'seed', r.seed,
           'checked_in_at', to_char(r.checked_in_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'teams', json_build_object('id', tm.id, 'name', tm.name, 'tag', tm.tag, 'logo_url', tm.logo_url)) as doc
    from app.registrations r
    join app.teams tm on tm.id = r.team_id;

-- A match's teams carry their bracket seeds (the registrations' bracket_seed), each looked up by
-- the (tournament_id, team_id) key: a join here was planned as a nested loop over every pair of
-- registrations when the table's statistics were stale (345 ms for a 1024-team bracket).
create or replace view app.match_documents with (security_invoker = true) as
  select m.id, m.tournament_id, m.round, m.position,
         json_build_object('id', m.id, 'round', m.round, 'position', m.position,
           'team1_id', m.team1_id, 'team2_id', m.team2_id, 'team1_seed', (select r.bracket_seed from app.registrations r where r.tournament_id = m.tournament_id and r.team_id = m.team1_id),
           'team2_seed', (select r.bracket_seed from app.registrations r where r.tournament_id = m.tournament_id and r.team_id = m.team2_id),
           'team1_score', m.team1_score, 'team2_score', m.team2_score, 'winner_id', m.winner_id,
           'status', m.status, 'forfeit', m.forfeit, 'next_match_id', m.next_match_id,
           'scheduled_at', to_char(m.scheduled_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'completed_at', to_char(m.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.matches m;

-- ============================================================================
-- functions: teams
-- ============================================================================
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

-- A team of the bound account, locked for change; 404 if there is none, 403 team_not_owned if
-- it is a platform team or another account's (readable by all, so its existence is no secret).
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
  select * into v_f from app.team_fields(coalesce(p_args -> 'body', '{}'), v_team);
  update app.teams t set name = v_f.name, tag = v_f.tag, logo_url = v_f.logo_url
   where t.id = v_team.id and (t.name, t.tag, t.logo_url) is distinct from (v_f.name, v_f.tag, v_f.logo_url);
  return (select d.doc from app.team_documents d where d.id = v_team.id);
end
$$;

-- Deletes a team of the bound account with its registrations in tournaments still in
-- registration, whichever account they belong to; 'in_use' (and nothing deleted) if it is
-- registered in a tournament that has started. Security definer: those registrations are
-- other accounts' rows. Takes the tournaments' locks before the team's (see the header).
create function app.remove_team(p_team_id uuid) returns text
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_locked uuid[] := '{}';
  v_wanted uuid[];
begin
  loop
    v_wanted := array(select r.tournament_id from app.registrations r
                       where r.team_id = p_team_id and r.tournament_id <> all (v_locked));
    exit when cardinality(v_wanted) = 0;
    perform from app.tournaments t where t.id = any (v_wanted) order by t.id for no key update;
    v_locked := v_locked || v_wanted;
    -- Registrations made before the team is locked are seen by the next pass; after, none.
    perform from app.teams tm where tm.id = p_team_id
       and tm.account_id = (select nullif(current_setting('app.account_id', true), '')::uuid)
       for update;
    if not found then
      return 'gone';
    end if;
  end loop;
  perform from app.teams tm where tm.id = p_team_id
     and tm.account_id = (select nullif(current_setting('app.account_id', true), '')::uuid)
     for update;
  if not found then
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

-- ============================================================================
-- functions: GET /me
-- ============================================================================
-- The calling key and its account (the rate limit's state is added by the function from
-- api.call's count, which comes after). Security definer: the function role's owner has no
-- access to api_keys; api.call passes the id of the key it has just checked.
create function app.me(p_key_id uuid) returns json
language plpgsql stable security definer
set search_path = ''
as $$
begin
  return (
    select json_build_object(
      'key', json_build_object('id', k.id, 'name', k.name, 'prefix', k.prefix, 'scopes', k.scopes,
        'expires_at', app.iso(k.expires_at), 'created_at', app.iso(k.created_at)),
      'account', json_build_object('id', a.id, 'name', a.name))
      from app.api_keys k join app.accounts a on a.id = k.account_id
     where k.id = p_key_id
       and k.account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
end
$$;

-- ============================================================================
-- functions: tournaments (check_in_opens)
-- ============================================================================
create or replace function app.tournament_input_types() returns jsonb
language plpgsql immutable
set search_path = ''
as $$
begin
  return '{"game_id": "uuid", "team_size": "int", "max_teams": "int", "entry_fee": "numeric(9,2)",
           "prize_pool": "numeric(11,2)", "starts_at": "timestamptz", "registration_closes": "timestamptz",
           "check_in_opens": "timestamptz", "status": "app.tournament_status"}';
end
$$;

-- The date rules of a tournament's new state; p_body names the field to blame.
create function app.check_tournament_dates(p_new app.tournaments, p_body jsonb) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if p_new.registration_closes > p_new.starts_at then
    perform app.raise_invalid(case when p_body ? 'registration_closes' then 'registration_closes' else 'starts_at' end,
      format('registration_closes (%s) must not be after starts_at (%s)',
             app.iso(p_new.registration_closes), app.iso(p_new.starts_at)));
  end if;
  if p_new.check_in_opens > p_new.starts_at then
    perform app.raise_invalid(case when p_body ? 'check_in_opens' then 'check_in_opens' else 'starts_at' end,
      format('check_in_opens (%s) must not be after starts_at (%s)',
             app.iso(p_new.check_in_opens), app.iso(p_new.starts_at)));
  end if;
end
$$;

create or replace function app.create_tournament(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := p_args -> 'body';
  v_new app.tournaments;
  v_stem text;
  v_t app.tournaments;
begin
  perform app.check_input(v_body, app.tournament_input_types());
  v_new.starts_at := (v_body ->> 'starts_at')::timestamptz;
  v_new.registration_closes := coalesce((v_body ->> 'registration_closes')::timestamptz, v_new.starts_at);
  v_new.check_in_opens := (v_body ->> 'check_in_opens')::timestamptz;
  if v_new.starts_at is null or v_new.starts_at <= now() then
    perform app.raise_invalid('starts_at', 'must be in the future');
  end if;
  perform app.check_tournament_dates(v_new, v_body);

  v_stem := app.slugify(coalesce(v_body ->> 'name', ''));
  loop -- a slug collision (one in ~2 billion per stem) just draws another suffix
    insert into app.tournaments (account_id, name, slug, description, game_id, format, team_size,
                                 max_teams, entry_fee, prize_pool, starts_at, registration_closes,
                                 check_in_opens, rules)
    values (app.current_account_id(), v_body ->> 'name', v_stem || '-' || app.random_suffix(),
            coalesce(v_body ->> 'description', ''), (v_body ->> 'game_id')::uuid,
            coalesce(v_body ->> 'format', 'single_elimination'), (v_body ->> 'team_size')::int,
            (v_body ->> 'max_teams')::int, coalesce((v_body ->> 'entry_fee')::numeric, 0),
            coalesce((v_body ->> 'prize_pool')::numeric, 0), v_new.starts_at, v_new.registration_closes,
            v_new.check_in_opens, coalesce(v_body ->> 'rules', ''))
    on conflict (slug) do nothing
    returning * into v_t;
    exit when found;
  end loop;
  return (select d.doc from app.tournament_documents d where d.id = v_t.id);
end
$$;

create or replace function app.update_tournament(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := p_args -> 'body';
  v_old app.tournaments;
  v_new app.tournaments;
  v_allowed text[];
  v_locked text[];
  v_held int;
begin
  perform app.check_input(p_args, '{"id": "uuid"}');
  perform app.check_input(v_body, app.tournament_input_types());

  v_old := app.lock_tournament((p_args ->> 'id')::uuid);
  v_new := jsonb_populate_record(v_old, v_body);

  -- Clients send back the object they read: only a starts_at that changes must be in the future.
  if v_new.starts_at is distinct from v_old.starts_at and v_new.starts_at <= now() then
    perform app.raise_invalid('starts_at', 'must be in the future');
  end if;
  perform app.check_tournament_dates(v_new, v_body);

  -- Fields lock by status; only fields whose value actually changes count.
  v_allowed := case v_old.status
    when 'registration' then null
    when 'ongoing' then array['name', 'description', 'rules', 'prize_pool']
    else array['name', 'description', 'rules'] end;
  if v_allowed is not null then
    v_locked := array(
      select e.key from jsonb_each(v_body) e
       where e.key <> 'status' and e.key <> all (v_allowed)
         and to_jsonb(v_new) -> e.key is distinct from to_jsonb(v_old) -> e.key
       order by e.key);
    if cardinality(v_locked) > 0 then
      perform app.raise_error('tournament_locked',
        format('%s cannot change while the tournament is %s.', array_to_string(v_locked, ', '), v_old.status));
    end if;
  end if;

  if v_old.status = 'registration' and v_new.max_teams < v_old.max_teams then
    select count(*) into v_held from app.registrations r where r.tournament_id = v_old.id;
    if v_new.max_teams < v_held then
      perform app.raise_error('tournament_full',
        format('max_teams cannot go below the %s registrations held.', v_held));
    end if;
  end if;

  if v_new.status is distinct from v_old.status then
    perform app.change_status(v_old, v_new.status);
  elsif to_jsonb(v_new) = to_jsonb(v_old) then
    -- nothing changes: a no-op, updated_at included
    return (select d.doc from app.tournament_documents d where d.id = v_old.id);
  end if;

  update app.tournaments t
     set (name, description, game_id, status, format, team_size, max_teams, entry_fee, prize_pool,
          starts_at, registration_closes, check_in_opens, rules, updated_at)
       = (v_new.name, v_new.description, v_new.game_id, v_new.status, v_new.format, v_new.team_size,
          v_new.max_teams, v_new.entry_fee, v_new.prize_pool, v_new.starts_at,
          v_new.registration_closes, v_new.check_in_opens, v_new.rules, now())
   where t.id = v_old.id;
  return (select d.doc from app.tournament_documents d where d.id = v_old.id);
end
$$;

-- The teams that take part: every registration, or only the checked-in ones when the
-- tournament has check-in. The caller holds the tournament's row lock.
create function app.participants(p_t app.tournaments) returns setof app.registrations
language sql stable
set search_path = ''
as $$
  select r.* from app.registrations r
   where r.tournament_id = p_t.id and (p_t.check_in_opens is null or r.checked_in_at is not null)
$$;

create or replace function app.change_status(p_t app.tournaments, p_status text) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_taking_part int;
begin
  if p_t.status = 'registration' and p_status = 'ongoing' then
    select count(*) into v_taking_part from app.participants(p_t);
    if v_taking_part < 2 then
      perform app.raise_error('invalid_status_transition',
        case when p_t.check_in_opens is null
             then format('A tournament needs at least 2 registrations to start; it has %s.', v_taking_part)
             else format('A tournament with check-in needs at least 2 checked-in teams to start; it has %s.', v_taking_part) end);
    end if;
    perform app.generate_bracket(p_t.id);
  elsif p_t.status = 'ongoing' and p_status = 'completed' then
    if not app.final_decided(p_t.id) then
      perform app.raise_error('invalid_status_transition',
        'A tournament can be completed only once its final is decided.');
    end if;
  else
    perform app.raise_error('invalid_status_transition',
      format('A tournament cannot go from %s to %s.', p_t.status, p_status));
  end if;
end
$$;

-- ============================================================================
-- functions: the bracket (seeds)
-- ============================================================================
-- Seeds every participant (bracket_seed 1..N: seeded teams first, by seed, then registration
-- order) and returns N. The caller holds the tournament's row lock.
create function app.seed_participants(p_t app.tournaments) returns int
language plpgsql volatile
set search_path = ''
as $$
declare
  v_n int;
begin
  update app.registrations r set bracket_seed = p.seed
    from (select x.id, row_number() over (order by x.seed nulls last, x.seq)::int as seed
            from app.participants(p_t) x) p
   where r.id = p.id;
  get diagnostics v_n = row_count;
  return v_n;
end
$$;

-- As before (see the results migration), but the seeds are the participants in order
-- (app.seed_participants).
create or replace function app.generate_bracket(p_tournament_id uuid) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_t app.tournaments;
  v_n int;
  v_size int := 1;
  v_rounds int := 0;
begin
  if exists (select from app.matches m where m.tournament_id = p_tournament_id) then
    return; -- made already
  end if;
  select * into v_t from app.tournaments t where t.id = p_tournament_id;
  v_n := app.seed_participants(v_t);
  while v_size < v_n loop
    v_size := v_size * 2;
    v_rounds := v_rounds + 1;
  end loop;

  -- One insert: every match gets its id up front (slots is materialized once) so that
  -- next_match_id can be filled in; round-1 byes put their team straight into round 2.
  insert into app.matches (id, tournament_id, account_id, round, position, team1_id, team2_id,
                           status, winner_id, next_match_id)
  with seeds as (
    select r.bracket_seed as seed, r.team_id
      from app.registrations r where r.tournament_id = p_tournament_id and r.bracket_seed is not null
  ), round1 as (
    select (o.idx + 1) / 2 as position,
           (array_agg(s.team_id order by o.idx))[1] as team1_id,
           (array_agg(s.team_id order by o.idx))[2] as team2_id
      from unnest(app.seed_order(v_size)) with ordinality as o(seed, idx)
      left join seeds s on s.seed = o.seed
     group by (o.idx + 1) / 2
  ), advanced as (
    select r.*, case when r.team1_id is null or r.team2_id is null
                     then coalesce(r.team1_id, r.team2_id) end as bye_winner
      from round1 r
  ), slots as materialized (
    select rd as round, pos as position, gen_random_uuid() as id
      from generate_series(1, v_rounds) rd, generate_series(1, v_size >> rd) pos
  ), teams as (
    select b.*,
           case b.round when 1 then a.team1_id when 2 then f1.bye_winner end as team1_id,
           case b.round when 1 then a.team2_id when 2 then f2.bye_winner end as team2_id,
           a.bye_winner
      from slots b
      left join advanced a on b.round = 1 and a.position = b.position
      left join advanced f1 on b.round = 2 and f1.position = 2 * b.position - 1
      left join advanced f2 on b.round = 2 and f2.position = 2 * b.position
  )
  select t.id, p_tournament_id, v_t.account_id, t.round, t.position, t.team1_id, t.team2_id,
         case when t.round = 1 and t.bye_winner is not null then 'bye'
              when t.team1_id is not null and t.team2_id is not null then 'ready'
              else 'pending' end,
         t.bye_winner, nxt.id
    from teams t
    left join slots nxt on nxt.round = t.round + 1 and nxt.position = (t.position + 1) / 2
   order by t.round, t.position;
end
$$;

-- ============================================================================
-- functions: registrations
-- ============================================================================
-- A team, locked against deletion (for key share) until the transaction ends; null if there is
-- none. Security definer: a lock asks the table's UPDATE policies too, which let an account
-- lock only its own teams, and any team may be registered.
create function app.share_team(p_id uuid) returns app.teams
language sql volatile security definer
set search_path = ''
as $$
  select * from app.teams where id = p_id for key share
$$;

-- As before, but the team is locked (for key share) after the tournament, so a registration
-- racing the team's deletion finds it gone (404) rather than failing its foreign key.
create or replace function app.create_registration(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_t app.tournaments;
  v_team app.teams;
  v_reg app.registrations;
  v_held int;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(p_args -> 'body', '{"team_id": "uuid"}');
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  v_team := app.share_team((p_args #>> '{body,team_id}')::uuid);
  if v_team.id is null then
    perform app.raise_error('not_found', 'Team not found.');
  end if;
  if v_t.status <> 'registration' or now() > v_t.registration_closes then
    perform app.raise_error('registration_closed', 'Registration for this tournament is closed.');
  end if;
  if exists (select from app.registrations r where r.tournament_id = v_t.id and r.team_id = v_team.id) then
    perform app.raise_error('already_registered', 'This team is already registered.');
  end if;
  select count(*) into v_held from app.registrations r where r.tournament_id = v_t.id;
  if v_held >= v_t.max_teams then
    perform app.raise_error('tournament_full',
      format('The tournament is full (%s of %s teams).', v_held, v_t.max_teams));
  end if;

  insert into app.registrations (tournament_id, account_id, team_id, payment_status)
  values (v_t.id, v_t.account_id, v_team.id,
          case when v_t.entry_fee = 0 then 'complete' else 'pending' end)
  returning * into v_reg;
  return (select d.doc from app.registration_documents d where d.id = v_reg.id);
end
$$;

-- A registration of a tournament of the bound account, for change: the tournament's row lock
-- first (it orders every change to the tournament's registrations), then the registration.
create function app.lock_registration(p_args jsonb, out t app.tournaments, out r app.registrations)
language plpgsql volatile
set search_path = ''
as $$
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "registration_id": "uuid"}');
  t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select * into r from app.registrations x
   where x.id = (p_args ->> 'registration_id')::uuid and x.tournament_id = t.id;
  if not found then
    perform app.raise_error('not_found', 'Registration not found.');
  end if;
end
$$;

create function app.update_registration(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_l record;
  v_t app.tournaments;
  v_r app.registrations;
  v_seed int;
  v_checked_in timestamptz;
  v_payment text;
begin
  perform app.check_input(v_body, '{"seed": "int", "checked_in": "boolean", "payment_status": "app.payment_status"}');
  select l.t, l.r into v_l from app.lock_registration(p_args) l;
  v_t := v_l.t;
  v_r := v_l.r;
  v_seed := case when v_body ? 'seed' then (v_body ->> 'seed')::int else v_r.seed end;
  v_payment := coalesce(v_body ->> 'payment_status', v_r.payment_status);
  v_checked_in := case when not v_body ? 'checked_in' then v_r.checked_in_at
                       when (v_body ->> 'checked_in')::boolean then coalesce(v_r.checked_in_at, clock_timestamp())
                       end;
  if v_seed not between 1 and 1024 then
    perform app.raise_invalid('seed', 'must be an integer from 1 to 1024, or null');
  end if;

  -- Only values that change count: a client may send back what it read.
  if v_seed is distinct from v_r.seed and v_t.status <> 'registration' then
    perform app.raise_error('tournament_locked',
      format('seed cannot change while the tournament is %s.', v_t.status));
  end if;
  -- Check-in: once started, a tournament with check-in says its check-in is over, one without
  -- says the field is locked; before check_in_opens a team may check out, not in.
  if (v_checked_in is null) <> (v_r.checked_in_at is null) then
    if v_t.status <> 'registration' and v_t.check_in_opens is null then
      perform app.raise_error('tournament_locked',
        format('checked_in cannot change while the tournament is %s.', v_t.status));
    elsif v_t.status <> 'registration' then
      perform app.raise_error('check_in_closed', format('Check-in is over: the tournament is %s.', v_t.status));
    elsif v_checked_in is not null and now() < coalesce(v_t.check_in_opens, '-infinity') then
      perform app.raise_error('check_in_closed', format('Check-in opens at %s.', app.iso(v_t.check_in_opens)));
    end if;
  end if;
  if v_seed is distinct from v_r.seed and v_seed is not null
     and exists (select from app.registrations x where x.tournament_id = v_t.id and x.seed = v_seed) then
    perform app.raise_error('seed_taken', format('Seed %s is held by another registration of this tournament.', v_seed));
  end if;

  update app.registrations x
     set seed = v_seed, checked_in_at = v_checked_in, payment_status = v_payment
   where x.id = v_r.id
     and (x.seed, x.checked_in_at, x.payment_status) is distinct from (v_seed, v_checked_in, v_payment);
  return (select d.doc from app.registration_documents d where d.id = v_r.id);
end
$$;
comment on function app.update_registration(jsonb) is
  'PATCH a registration: seed and check-in while in registration, payment status in any status.';

create function app.delete_registration(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_l record;
  v_t app.tournaments;
  v_r app.registrations;
begin
  select l.t, l.r into v_l from app.lock_registration(p_args) l;
  v_t := v_l.t;
  v_r := v_l.r;
  if v_t.status <> 'registration' then
    perform app.raise_error('registration_closed',
      format('A team cannot withdraw once the tournament is %s.', v_t.status));
  end if;
  delete from app.registrations x where x.id = v_r.id;
  return json_build_object('message', 'Registration withdrawn');
end
$$;

-- ============================================================================
-- functions: matches (scheduling, forfeits)
-- ============================================================================
-- PATCH a match: a result (both scores, or a forfeit naming the team that forfeits), a
-- scheduled_at, or both. The result follows the reporting rules; scheduled_at alone may change
-- on any match while the tournament is ongoing.
create or replace function app.report_match(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_t app.tournaments;
  v_m app.matches;
  v_next app.matches;
  v_s1 int;
  v_s2 int;
  v_forfeit text := v_body ->> 'forfeit';
  v_result boolean := v_body ?| array['team1_score', 'team2_score', 'forfeit'];
  v_winner uuid;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "match_id": "uuid"}');
  perform app.check_input(v_body, '{"team1_score": "int", "team2_score": "int", "scheduled_at": "timestamptz"}');
  v_s1 := (v_body ->> 'team1_score')::int;
  v_s2 := (v_body ->> 'team2_score')::int;
  if v_forfeit is not null and v_body ?| array['team1_score', 'team2_score'] then
    perform app.raise_invalid('forfeit', 'a forfeit has no scores: send either both scores or forfeit');
  end if;
  if v_body ? 'forfeit' and v_forfeit is distinct from 'team1' and v_forfeit is distinct from 'team2' then
    perform app.raise_invalid('forfeit', 'must be "team1" or "team2"');
  end if;
  if v_result and v_forfeit is null and (v_s1 is null or v_s2 is null or v_s1 < 0 or v_s2 < 0) then
    perform app.raise_invalid(case when v_s1 is null or v_s1 < 0 then 'team1_score' else 'team2_score' end,
      'must be an integer of at least 0');
  end if;
  if not v_result and not v_body ? 'scheduled_at' then
    perform app.raise_invalid('body', 'send a result (both scores, or forfeit) and/or scheduled_at');
  end if;
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select * into v_m from app.matches m
   where m.id = (p_args ->> 'match_id')::uuid and m.tournament_id = v_t.id;
  if not found then
    perform app.raise_error('not_found', 'Match not found.');
  end if;
  if v_forfeit is null and v_result and v_s1 = v_s2 then
    perform app.raise_invalid('team2_score', 'scores cannot be equal: a match needs a winner');
  end if;
  if v_t.status <> 'ongoing' then
    perform app.raise_error('match_locked',
      format('Matches cannot be changed while the tournament is %s.', v_t.status));
  end if;

  if v_result then
    if v_m.status in ('pending', 'bye') then
      perform app.raise_error('match_not_ready',
        case v_m.status when 'bye' then 'This match is a bye; it has no result to report.'
                        else 'This match is still waiting for its teams.' end);
    end if;
    if v_m.next_match_id is not null then
      select * into v_next from app.matches m where m.id = v_m.next_match_id;
      if v_next.status = 'completed' then
        perform app.raise_error('match_locked',
          'The match this one feeds is completed; its result can no longer change.');
      end if;
    end if;

    v_winner := case when v_forfeit = 'team1' then v_m.team2_id
                     when v_forfeit = 'team2' then v_m.team1_id
                     when v_s1 > v_s2 then v_m.team1_id else v_m.team2_id end;
    update app.matches m
       set team1_score = v_s1, team2_score = v_s2, forfeit = v_forfeit, winner_id = v_winner,
           status = 'completed',
           completed_at = case when m.status = 'completed' and m.winner_id = v_winner
                               then m.completed_at else now() end
     where m.id = v_m.id
    returning * into v_m;

    if v_m.next_match_id is not null then
      update app.matches m
         set team1_id = case when v_m.position % 2 = 1 then v_winner else m.team1_id end,
             team2_id = case when v_m.position % 2 = 0 then v_winner else m.team2_id end
       where m.id = v_m.next_match_id
      returning * into v_next;
      update app.matches m
         set status = case when m.team1_id is not null and m.team2_id is not null then 'ready' else 'pending' end
       where m.id = v_next.id;
    end if;
  end if;

  if v_body ? 'scheduled_at' then
    update app.matches m set scheduled_at = (v_body ->> 'scheduled_at')::timestamptz where m.id = v_m.id;
  end if;
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$$;
comment on function app.report_match(jsonb) is
  'Records a result or forfeit (or corrects one while the next match is not completed), advances the winner, sets scheduled_at.';

-- ============================================================================
-- the door: api.call with the new operations
-- ============================================================================
-- Unchanged but for the operations' case (see the api migration for the whole story).
create or replace function api.call(p_key_hash bytea, p_scope text, p_op text, p_args jsonb,
                                    p_idempotency jsonb default null,
                                    out auth json, out error json, out result json, out replay json)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  c_limit constant int := 100;
  v_scope text;          -- the scope the operation needs (null: any valid key)
  v_writes boolean;      -- whether the operation writes (then its commit waits for the WAL flush)
  v_key record;
  v_state record;
  v_count record;
  v_sqlstate text;
  v_message text;
  v_hint text;
  v_detail text;
begin
  perform set_config('app.account_id', '', true);
  perform set_config('synchronous_commit', 'off', true);

  -- The operations, by name: the scope each needs and whether it writes. 'none' checks the key,
  -- counts the request and runs nothing (the function found the input invalid; p_scope is the
  -- route's scope, so a 403 still comes before the 400).
  case coalesce(p_op, 'none')
    when 'tournaments.list'     then v_scope := 'read:tournaments';    v_writes := false;
    when 'tournaments.get'      then v_scope := 'read:tournaments';    v_writes := false;
    when 'tournaments.create'   then v_scope := 'write:tournaments';   v_writes := true;
    when 'tournaments.update'   then v_scope := 'write:tournaments';   v_writes := true;
    when 'tournaments.delete'   then v_scope := 'write:tournaments';   v_writes := true;
    when 'registrations.list'   then v_scope := 'read:registrations';  v_writes := false;
    when 'registrations.get'    then v_scope := 'read:registrations';  v_writes := false;
    when 'registrations.create' then v_scope := 'write:registrations'; v_writes := true;
    when 'registrations.update' then v_scope := 'write:registrations'; v_writes := true;
    when 'registrations.delete' then v_scope := 'write:registrations'; v_writes := true;
    when 'results.get'          then v_scope := 'read:results';        v_writes := false;
    when 'matches.report'       then v_scope := 'write:results';       v_writes := true;
    when 'teams.list'           then v_scope := 'read:teams';          v_writes := false;
    when 'teams.get'            then v_scope := 'read:teams';          v_writes := false;
    when 'teams.create'         then v_scope := 'write:teams';         v_writes := true;
    when 'teams.update'         then v_scope := 'write:teams';         v_writes := true;
    when 'teams.delete'         then v_scope := 'write:teams';         v_writes := true;
    when 'me'                   then v_scope := null;                  v_writes := false;
    when 'none'                 then v_scope := p_scope;               v_writes := false;
    else raise exception 'unknown operation %', p_op using errcode = '22023';
  end case;

  -- 1. The key (401): one message for unknown, revoked and expired.
  select f.id, f.account_id, f.scopes, f.last_used_at into v_key from app.find_api_key(p_key_hash) f;
  if v_key.id is null then
    auth := json_build_object('error', 'unauthorized');
    return;
  end if;
  perform set_config('app.account_id', v_key.account_id::text, true);

  -- 2. The account (403), and the rate limit as of this snapshot (429 without a lock).
  select a.api_access_enabled as enabled, r.slots[r.next_slot] as oldest, clock_timestamp() as now
    into v_state
    from app.accounts a
    left join app.rate_limits r on r.api_key_id = v_key.id
   where a.id = v_key.account_id;
  if not coalesce(v_state.enabled, false) then
    auth := json_build_object('error', 'api_access_disabled', 'key_id', v_key.id);
    return;
  end if;
  if v_state.oldest > v_state.now - interval '60 seconds' then
    auth := json_build_object('error', 'rate_limited', 'key_id', v_key.id, 'limit', c_limit, 'remaining', 0,
      'reset', greatest(1, ceil(extract(epoch from v_state.oldest + interval '60 seconds' - v_state.now)))::int,
      'window', 60);
    return;
  end if;

  -- 3. The scope (403, counted), then the operation.
  if v_scope is not null and not coalesce(v_scope = any (v_key.scopes), false) then
    auth := json_build_object('error', 'insufficient_scope');
  elsif p_op is not null and p_op <> 'none' then
    if v_writes then
      perform set_config('synchronous_commit', 'on', true);
    end if;
    -- A retry of a request still in flight with the same Idempotency-Key: 409 at once, not counted.
    if p_idempotency is not null
       and not pg_try_advisory_xact_lock(hashtextextended(v_key.id::text || ':' || (p_idempotency ->> 'key'), 0)) then
      error := json_build_object('sqlstate', 'P0001', 'code', 'idempotency_conflict',
        'message', 'A request with this Idempotency-Key is still in progress; retry once it has finished.');
      auth := app.rate_limit_state(v_key.id, c_limit);
      return;
    end if;
    if p_idempotency is not null then
      select i.conflict, i.replay into error, replay from app.idempotency_begin(v_key.id, p_idempotency) i;
    end if;
    if replay is not null then -- a retry: the first response's result or error, as saved
      result := case when json_typeof(replay -> 'result') <> 'null' then replay -> 'result' end;
      error := case when json_typeof(replay -> 'error') <> 'null' then replay -> 'error' end;
    elsif error is null then
      begin
        case p_op
          when 'tournaments.list'     then result := app.list_tournaments(p_args);
          when 'tournaments.get'      then result := app.get_tournament(p_args);
          when 'tournaments.create'   then result := app.create_tournament(p_args);
          when 'tournaments.update'   then result := app.update_tournament(p_args);
          when 'tournaments.delete'   then result := app.delete_tournament(p_args);
          when 'registrations.list'   then result := app.list_registrations(p_args);
          when 'registrations.get'    then result := app.get_registration(p_args);
          when 'registrations.create' then result := app.create_registration(p_args);
          when 'registrations.update' then result := app.update_registration(p_args);
          when 'registrations.delete' then result := app.delete_registration(p_args);
          when 'results.get'          then result := app.tournament_results(p_args);
          when 'matches.report'       then result := app.report_match(p_args);
          when 'teams.list'           then result := app.list_teams(p_args);
          when 'teams.get'            then result := app.get_team(p_args);
          when 'teams.create'         then result := app.create_team(p_args);
          when 'teams.update'         then result := app.update_team(p_args);
          when 'teams.delete'         then result := app.delete_team(p_args);
          when 'me'                   then result := app.me(v_key.id);
        end case;
      exception when others then
        get stacked diagnostics v_sqlstate = returned_sqlstate, v_message = message_text,
                                v_hint = pg_exception_hint, v_detail = pg_exception_detail;
        -- Serialization failures, deadlocks and timeouts abort the request (503: it did nothing).
        if v_sqlstate in ('40001', '40P01', '55P03', '57014') then
          raise;
        end if;
        error := json_build_object('sqlstate', v_sqlstate, 'code', v_hint, 'message', v_message,
          'details', case when v_sqlstate = 'P0001' and v_detail like '[%' then v_detail::json end);
      end;
      -- Saved in the same transaction as the operation's writes: both or neither. Validation
      -- errors are not saved, so a corrected request may reuse the key.
      if p_idempotency is not null
         and (error is null or ((error ->> 'sqlstate') = 'P0001' and (error ->> 'code') <> 'validation_error')) then
        perform app.idempotency_save(v_key.id, p_idempotency, result, error);
      end if;
    end if;
  end if;

  -- 4. Count the request: overwrite the oldest slot if it has left the window.
  insert into app.rate_limits as r (api_key_id, account_id, next_slot, slots)
  values (v_key.id, v_key.account_id, 2,
          array[clock_timestamp()] || array_fill('-infinity'::timestamptz, array[c_limit - 1]))
  on conflict (api_key_id) do update
     set slots[r.next_slot] = clock_timestamp(), next_slot = r.next_slot % c_limit + 1
   where r.slots[r.next_slot] <= clock_timestamp() - interval '60 seconds'
  returning (select count(*)::int from unnest(r.slots) s where s > clock_timestamp() - interval '60 seconds') as used,
            (select min(s) from unnest(r.slots) s where s > clock_timestamp() - interval '60 seconds') as oldest,
            clock_timestamp() as now
  into v_count;
  if not found then -- the window filled up meanwhile: undo everything, answer 429
    raise exception 'rate limited' using errcode = 'TA429', hint = 'rate_limited',
      detail = app.rate_limit_state(v_key.id, c_limit)::text;
  end if;
  if v_key.last_used_at is null or v_key.last_used_at < v_count.now - interval '1 minute' then
    perform app.touch_api_key(v_key.id);
  end if;

  auth := json_build_object('error', auth ->> 'error', 'key_id', v_key.id, 'account_id', v_key.account_id,
    'limit', c_limit, 'remaining', c_limit - v_count.used,
    'reset', greatest(1, ceil(extract(epoch from v_count.oldest + interval '60 seconds' - v_count.now)))::int,
    'window', 60);
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant insert (name, tag, logo_url, account_id), update (name, tag, logo_url) on app.teams to tournament_api_owner;
grant update (seed, checked_in_at, payment_status, bracket_seed), delete on app.registrations to tournament_api_owner;
grant update (scheduled_at, forfeit) on app.matches to tournament_api_owner;
grant select on app.team_documents to tournament_api_owner;

grant execute on function app.team_fields(jsonb, app.teams) to tournament_api_owner;
grant execute on function app.list_teams(jsonb) to tournament_api_owner;
grant execute on function app.get_team(jsonb) to tournament_api_owner;
grant execute on function app.create_team(jsonb) to tournament_api_owner;
grant execute on function app.own_team(uuid) to tournament_api_owner;
grant execute on function app.update_team(jsonb) to tournament_api_owner;
grant execute on function app.remove_team(uuid) to tournament_api_owner;
grant execute on function app.delete_team(jsonb) to tournament_api_owner;
grant execute on function app.me(uuid) to tournament_api_owner;
grant execute on function app.share_team(uuid) to tournament_api_owner;
grant execute on function app.check_tournament_dates(app.tournaments, jsonb) to tournament_api_owner;
grant execute on function app.participants(app.tournaments) to tournament_api_owner;
grant execute on function app.seed_participants(app.tournaments) to tournament_api_owner;
grant execute on function app.lock_registration(jsonb) to tournament_api_owner;
grant execute on function app.update_registration(jsonb) to tournament_api_owner;
grant execute on function app.delete_registration(jsonb) to tournament_api_owner;
