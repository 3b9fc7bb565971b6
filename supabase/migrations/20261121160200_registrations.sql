-- Registrations: a team entered in a tournament (contract section 4). Capacity is exact under
-- concurrency because every registration first takes the tournament's row lock.

-- ============================================================================
-- types
-- ============================================================================
create domain app.payment_status as text check (value in ('pending', 'complete', 'refunded'));

-- ============================================================================
-- tables
-- ============================================================================
create table app.registrations (
  id uuid primary key default gen_random_uuid(),
  tournament_id uuid not null,
  account_id uuid not null,
  team_id uuid not null references app.teams (id),
  payment_status app.payment_status not null,
  seq bigint generated always as identity,
  registered_at timestamptz(3) not null default clock_timestamp(),
  unique (tournament_id, team_id),
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade
);
comment on table app.registrations is 'A team entered in a tournament; seeds follow registration order (seq).';
comment on column app.registrations.account_id is 'The tournament''s account, copied so that RLS needs no join.';

-- ============================================================================
-- indexes
-- ============================================================================
create index registrations_tournament_seq_idx on app.registrations (tournament_id, seq);
create index registrations_account_idx on app.registrations (account_id);
create index registrations_team_idx on app.registrations (team_id);

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.registrations enable row level security;

create policy "Registrations are visible to their account" on app.registrations
  for select to tournament_api using (account_id = (select app.current_account_id()));
create policy "Registrations are created in the bound account" on app.registrations
  for insert to tournament_api with check (account_id = (select app.current_account_id()));

-- ============================================================================
-- functions
-- ============================================================================
create function app.team_json(p_team app.teams) returns json
language sql stable
as $$
  select json_build_object('id', p_team.id, 'name', p_team.name, 'tag', p_team.tag,
                           'logo_url', p_team.logo_url)
$$;

create function app.registration_json(r app.registrations, p_team app.teams) returns json
language sql stable
as $$
  select json_build_object('id', r.id, 'tournament_id', r.tournament_id, 'team_id', r.team_id,
    'payment_status', r.payment_status, 'registered_at', app.iso(r.registered_at),
    'teams', app.team_json(p_team))
$$;

create function app.create_registration(p_args jsonb) returns json
language plpgsql volatile
as $$
declare
  v_t app.tournaments := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  v_team app.teams;
  v_reg app.registrations;
  v_held int;
begin
  select * into v_team from app.teams where id = (p_args #>> '{body,team_id}')::uuid;
  if not found then
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
  return app.registration_json(v_reg, v_team);
end
$$;
comment on function app.create_registration(jsonb) is
  'Registers a team. Checks in order: tournament, team, open, not yet registered, capacity.';

create function app.list_registrations(p_args jsonb) returns json
language plpgsql stable
as $$
declare
  v_tid uuid := (p_args ->> 'tournament_id')::uuid;
  v_status text := p_args #>> '{query,status}';
  v_data json;
begin
  if not exists (select from app.tournaments t where t.id = v_tid) then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  select coalesce(json_agg(app.registration_json(r, tm) order by r.seq), '[]') into v_data
    from app.registrations r
    join app.teams tm on tm.id = r.team_id
   where r.tournament_id = v_tid and (v_status is null or r.payment_status = v_status);
  return v_data;
end
$$;

create function app.get_registration(p_args jsonb) returns json
language plpgsql stable
as $$
declare
  v_data json;
begin
  select app.registration_json(r, tm) into v_data
    from app.registrations r
    join app.teams tm on tm.id = r.team_id
   where r.id = (p_args ->> 'registration_id')::uuid
     and r.tournament_id = (p_args ->> 'tournament_id')::uuid;
  if v_data is null then
    perform app.raise_error('not_found', 'Registration not found.');
  end if;
  return v_data;
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
-- PUBLIC gets EXECUTE on new functions by a global default (see the platform migration).
revoke execute on all functions in schema app from public;
grant select, insert on app.registrations to tournament_api;

grant execute on function app.team_json(app.teams) to tournament_api;
grant execute on function app.registration_json(app.registrations, app.teams) to tournament_api;
grant execute on function app.create_registration(jsonb) to tournament_api;
grant execute on function app.list_registrations(jsonb) to tournament_api;
grant execute on function app.get_registration(jsonb) to tournament_api;

insert into app.operations (name, fn, read_only) values
  ('registrations.list', 'app.list_registrations(jsonb)', true),
  ('registrations.create', 'app.create_registration(jsonb)', false),
  ('registrations.get', 'app.get_registration(jsonb)', true);
