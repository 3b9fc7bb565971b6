-- Registrations: a team entered in a tournament (contract section 4), with its payment status,
-- requested seed and check-in, and the lifecycle (register, PATCH, withdraw). Capacity is exact
-- under concurrency because every registration first takes the tournament's row lock (then the
-- team's, in the order 04_teams.sql gives). Also the teams that take part at the start and their
-- bracket seeds, which the formats (09_formats.sql onwards) build on.

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
  -- The lifecycle's columns: the seed the organiser asks for, the check-in, and the seed in the
  -- bracket given at the start.
  seed int check (seed between 1 and 1024),
  checked_in_at timestamptz(3),
  bracket_seed int check (bracket_seed >= 1),
  unique (tournament_id, team_id),
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade,
  constraint registrations_seed_key unique (tournament_id, seed)
);

comment on table app.registrations is 'A team entered in a tournament; seeds follow registration order (seq).';
comment on column app.registrations.account_id is 'The tournament''s account, copied so that RLS needs no join.';
comment on column app.registrations.seed is 'The seed the organiser asked for; seeded teams come first at the start.';
comment on column app.registrations.bracket_seed is
  'The team''s seed in the bracket (1..N), given at the start; null for a team that took no part.';

-- The teams taking part in each stage (contract section 12) and their seed in it: stage 1's
-- are the participants with their bracket seeds (app.seed_participants), a later stage's its
-- qualifiers (16_stages.sql). The formats read a stage's teams and seeds from here.
create table app.stage_entries (
  tournament_id uuid not null,
  account_id uuid not null,
  stage smallint not null check (stage between 1 and 4),
  -- (No foreign key to teams: every entry's team is registered in the tournament, and a
  -- registered team cannot be deleted. One lookup and one index less for each entry written:
  -- a 1,024-team start writes 1,024.)
  team_id uuid not null,
  seed int not null check (seed >= 1),
  primary key (tournament_id, stage, team_id),
  unique (tournament_id, stage, seed),
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade
);

comment on table app.stage_entries is 'The teams of each started stage of a tournament, with their seed (1..K) in that stage.';
comment on column app.stage_entries.account_id is 'The tournament''s account, copied so that RLS needs no join.';

-- A registration as the API returns it, with its team.
create view app.registration_documents with (security_invoker = true) as
  select r.id, r.tournament_id, r.payment_status, r.seq,
         json_build_object('id', r.id, 'tournament_id', r.tournament_id, 'team_id', r.team_id,
           'payment_status', r.payment_status,
           'registered_at', to_char(r.registered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'seed', r.seed,
           'checked_in_at', to_char(r.checked_in_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'teams', json_build_object('id', tm.id, 'name', tm.name, 'tag', tm.tag, 'logo_url', tm.logo_url)) as doc
    from app.registrations r
    join app.teams tm on tm.id = r.team_id;
comment on view app.registration_documents is 'Each registration with its API representation (doc).';

-- ============================================================================
-- indexes
-- ============================================================================
create index registrations_tournament_seq_idx on app.registrations (tournament_id, seq);

-- (account_id, tournament_id): the RLS column first, and the tournament foreign key's columns.
create index registrations_account_idx on app.registrations (account_id, tournament_id);

create index stage_entries_account_idx on app.stage_entries (account_id, tournament_id);

create index registrations_team_idx on app.registrations (team_id);

-- ============================================================================
-- policies
-- ============================================================================
alter table app.registrations enable row level security;

create policy "Registrations are visible to their account" on app.registrations
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Registrations are created in the bound account" on app.registrations
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Registrations are updated by their account" on app.registrations
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Registrations are withdrawn by their account" on app.registrations
  for delete to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

alter table app.stage_entries enable row level security;

create policy "Stage entries are visible to their account" on app.stage_entries
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Stage entries are created in the bound account" on app.stage_entries
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Stage entries are updated by their account" on app.stage_entries
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
-- ============================================================================
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

-- The teams that take part: every registration, or only the checked-in ones when the
-- tournament has check-in. The caller holds the tournament's row lock.
create function app.participants(p_t app.tournaments) returns setof app.registrations
language sql stable
set search_path = ''
as $$
  select r.* from app.registrations r
   where r.tournament_id = p_t.id and (p_t.check_in_opens is null or r.checked_in_at is not null)
$$;

-- Seeds the teams of the stage p_t.stage and returns their number N. Stage 1: every participant
-- (bracket_seed 1..N: seeded teams first, by seed, then registration order), entered in
-- app.stage_entries; a later stage's entries are its qualifiers, entered when it starts. The
-- caller holds the tournament's row lock.
create function app.seed_participants(p_t app.tournaments) returns int
language plpgsql volatile
set search_path = ''
as $$
declare
  v_n int;
begin
  if p_t.stage > 1 then
    return (select count(*) from app.stage_entries e where e.tournament_id = p_t.id and e.stage = p_t.stage);
  end if;
  update app.registrations r set bracket_seed = p.seed
    from (select x.id, row_number() over (order by x.seed nulls last, x.seq)::int as seed
            from app.participants(p_t) x) p
   where r.id = p.id;
  get diagnostics v_n = row_count;
  insert into app.stage_entries (tournament_id, account_id, stage, team_id, seed)
  select r.tournament_id, r.account_id, 1, r.team_id, r.bracket_seed
    from app.registrations r where r.tournament_id = p_t.id and r.bracket_seed is not null
  on conflict (tournament_id, stage, team_id) do update set seed = excluded.seed; -- (seeding again, as tests do)
  return v_n;
end
$$;

-- Registers a team: the tournament's row lock first (capacity), then the team, locked (for key
-- share) against deletion, so a registration racing the team's deletion finds it gone (404)
-- rather than failing its foreign key.
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
comment on function app.create_registration(jsonb) is
  'Registers a team. Checks in order: tournament, team, open, not yet registered, capacity.';

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
-- grants
-- ============================================================================
grant select, insert on app.registrations to tournament_api_owner;
grant select, insert, update on app.stage_entries to tournament_api_owner;
grant select on app.registration_documents to tournament_api_owner;
grant execute on function app.create_registration(jsonb) to tournament_api_owner;
grant execute on function app.list_registrations(jsonb) to tournament_api_owner;
grant execute on function app.get_registration(jsonb) to tournament_api_owner;
grant update (seed, checked_in_at, payment_status, bracket_seed), delete on app.registrations to tournament_api_owner;
grant execute on function app.participants(app.tournaments) to tournament_api_owner;
grant execute on function app.seed_participants(app.tournaments) to tournament_api_owner;
grant execute on function app.lock_registration(jsonb) to tournament_api_owner;
grant execute on function app.update_registration(jsonb) to tournament_api_owner;
grant execute on function app.delete_registration(jsonb) to tournament_api_owner;