-- Registrations: a team entered in a tournament (contract section 4), with its payment status,
-- requested seed and check-in, its state (accepted, pending, waitlisted, refused: section 17) and
-- the lifecycle (register, PATCH, withdraw). Capacity is exact under concurrency because every
-- registration first takes the tournament's row lock (then the team's, in the order 04_teams.sql
-- gives), and so does everything that frees a slot (app.fill_slots promotes the waitlist in the
-- same transaction). Also the teams that take part at the start and their bracket seeds, which
-- the formats (09_formats.sql onwards) build on.

-- ============================================================================
-- types
-- ============================================================================
create domain app.payment_status as text check (value in ('pending', 'complete', 'refunded'));

-- Only accepted registrations hold a slot (count toward max_teams) and take part at the start.
create domain app.registration_state as text check (value in ('accepted', 'pending', 'waitlisted', 'refused'));

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
  constraint registrations_seed_key unique (tournament_id, seed),
  -- The team's name and tag as the tournament shows them from its start (null before: the
  -- team's own, live); a later rename of the team leaves a started tournament as it was played.
  team_name text,
  team_tag text,
  -- Raised by every change of the lineup (app.lineup_entries): the registration's version
  -- (22_live.sql) and its registration.updated webhook (19_webhook_events.sql) follow it.
  lineup_rev int not null default 0,
  -- The lineup as the API shows it ([{player_id, handle, country, role, captain}] in lineup
  -- order), written with app.lineup_entries by every writer of a lineup (app.lineup_json): a
  -- registration read is its row, with no query per registration.
  lineup jsonb not null default '[]',
  state app.registration_state not null default 'accepted',
  -- Disqualified (contract section 17) while ongoing: its matches are forfeited from then on.
  disqualified_at timestamptz(3),
  -- The stage being played when it was disqualified (app.stage_disqualified).
  disqualified_stage smallint
);

comment on table app.registrations is 'A team entered in a tournament; seeds follow registration order (seq).';
comment on column app.registrations.account_id is 'The tournament''s account, copied so that RLS needs no join.';
comment on column app.registrations.seed is 'The seed the organiser asked for; seeded teams come first at the start.';
comment on column app.registrations.bracket_seed is
  'The team''s seed in the bracket (1..N), given at the start; null for a team that took no part.';
comment on column app.registrations.team_name is 'The team''s name frozen at the tournament''s start; null before.';
comment on column app.registrations.disqualified_stage is
  'The tournament''s stage when the team was disqualified: a stage it went on from before keeps its place there.';

-- Who plays for a registration (contract section 16): players of the tournament's account, in
-- lineup order, with their role; a snapshot (handle and country included) taken from the team's
-- roster at registration and replaced by PUT .../lineup, frozen once the tournament starts.
create table app.lineup_entries (
  registration_id uuid not null references app.registrations (id) on delete cascade,
  tournament_id uuid not null,
  account_id uuid not null,
  player_id uuid not null references app.players (id) on delete cascade,
  role text not null check (role in ('player', 'substitute', 'coach')),
  captain boolean not null default false,
  position smallint not null check (position >= 1),
  handle text not null,
  country text,
  primary key (registration_id, player_id)
);

comment on table app.lineup_entries is
  'A registration''s lineup: one player, one team per tournament (coaches exempt), kept by lineup_entries_player_key.';
comment on column app.lineup_entries.handle is
  'The player''s handle as the lineup shows it (updated with the player''s while the tournament is in registration).';

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

