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
-- (account_id, tournament_id): the RLS column first, and the tournament foreign key's columns.
create index registrations_account_idx on app.registrations (account_id, tournament_id);
create index registrations_team_idx on app.registrations (team_id);

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.registrations enable row level security;

create policy "Registrations are visible to their account" on app.registrations
  for select to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Registrations are created in the bound account" on app.registrations
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));

-- ============================================================================
-- views
-- ============================================================================
-- A registration as the API returns it, with its team (a view: see app.tournament_documents).
create view app.registration_documents with (security_invoker = true) as
  select r.id, r.tournament_id, r.payment_status, r.seq,
         json_build_object('id', r.id, 'tournament_id', r.tournament_id, 'team_id', r.team_id,
           'payment_status', r.payment_status,
           'registered_at', to_char(r.registered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'teams', json_build_object('id', tm.id, 'name', tm.name, 'tag', tm.tag, 'logo_url', tm.logo_url)) as doc
    from app.registrations r
    join app.teams tm on tm.id = r.team_id;
comment on view app.registration_documents is 'Each registration with its API representation (doc).';

-- ============================================================================
-- functions
-- ============================================================================
create function app.create_registration(p_args jsonb) returns json
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
  return (select d.doc from app.registration_documents d where d.id = v_reg.id);
end
$$;
comment on function app.create_registration(jsonb) is
  'Registers a team. Checks in order: tournament, team, open, not yet registered, capacity.';

create function app.list_registrations(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_tid uuid;
  v_status text;
  v_data json;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(coalesce(p_args -> 'query', '{}'), '{"status": "app.payment_status"}');
  v_tid := (p_args ->> 'tournament_id')::uuid;
  v_status := p_args #>> '{query,status}';
  if not exists (select from app.tournaments t where t.id = v_tid) then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  select coalesce(json_agg(d.doc order by d.seq), '[]') into v_data
    from app.registration_documents d
   where d.tournament_id = v_tid and (v_status is null or d.payment_status = v_status);
  return v_data;
end
$$;

create function app.get_registration(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_data json;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "registration_id": "uuid"}');
  select d.doc into v_data
    from app.registration_documents d
   where d.id = (p_args ->> 'registration_id')::uuid
     and d.tournament_id = (p_args ->> 'tournament_id')::uuid;
  if v_data is null then
    perform app.raise_error('not_found', 'Registration not found.');
  end if;
  return v_data;
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert on app.registrations to tournament_api_owner;
grant select on app.registration_documents to tournament_api_owner;

grant execute on function app.create_registration(jsonb) to tournament_api_owner;
grant execute on function app.list_registrations(jsonb) to tournament_api_owner;
grant execute on function app.get_registration(jsonb) to tournament_api_owner;