-- A registration as the API returns it, with its team (its name and tag frozen from the start)
-- and its lineup.
create view app.registration_documents with (security_invoker = true) as
  select r.id, r.tournament_id, r.payment_status, r.seq, r.state,
         json_build_object('id', r.id, 'tournament_id', r.tournament_id, 'team_id', r.team_id,
           'payment_status', r.payment_status,
           'registered_at', to_char(r.registered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'seed', r.seed,
           'checked_in_at', to_char(r.checked_in_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'teams', json_build_object('id', tm.id, 'name', coalesce(r.team_name, tm.name),
                                      'tag', coalesce(r.team_tag, tm.tag), 'logo_url', tm.logo_url),
           'lineup', r.lineup, 'state', r.state,
           'disqualified_at', to_char(r.disqualified_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.registrations r
    join app.teams tm on tm.id = r.team_id;
comment on view app.registration_documents is 'Each registration with its API representation (doc).';

-- The teams of each tournament as it shows them: the name and tag frozen at its start, else the
-- team's own, and whether it is disqualified (contract section 17). Standings and qualifiers read
-- names from here.
create view app.tournament_teams with (security_invoker = true) as
  select r.tournament_id, r.team_id as id, coalesce(r.team_name, tm.name) as name, coalesce(r.team_tag, tm.tag) as tag,
         r.disqualified_at is not null as disqualified
    from app.registrations r
    join app.teams tm on tm.id = r.team_id;
-- (disqualified is the last column: a view gains columns only at its end.)
comment on view app.tournament_teams is 'Each registered team''s name and tag as its tournament shows them.';

-- ============================================================================
-- indexes
-- ============================================================================
create index registrations_tournament_seq_idx on app.registrations (tournament_id, seq);

-- The waitlist, oldest first (app.fill_slots).
create index registrations_waitlist_idx on app.registrations (tournament_id, seq) where state = 'waitlisted';

-- (account_id, tournament_id): the RLS column first, and the tournament foreign key's columns.
create index registrations_account_idx on app.registrations (account_id, tournament_id);

create index stage_entries_account_idx on app.stage_entries (account_id, tournament_id);

create index registrations_team_idx on app.registrations (team_id);

-- A tournament's disqualified teams (contract section 17): whether there are any is one probe,
-- made after every result (app.forfeit_disqualified).
create index registrations_disqualified_idx on app.registrations (tournament_id) where disqualified_at is not null;

-- One player, one team per tournament: exact under any concurrency (coaches exempt).
create unique index lineup_entries_player_key on app.lineup_entries (tournament_id, player_id) where role <> 'coach';

create index lineup_entries_player_idx on app.lineup_entries (player_id);

create index lineup_entries_account_idx on app.lineup_entries (account_id, tournament_id);

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

alter table app.lineup_entries enable row level security;

create policy "Lineup entries are visible to their account" on app.lineup_entries
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- A new entry's registration (of the tournament it names) and player are the row's account's too:
-- an account cannot put another's player in its lineup, nor an entry in another's lineup or tournament.
create policy "Lineup entries are created in the bound account" on app.lineup_entries
  for insert to tournament_api_owner with check (
    account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v))
    and exists (select from app.registrations r where r.id = lineup_entries.registration_id
                   and r.tournament_id = lineup_entries.tournament_id and r.account_id = lineup_entries.account_id)
    and exists (select from app.players p where p.id = lineup_entries.player_id and p.account_id = lineup_entries.account_id));

create policy "Lineup entries are updated by their account" on app.lineup_entries
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Lineup entries are removed by their account" on app.lineup_entries
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
  v_state text;
  v_data json;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(coalesce(p_args -> 'query', '{}'), '{"status": "app.payment_status", "state": "app.registration_state"}');
  v_tid := (p_args ->> 'tournament_id')::uuid;
  v_status := p_args #>> '{query,status}';
  v_state := p_args #>> '{query,state}';
  if not exists (select from app.tournaments t where t.id = v_tid) then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  select coalesce(json_agg(d.doc order by d.seq), '[]') into v_data
    from app.registration_documents d
   where d.tournament_id = v_tid and (v_status is null or d.payment_status = v_status)
     and (v_state is null or d.state = v_state);
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

-- The teams that take part: every accepted registration, or only the checked-in ones when the
-- tournament has check-in. The caller holds the tournament's row lock.
create function app.participants(p_t app.tournaments) returns setof app.registrations
language sql stable
set search_path = ''
as $$
  select r.* from app.registrations r
   where r.tournament_id = p_t.id and r.state = 'accepted' and (p_t.check_in_opens is null or r.checked_in_at is not null)
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
  -- (The participants' team names and tags are frozen in the same write: app.freeze_team_names.)
  update app.registrations r set bracket_seed = p.seed, team_name = tm.name, team_tag = tm.tag
    from (select x.id, x.team_id, row_number() over (order by x.seed nulls last, x.seq)::int as seed
            from app.participants(p_t) x) p
    join app.teams tm on tm.id = p.team_id
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
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(p_args -> 'body', '{"team_id": "uuid"}');
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  v_team := app.share_team((p_args #>> '{body,team_id}')::uuid);
  if v_team.id is null then
    perform app.raise_error('not_found', 'Team not found.');
  end if;
  v_reg := app.register(v_t, v_team, false);
  return (select d.doc from app.registration_documents d where d.id = v_reg.id);
end
$$;
comment on function app.create_registration(jsonb) is
  'Registers a team. Checks in order: tournament, team, open, not yet registered, capacity; then copies its roster.';

-- Section 4's checks of a team's entry, in order: open (409 registration_closed), not yet
-- registered (409 already_registered), then its state: a sign-up (p_signup) waits for approval
-- when the tournament asks for it; else accepted while a slot is free, then waitlisted with a
-- waitlist, else 409 tournament_full. Exact when the caller holds the tournament's row lock; a
-- sign-up also asks it before, unlocked, so that these answers keep their place before the
-- lineup's while its players are written outside the lock.
create function app.entry_state(p_t app.tournaments, p_team app.teams, p_signup boolean) returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v_held int;
begin
  if p_t.status <> 'registration' or now() > p_t.registration_closes then
    perform app.raise_error('registration_closed', 'Registration for this tournament is closed.');
  end if;
  if exists (select from app.registrations r where r.tournament_id = p_t.id and r.team_id = p_team.id) then
    perform app.raise_error('already_registered', 'This team is already registered.');
  end if;
  if p_signup and p_t.approval then
    return 'pending';
  end if;
  select count(*) into v_held from app.registrations r where r.tournament_id = p_t.id and r.state = 'accepted';
  if v_held < p_t.max_teams then
    return 'accepted';
  elsif p_t.waitlist then
    return 'waitlisted';
  end if;
  perform app.raise_error('tournament_full', format('The tournament is full (%s of %s teams).', v_held, p_t.max_teams));
end
$$;

-- Enters a team (found, locked for key share) in a tournament whose row lock the caller holds,
-- in the state app.entry_state gives it. A team of the tournament's account brings its roster
-- (the lineup written with the row, then its entries).
create function app.register(p_t app.tournaments, p_team app.teams, p_signup boolean) returns app.registrations
language plpgsql volatile
set search_path = ''
as $$
declare
  v_reg app.registrations;
  v_state text := app.entry_state(p_t, p_team, p_signup);
  v_lineup jsonb := '[]';
begin
  if p_team.account_id = p_t.account_id then
    v_lineup := app.roster_lineup(p_t, p_team.id);
  end if;
  insert into app.registrations (tournament_id, account_id, team_id, payment_status, lineup, state)
  values (p_t.id, p_t.account_id, p_team.id,
          case when p_t.entry_fee = 0 then 'complete' else 'pending' end, v_lineup, v_state)
  returning * into v_reg;
  if jsonb_array_length(v_lineup) > 0 and app.copy_roster(p_t, v_reg) < jsonb_array_length(v_lineup) then
    -- A member's player deleted in between: the lineup as written.
    update app.registrations x set lineup = app.lineup_json(x.id) where x.id = v_reg.id returning * into v_reg;
  end if;
  return v_reg;
end
$$;

-- Whenever a slot frees (a withdrawal, a refusal, a deletion, max_teams raised), the oldest
-- waitlisted registrations take the free slots, in the same transaction (contract section 17).
-- The caller holds the tournament's row lock, which every change of a registration's slot
-- takes first: exact under concurrency.
create function app.fill_slots(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_free int;
begin
  if p_t.status <> 'registration' then
    return;
  end if;
  select p_t.max_teams - count(*) into v_free
    from app.registrations r where r.tournament_id = p_t.id and r.state = 'accepted';
  if v_free > 0 then
    update app.registrations r set state = 'accepted'
     where r.id in (select w.id from app.registrations w
                     where w.tournament_id = p_t.id and w.state = 'waitlisted' order by w.seq limit v_free);
  end if;
end
$$;

-- A team's roster as a new registration's lineup takes it: the members in the order they were
-- added, each role's first ones up to the tournament's cap, numbered in that order.
create function app.roster_kept(p_t app.tournaments, p_team_id uuid)
returns table (player_id uuid, role text, captain boolean, place int)
language plpgsql stable
rows 8 -- a roster's size (the default 1,000 made the planner scan whole tables to join it)
set search_path = ''
as $$
begin
  return query
    select k.player_id, k.role, k.captain, (row_number() over (order by k.seq))::int
      from (select m.player_id, m.role, m.captain, m.seq,
                   row_number() over (partition by m.role order by m.seq) as n
              from app.team_members m where m.team_id = p_team_id) k
     where k.n <= case k.role when 'player' then p_t.team_size when 'substitute' then p_t.substitutes_max else 2 end;
end
$$;

-- A team's roster as a new registration's lineup shows it (registrations.lineup).
create function app.roster_lineup(p_t app.tournaments, p_team_id uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object('player_id', k.player_id, 'handle', p.handle, 'country', p.country,
                                               'role', k.role, 'captain', k.captain) order by k.place), '[]')
    from app.roster_kept(p_t, p_team_id) k join app.players p on p.id = k.player_id
$$;

-- A new registration's lineup entries: its team's roster (app.roster_kept); the number written.
-- A member already in another registration's lineup of the tournament is 409
-- player_already_registered. The caller holds the tournament's row lock, which every lineup
-- change of the tournament takes first. The insert locks the players (for key share): a
-- deletion of one waits for this registration, or has taken the player off the roster already
-- (one entry fewer).
create function app.copy_roster(p_t app.tournaments, p_r app.registrations) returns int
language plpgsql volatile
set search_path = ''
as $$
declare
  v_written int;
  v_taken jsonb;
begin
  insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle, country)
  select p_r.id, p_t.id, p_t.account_id, k.player_id, k.role, k.captain, k.place, p.handle, p.country
    from app.roster_kept(p_t, p_r.team_id) k
    join app.players p on p.id = k.player_id
     for key share of p
  on conflict (tournament_id, player_id) where role <> 'coach' do nothing;
  get diagnostics v_written = row_count;
  if v_written < jsonb_array_length(p_r.lineup) then
    select jsonb_agg(jsonb_build_object('field', 'team_id', 'player_id', k.player_id, 'registration_id', e.registration_id,
                                        'message', format('player %s is in the lineup of registration %s', k.player_id, e.registration_id)))
      into v_taken
      from app.roster_kept(p_t, p_r.team_id) k
      join app.lineup_entries e on e.tournament_id = p_t.id and e.player_id = k.player_id and e.role <> 'coach'
                               and e.registration_id <> p_r.id
     where k.role <> 'coach';
    if v_taken is not null then
      perform app.raise_error('player_already_registered',
        'A player of this team''s roster is already in another team''s lineup in this tournament.', v_taken);
    end if;
  end if;
  return v_written;
end
$$;

-- A registration's lineup as the API shows it, from its entries.
create function app.lineup_json(p_registration_id uuid) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object('player_id', e.player_id, 'handle', e.handle, 'country', e.country,
                                               'role', e.role, 'captain', e.captain) order by e.position), '[]')
    from app.lineup_entries e where e.registration_id = p_registration_id
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
  v_state text;
  v_players int;
begin
  perform app.check_input(v_body, '{"seed": "int", "checked_in": "boolean", "payment_status": "app.payment_status",
                                    "state": "app.registration_state", "disqualified": "boolean"}');
  select l.t, l.r into v_l from app.lock_registration(p_args) l;
  v_t := v_l.t;
  v_r := v_l.r;
  v_seed := case when v_body ? 'seed' then (v_body ->> 'seed')::int else v_r.seed end;
  v_payment := coalesce(v_body ->> 'payment_status', v_r.payment_status);
  v_checked_in := case when not v_body ? 'checked_in' then v_r.checked_in_at
                       when (v_body ->> 'checked_in')::boolean then coalesce(v_r.checked_in_at, clock_timestamp())
                       end;
  v_state := coalesce(v_body ->> 'state', v_r.state);
  if v_seed not between 1 and 1024 then
    perform app.raise_invalid('seed', 'must be an integer from 1 to 1024, or null');
  end if;
  if v_body ? 'state' and v_state not in ('accepted', 'refused') and v_state <> v_r.state then
    perform app.raise_invalid('state', 'must be accepted or refused');
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
  -- With lineups required, a team checks in with a full lineup (contract section 16).
  if v_checked_in is not null and v_r.checked_in_at is null and v_t.lineups = 'required' then
    select count(*) into v_players from app.lineup_entries e where e.registration_id = v_r.id and e.role = 'player';
    if v_players < v_t.team_size then
      perform app.raise_error('lineup_incomplete',
        format('The lineup holds %s of the %s players the tournament needs to check in.', v_players, v_t.team_size),
        jsonb_build_array(jsonb_build_object('registration_id', v_r.id, 'team_id', v_r.team_id,
          'team_name', (select tm.name from app.teams tm where tm.id = v_r.team_id), 'players', v_players)));
    end if;
  end if;
  if v_seed is distinct from v_r.seed and v_seed is not null
     and exists (select from app.registrations x where x.tournament_id = v_t.id and x.seed = v_seed) then
    perform app.raise_error('seed_taken', format('Seed %s is held by another registration of this tournament.', v_seed));
  end if;
  -- The state (contract section 17): the organiser accepts into a free slot or refuses, while
  -- in registration; a refusal of an accepted registration frees its slot for the waitlist.
  if v_state <> v_r.state then
    if v_t.status <> 'registration' then
      perform app.raise_error('tournament_locked', format('state cannot change while the tournament is %s.', v_t.status));
    end if;
    if v_state = 'accepted' and (select count(*) from app.registrations x
                                  where x.tournament_id = v_t.id and x.state = 'accepted') >= v_t.max_teams then
      perform app.raise_error('tournament_full',
        format('The tournament is full (%s of %s teams): refuse or withdraw one first, or raise max_teams.',
               v_t.max_teams, v_t.max_teams));
    end if;
  end if;
  -- Disqualification: once, while ongoing.
  if v_body ? 'disqualified' and (v_body ->> 'disqualified')::boolean <> (v_r.disqualified_at is not null) then
    if v_r.disqualified_at is not null then
      perform app.raise_error('invalid_status_transition', 'A disqualification cannot be undone.');
    elsif v_t.status <> 'ongoing' then
      perform app.raise_error('invalid_status_transition',
        format('Only a team of an ongoing tournament can be disqualified; this one is %s.', v_t.status));
    end if;
  end if;

  update app.registrations x
     set seed = v_seed, checked_in_at = v_checked_in, payment_status = v_payment, state = v_state
   where x.id = v_r.id
     and (x.seed, x.checked_in_at, x.payment_status, x.state) is distinct from (v_seed, v_checked_in, v_payment, v_state);
  if v_r.state = 'accepted' and v_state <> 'accepted' then
    perform app.fill_slots(v_t);
  end if;
  if coalesce((v_body ->> 'disqualified')::boolean, false) and v_r.disqualified_at is null then
    perform app.disqualify(v_t, v_r);
  end if;
  return (select d.doc from app.registration_documents d where d.id = v_r.id);
end
$$;
comment on function app.update_registration(jsonb) is
  'PATCH a registration: seed, check-in and state while in registration, payment status in any status, disqualification while ongoing.';

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
  perform app.fill_slots(v_t);
  return json_build_object('message', 'Registration withdrawn');
end
$$;

-- PUT .../registrations/{id}/lineup: the registration's lineup replaced, while the tournament
-- is in registration (app.set_lineup).
create function app.put_lineup(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_l record;
begin
  select l.t, l.r into v_l from app.lock_registration(p_args) l;
  if (v_l.t).status <> 'registration' then
    perform app.raise_error('tournament_locked', format('The lineup cannot change while the tournament is %s.', (v_l.t).status));
  end if;
  perform app.set_lineup(v_l.t, v_l.r, coalesce(p_args #> '{body,players}', '[]'), 'players');
  return (select d.doc from app.registration_documents d where d.id = (v_l.r).id);
end
$$;
comment on function app.put_lineup(jsonb) is
  'PUT a registration''s lineup: the account''s players, the tournament''s caps, one team per tournament; while in registration.';

-- Replaces a registration's lineup with p_entries ([{player_id, role, captain?}], the body's
-- field p_field: players, or a sign-up's lineup). Their shape (strict entries of a UUID, a role
-- and a captain flag; each player once; one captain) is the function's (resources/models/
-- registrations.ts); here: each player the tournament's account's, the caps of the tournament
-- (400 naming the entry), and one team per tournament (409 player_already_registered). The
-- caller holds the tournament's row lock, which orders every lineup change of the tournament;
-- the unique index lineup_entries_player_key keeps the rule for any other writer.
create function app.set_lineup(p_t app.tournaments, p_r app.registrations, p_entries jsonb, p_field text) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  perform app.check_lineup(p_t, p_r.id, p_entries, p_field);
  perform app.replace_lineup(p_t, p_r, p_entries);
end
$$;

-- app.set_lineup's checks of p_entries as the lineup of registration p_registration_id (null: a
-- registration still to come, a sign-up's), in their order. A sign-up asks them before it takes
-- the tournament's lock: a player taken in between is then the unique index's 409, from
-- app.copy_roster.
create function app.check_lineup(p_t app.tournaments, p_registration_id uuid, p_entries jsonb, p_field text) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_bad record;
  v_taken jsonb;
begin
  -- The players named, for key share: a deletion of one waits for this lineup (and then takes
  -- the player out of it), or has committed and the player is unknown here.
  -- (Each entry's lookups are laterals, one index probe each: joined whole, the planner took
  -- the entries for a hundred rows and hashed every player of the account and every lineup
  -- entry of the tournament, a sign-up's time growing with both.)
  perform from app.players p
   where p.id = any (array(select (o.v ->> 'player_id')::uuid from jsonb_array_elements(p_entries) o (v)))
     and p.account_id = p_t.account_id
   order by p.id for key share;
  -- Each entry, numbered from 0, with its place among its role's: the first one wrong is named.
  select x.i, x.field, x.problem into v_bad
    from (select e.i,
                 case when e.known then format('%s[%s]', p_field, e.i) else format('%s[%s].player_id', p_field, e.i) end as field,
                 case
                   when not e.known then 'is not a player of this tournament''s account'
                   when e.role = 'player' and e.k > p_t.team_size
                     then format('is one player more than the team_size of %s', p_t.team_size)
                   when e.role = 'substitute' and e.k > p_t.substitutes_max
                     then format('is one substitute more than the substitutes_max of %s', p_t.substitutes_max)
                   when e.role = 'coach' and e.k > 2 then 'is one coach more than the 2 a lineup may hold'
                 end as problem
            from (select (o.i - 1)::int as i, o.v ->> 'role' as role, p.found is not null as known,
                         row_number() over (partition by o.v ->> 'role' order by o.i) as k
                    from jsonb_array_elements(p_entries) with ordinality as o (v, i)
                    left join lateral (select true as found from app.players p
                                        where p.id = (o.v ->> 'player_id')::uuid and p.account_id = p_t.account_id) p on true) e) x
   where x.problem is not null
   order by x.i
   limit 1;
  if found then
    perform app.raise_invalid(v_bad.field, v_bad.problem);
  end if;

  select jsonb_agg(jsonb_build_object('field', format('%s[%s].player_id', p_field, o.i - 1), 'player_id', e.player_id,
                                      'registration_id', e.registration_id,
                                      'message', format('player %s is in the lineup of registration %s', e.player_id, e.registration_id))
                   order by o.i)
    into v_taken
    from jsonb_array_elements(p_entries) with ordinality as o (v, i)
   cross join lateral (select x.player_id, x.registration_id from app.lineup_entries x
                        where x.tournament_id = p_t.id and x.player_id = (o.v ->> 'player_id')::uuid
                          and x.role <> 'coach' and (p_registration_id is null or x.registration_id <> p_registration_id)) e
   where o.v ->> 'role' <> 'coach';
  if v_taken is not null then
    perform app.raise_error('player_already_registered',
      'A player of this lineup is already in another team''s lineup in this tournament.', v_taken);
  end if;
end
$$;

-- Writes a registration's lineup (p_entries, checked) when it differs from the one held, with
-- the registration's copy (registrations.lineup), and raises its lineup_rev: its version and
-- webhook follow.
create function app.replace_lineup(p_t app.tournaments, p_r app.registrations, p_entries jsonb) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_new jsonb;
  v_old jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('player_id', (o.v ->> 'player_id')::uuid, 'role', o.v ->> 'role',
                                               'captain', coalesce((o.v ->> 'captain')::boolean, false)) order by o.i), '[]')
    into v_new from jsonb_array_elements(p_entries) with ordinality as o (v, i);
  select coalesce(jsonb_agg(jsonb_build_object('player_id', e.player_id, 'role', e.role, 'captain', e.captain)
                            order by e.position), '[]')
    into v_old from app.lineup_entries e where e.registration_id = p_r.id;
  if v_new = v_old then
    return; -- the lineup sent back as it is: nothing changes
  end if;
  delete from app.lineup_entries e where e.registration_id = p_r.id;
  insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle, country)
  select p_r.id, p_t.id, p_t.account_id, p.id, o.v ->> 'role', coalesce((o.v ->> 'captain')::boolean, false), o.i, p.handle, p.country
    from jsonb_array_elements(p_entries) with ordinality as o (v, i)
   cross join lateral (select x.id, x.handle, x.country from app.players x where x.id = (o.v ->> 'player_id')::uuid) p;
  update app.registrations x set lineup = app.lineup_json(p_r.id), lineup_rev = x.lineup_rev + 1 where x.id = p_r.id;
end
$$;

-- With lineups required (contract section 16), the participants whose lineup holds fewer than
-- team_size players stop the start: 409 lineup_incomplete listing each. The caller holds the
-- tournament's row lock.
create function app.check_lineups(p_t app.tournaments) returns void
language plpgsql stable
set search_path = ''
as $$
declare
  v_short jsonb;
begin
  if p_t.lineups <> 'required' then
    return;
  end if;
  select jsonb_agg(jsonb_build_object('registration_id', x.id, 'team_id', x.team_id, 'team_name', tm.name,
                                      'players', x.players) order by x.seq)
    into v_short
    from (select r.id, r.team_id, r.seq,
                 (select count(*) from app.lineup_entries e where e.registration_id = r.id and e.role = 'player')::int as players
            from app.participants(p_t) r) x
    join app.teams tm on tm.id = x.team_id
   where x.players < p_t.team_size;
  if v_short is not null then
    perform app.raise_error('lineup_incomplete',
      format('%s team(s) hold fewer than the %s players the tournament needs in their lineup.',
             jsonb_array_length(v_short), p_t.team_size), v_short);
  end if;
end
$$;

-- At the start, every registration keeps its team's name and tag as they are (contract section
-- 16): a later rename reaches tournaments still in registration only. The participants' are
-- written with their bracket seeds (app.seed_participants, one write per row); this writes the
-- rest (teams that did not check in). The caller holds the tournament's row lock.
create function app.freeze_team_names(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  update app.registrations r set team_name = tm.name, team_tag = tm.tag
    from app.teams tm
   where r.tournament_id = p_t.id and r.team_name is null and tm.id = r.team_id;
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
grant update (seed, checked_in_at, payment_status, bracket_seed, state), delete on app.registrations to tournament_api_owner;
grant execute on function app.entry_state(app.tournaments, app.teams, boolean) to tournament_api_owner;
grant execute on function app.register(app.tournaments, app.teams, boolean) to tournament_api_owner;
grant execute on function app.fill_slots(app.tournaments) to tournament_api_owner;
grant execute on function app.participants(app.tournaments) to tournament_api_owner;
grant execute on function app.seed_participants(app.tournaments) to tournament_api_owner;
grant execute on function app.lock_registration(jsonb) to tournament_api_owner;
grant execute on function app.update_registration(jsonb) to tournament_api_owner;
grant execute on function app.delete_registration(jsonb) to tournament_api_owner;
grant select, insert, delete on app.lineup_entries to tournament_api_owner;
grant update (handle, country) on app.lineup_entries to tournament_api_owner;
grant update (lineup_rev, lineup, team_name, team_tag) on app.registrations to tournament_api_owner;
grant execute on function app.lineup_json(uuid) to tournament_api_owner;
grant select on app.tournament_teams to tournament_api_owner;
grant execute on function app.roster_kept(app.tournaments, uuid) to tournament_api_owner;
grant execute on function app.copy_roster(app.tournaments, app.registrations) to tournament_api_owner;
grant execute on function app.roster_lineup(app.tournaments, uuid) to tournament_api_owner;
grant execute on function app.put_lineup(jsonb) to tournament_api_owner;
grant execute on function app.set_lineup(app.tournaments, app.registrations, jsonb, text) to tournament_api_owner;
grant execute on function app.check_lineup(app.tournaments, uuid, jsonb, text) to tournament_api_owner;
grant execute on function app.replace_lineup(app.tournaments, app.registrations, jsonb) to tournament_api_owner;
grant execute on function app.check_lineups(app.tournaments) to tournament_api_owner;
grant execute on function app.freeze_team_names(app.tournaments) to tournament_api_owner;
