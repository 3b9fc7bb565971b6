-- Stages (contract section 12): a tournament is 1-4 stages, each one of the formats with its own
-- options, and `advance` (who goes on) on every stage but the last. The definitions are the
-- tournament's `stages` column (app.stage_list, 05_tournaments.sql); a started stage has a row
-- here (status, team count, when it started and completed) and its teams with their seeds in
-- app.stage_entries (07_registrations.sql). Stage 1 starts with the tournament
-- (app.change_status); the organiser starts each next one (PATCH .../stages/{number}), with the
-- qualifiers by tier or `advancing` by hand, and its matches are made in the same transaction.
-- Every format function works on one stage: app.stage_of gives the tournament as that stage
-- sees it.

-- ============================================================================
-- tables
-- ============================================================================
create table app.stages (
  id uuid primary key default gen_random_uuid(),
  tournament_id uuid not null,
  account_id uuid not null,
  number smallint not null check (number between 1 and 4),
  status text not null check (status in ('ongoing', 'completed')),
  team_count int not null check (team_count >= 2),
  started_at timestamptz(3) not null default now(),
  completed_at timestamptz(3),
  unique (tournament_id, number),
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade,
  constraint stages_completed_at check ((status = 'completed') = (completed_at is not null))
);

comment on table app.stages is
  'The started stages of a tournament: status (completed once every match is decided), team count, start and completion.';
comment on column app.stages.account_id is 'The tournament''s account, copied so that RLS needs no join.';

-- ============================================================================
-- indexes
-- ============================================================================
-- (account_id, tournament_id): the RLS column first, and the tournament foreign key's columns.
create index stages_account_idx on app.stages (account_id, tournament_id);

-- ============================================================================
-- policies
-- ============================================================================
alter table app.stages enable row level security;

create policy "Stages are visible to their account" on app.stages
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Stages are created in the bound account" on app.stages
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Stages are updated by their account" on app.stages
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
-- ============================================================================
-- Whether a stage is decided (p_t as app.stage_of gives it): it has matches and none waits for
-- a result (swiss and free-for-all: and every round has been drawn or dealt). The tournament may be completed once its
-- last stage is.
create function app.stage_decided(p_t app.tournaments) returns boolean
language plpgsql stable
set search_path = ''
as $$
begin
  if not exists (select from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage)
     or exists (select from app.matches m
                 where m.tournament_id = p_t.id and m.stage = p_t.stage and m.status in ('pending', 'ready')) then
    return false;
  end if;
  -- (Each format's own function is called from a statement of its own: a statement is parsed
  -- when it first runs, so a format's functions are needed only once a tournament uses it.)
  if p_t.format = 'swiss' then
    return app.swiss_complete(p_t);
  elsif p_t.format = 'ffa' then
    return app.ffa_complete(p_t);
  end if;
  return true;
end
$$;

-- The tournament as stage p_number sees it: that stage's format and options, and its number in
-- `stage`. Every format function takes this record and touches only that stage's matches.
create function app.stage_of(p_t app.tournaments, p_number int) returns app.tournaments
language plpgsql immutable
set search_path = ''
as $$
declare
  v_def jsonb := app.stage_list(p_t) -> (p_number - 1);
begin
  p_t.format := v_def ->> 'format';
  p_t.format_options := v_def -> 'format_options';
  p_t.stage := p_number;
  return p_t;
end
$$;
comment on function app.stage_of(app.tournaments, int) is
  'The tournament as one stage sees it: the stage''s format, options and number.';

-- How many teams a stage's `advance` sends on (K) when it has p_teams teams: per_group * groups +
-- best_next after round robin; per_lobby * its lobbies after free-for-all (null while p_teams is
-- unknown: stage 1 before the start); else top.
create function app.advancing_count(p_def jsonb, p_teams int) returns int
language sql immutable
set search_path = ''
as $$
  select case when p_def ->> 'format' = 'round_robin'
              then (p_def #>> '{advance,per_group}')::int * (p_def #>> '{format_options,groups}')::int
                   + coalesce((p_def #>> '{advance,best_next}')::int, 0)
              when p_def #> '{advance,per_lobby}' is not null
              then (p_def #>> '{advance,per_lobby}')::int
                   * ceil(p_teams::numeric / (p_def #>> '{format_options,lobby_size}')::int)::int
              else (p_def #>> '{advance,top}')::int end
$$;

-- Re-raises a 400 from a check of one part of a stage with its fields under p_prefix
-- (format_options.groups -> stages[1].format_options.groups).
create function app.raise_invalid_under(p_prefix text, p_details text) returns void
language plpgsql
set search_path = ''
as $$
begin
  perform app.raise_error('validation_error', 'The request is invalid.',
    (select jsonb_agg(d || jsonb_build_object('field', p_prefix || '.' || (d ->> 'field')))
       from jsonb_array_elements(p_details::jsonb) d));
end
$$;

-- The stages a client sends, checked strictly and completed with their defaults: 1-4 of
-- {name?, format, format_options?, advance?}; a 400 naming stages[<i>].<field> otherwise.
-- `advance` is required on every stage but the last and refused on the last; the number of
-- teams it sends on (K) must be at least 2 and leave the next stage playable (swiss: rounds at
-- most K - 1; round robin: groups at most K / 2).
create function app.stage_definitions(p_stages jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
declare
  v_n int;
  v_def jsonb;
  v_at text;
  v_unknown text;
  v_name text;
  v_format text;
  v_options jsonb;
  v_advance jsonb;
  v_k int;
  v_out jsonb := '[]';
  v_hint text;
  v_detail text;
begin
  if jsonb_typeof(p_stages) is distinct from 'array' or jsonb_array_length(p_stages) not between 1 and 4 then
    perform app.raise_invalid('stages', 'must be an array of 1 to 4 stages');
  end if;
  v_n := jsonb_array_length(p_stages);
  for i in 0 .. v_n - 1 loop
    v_def := p_stages -> i;
    v_at := format('stages[%s]', i);
    if jsonb_typeof(v_def) <> 'object' then
      perform app.raise_invalid(v_at, 'must be an object {name, format, format_options, advance}');
    end if;
    select k into v_unknown from jsonb_object_keys(v_def) k
     where k not in ('name', 'format', 'format_options', 'advance') order by k limit 1;
    if v_unknown is not null then
      perform app.raise_invalid(v_at || '.' || v_unknown, 'is not a known field');
    end if;
    v_name := format('Stage %s', i + 1);
    if v_def ? 'name' then
      v_name := btrim(v_def ->> 'name');
      if jsonb_typeof(v_def -> 'name') <> 'string' or length(v_name) not between 1 and 60 then
        perform app.raise_invalid(v_at || '.name', 'must be a string of 1 to 60 characters');
      end if;
    end if;
    v_format := v_def ->> 'format';
    if jsonb_typeof(v_def -> 'format') is distinct from 'string' or v_format <> all (app.formats()) then
      perform app.raise_invalid(v_at || '.format', 'must be one of ' || array_to_string(app.formats(), ', '));
    end if;
    begin
      v_options := app.format_options(v_format, v_def -> 'format_options');
    exception when sqlstate 'P0001' then
      get stacked diagnostics v_hint = pg_exception_hint, v_detail = pg_exception_detail;
      if v_hint <> 'validation_error' then
        raise;
      end if;
      perform app.raise_invalid_under(v_at, v_detail);
    end;

    -- The teams the stage before sends on must be able to play this one.
    if i > 0 and v_format = 'swiss' and (v_options ->> 'rounds')::int > v_k - 1 then
      perform app.raise_invalid(format('stages[%s].advance', i - 1),
        format('sends %s teams on, but stage %s (swiss, %s rounds) needs at least %s', v_k, i + 1,
               v_options ->> 'rounds', (v_options ->> 'rounds')::int + 1));
    end if;
    if i > 0 and v_format = 'round_robin' and (v_options ->> 'groups')::int * 2 > v_k then
      perform app.raise_invalid(format('stages[%s].advance', i - 1),
        format('sends %s teams on, but stage %s (round robin, %s groups) needs at least %s', v_k, i + 1,
               v_options ->> 'groups', (v_options ->> 'groups')::int * 2));
    end if;

    v_advance := v_def -> 'advance';
    if i = v_n - 1 then
      if jsonb_typeof(v_advance) is distinct from null and jsonb_typeof(v_advance) <> 'null' then
        perform app.raise_invalid(v_at || '.advance', 'the last stage sends no one on: leave advance out');
      end if;
      v_advance := null;
    elsif v_format = 'round_robin' then
      if jsonb_typeof(v_advance) is distinct from 'object' then
        perform app.raise_invalid(v_at || '.advance', 'is required after a round robin: {per_group, best_next?}');
      end if;
      select k into v_unknown from jsonb_object_keys(v_advance) k where k not in ('per_group', 'best_next') order by k limit 1;
      if v_unknown is not null then
        perform app.raise_invalid(v_at || '.advance.' || v_unknown, 'is not a known field (per_group, best_next)');
      end if;
      if not app.is_int(v_advance -> 'per_group', 1, 1024) then
        perform app.raise_invalid(v_at || '.advance.per_group', 'must be an integer from 1 to 1024');
      end if;
      v_advance := jsonb_build_object('per_group', v_advance -> 'per_group',
                                      'best_next', coalesce(v_advance -> 'best_next', '0'));
      if not app.is_int(v_advance -> 'best_next', 0, (v_options ->> 'groups')::int) then
        perform app.raise_invalid(v_at || '.advance.best_next',
          format('must be an integer from 0 to the number of groups (%s)', v_options ->> 'groups'));
      end if;
    elsif v_format = 'ffa' then
      if jsonb_typeof(v_advance) is distinct from 'object' then
        perform app.raise_invalid(v_at || '.advance', 'is required after ffa: {top} or {per_lobby}');
      end if;
      select k into v_unknown from jsonb_object_keys(v_advance) k where k not in ('top', 'per_lobby') order by k limit 1;
      if v_unknown is not null then
        perform app.raise_invalid(v_at || '.advance.' || v_unknown, 'is not a known field (top or per_lobby)');
      end if;
      if (select count(*) from jsonb_object_keys(v_advance)) <> 1 then
        perform app.raise_invalid(v_at || '.advance', 'must be {top: n} or {per_lobby: n}');
      end if;
      if v_advance ? 'top' and not app.is_int(v_advance -> 'top', 2, 1024) then
        perform app.raise_invalid(v_at || '.advance.top', 'must be an integer from 2 to 1024');
      end if;
      if v_advance ? 'per_lobby' and not app.is_int(v_advance -> 'per_lobby', 1, 100) then
        perform app.raise_invalid(v_at || '.advance.per_lobby', 'must be an integer from 1 to 100');
      end if;
    else
      if jsonb_typeof(v_advance) is distinct from 'object' then
        perform app.raise_invalid(v_at || '.advance', format('is required after %s: {top}', v_format));
      end if;
      select k into v_unknown from jsonb_object_keys(v_advance) k where k <> 'top' order by k limit 1;
      if v_unknown is not null then
        perform app.raise_invalid(v_at || '.advance.' || v_unknown, 'is not a known field (top)');
      end if;
      if not app.is_int(v_advance -> 'top', 2, 1024) then
        perform app.raise_invalid(v_at || '.advance.top', 'must be an integer from 2 to 1024');
      end if;
    end if;
    v_def := jsonb_build_object('name', v_name, 'format', v_format, 'format_options', v_options, 'advance', v_advance);
    if i > 0 and app.advance_problem(v_def, i + 1, v_k) is not null then
      perform app.raise_invalid(v_at || '.advance', app.advance_problem(v_def, i + 1, v_k));
    end if;
    if v_advance is not null then
      -- (Unknown after a free-for-all stage 1 sending on per_lobby: app.check_stage_chain checks
      -- what follows at the start.)
      v_k := app.advancing_count(v_def, v_k);
      if v_k not between 2 and 1024 then
        perform app.raise_invalid(v_at || '.advance', format('sends %s teams on; it must be 2 to 1024', v_k));
      end if;
    end if;
    v_out := v_out || jsonb_build_array(v_def);
  end loop;
  return v_out;
end
$$;
comment on function app.stage_definitions(jsonb) is
  'The stages as sent, checked (400 stages[<i>].<field>) and completed with their defaults.';

-- Why stage p_number (p_def, its definition) cannot send on the teams its `advance` asks for
-- when it has p_teams teams; null when it can. After a round robin of G groups dealt from n
-- teams, every group holds at least floor(n / G) teams and n mod G of them one more.
create function app.advance_problem(p_def jsonb, p_number int, p_teams int) returns text
language plpgsql immutable
set search_path = ''
as $$
declare
  v_groups int := (p_def #>> '{format_options,groups}')::int;
  v_per int := (p_def #>> '{advance,per_group}')::int;
  v_best int := (p_def #>> '{advance,best_next}')::int;
  v_larger int;
begin
  if p_def -> 'advance' is null or jsonb_typeof(p_def -> 'advance') = 'null' then
    return null;
  elsif p_def #> '{advance,per_lobby}' is not null then
    -- Snake order deals L = ceil(N / lobby_size) lobbies of floor(N / L) teams or one more.
    v_larger := ceil(p_teams::numeric / (p_def #>> '{format_options,lobby_size}')::int)::int;
    return case when (p_def #>> '{advance,per_lobby}')::int > p_teams / v_larger then
      format('Stage %s sends on the first %s of each lobby, but %s teams in %s lobbies leave lobbies of %s.', p_number,
             p_def #>> '{advance,per_lobby}', p_teams, v_larger, p_teams / v_larger) end;
  elsif p_def ->> 'format' <> 'round_robin' then
    return case when (p_def #>> '{advance,top}')::int > p_teams then
      format('Stage %s sends on its top %s, but it would have only %s teams.', p_number, p_def #>> '{advance,top}', p_teams) end;
  end if;
  v_larger := case when p_teams / v_groups > v_per then v_groups when p_teams / v_groups = v_per then p_teams % v_groups else 0 end;
  if p_teams / v_groups < v_per then
    return format('Stage %s sends on the top %s of each group, but %s teams in %s groups leave groups of %s.',
                  p_number, v_per, p_teams, v_groups, p_teams / v_groups);
  elsif v_best > v_larger then
    return format('Stage %s sends on the %s best teams placed %s, but %s teams in %s groups place only %s teams %s.',
                  p_number, v_best, v_per + 1, p_teams, v_groups, v_larger, v_per + 1);
  end if;
  return null;
end
$$;

-- At the start, when stage 1's team count N is known: whether each stage can send on the
-- teams its `advance` asks for, and each next stage play the teams it gets (409
-- invalid_status_transition saying why). app.stage_definitions checked what it could when the
-- stages were defined; stage 1's N, and so what a free-for-all stage 1 sends on per lobby, is
-- known now.
create function app.check_stage_chain(p_t app.tournaments, p_teams int) returns void
language plpgsql stable
set search_path = ''
as $$
declare
  v_stages jsonb := app.stage_list(p_t);
  v_n int := p_teams;
  v_k int;
  v_next jsonb;
  v_problem text;
begin
  for i in 1 .. jsonb_array_length(v_stages) loop
    v_problem := app.advance_problem(v_stages -> (i - 1), i, v_n);
    exit when v_problem is not null or v_stages -> (i - 1) -> 'advance' is null
              or jsonb_typeof(v_stages -> (i - 1) -> 'advance') = 'null';
    v_k := app.advancing_count(v_stages -> (i - 1), v_n);
    v_next := v_stages -> i;
    v_problem := case
      when v_k not between 2 and 1024 then format('Stage %s would send %s teams on; it must be 2 to 1024.', i, v_k)
      when v_next ->> 'format' = 'swiss' and (v_next #>> '{format_options,rounds}')::int > v_k - 1 then
        format('Stage %s would send %s teams on, but stage %s (swiss, %s rounds) needs at least %s.', i, v_k, i + 1,
               v_next #>> '{format_options,rounds}', (v_next #>> '{format_options,rounds}')::int + 1)
      when v_next ->> 'format' = 'round_robin' and (v_next #>> '{format_options,groups}')::int * 2 > v_k then
        format('Stage %s would send %s teams on, but stage %s (round robin, %s groups) needs at least %s.', i, v_k, i + 1,
               v_next #>> '{format_options,groups}', (v_next #>> '{format_options,groups}')::int * 2) end;
    exit when v_problem is not null;
    v_n := v_k;
  end loop;
  if v_problem is not null then
    perform app.raise_error('invalid_status_transition', v_problem);
  end if;
end
$$;
comment on function app.check_stage_chain(app.tournaments, int) is
  'At the start: 409 when stage 1''s advance asks for more teams than it has.';

-- Starts stage 1 with the tournament (app.change_status, holding the row lock): its matches
-- from the participants, and its row.
create function app.start_first_stage(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  perform app.generate_bracket(app.stage_of(p_t, 1));
  insert into app.stages (tournament_id, account_id, number, status, team_count)
  select p_t.id, p_t.account_id, 1, 'ongoing', count(*)
    from app.stage_entries e where e.tournament_id = p_t.id and e.stage = 1
  on conflict (tournament_id, number) do nothing;
end
$$;

-- After a result or correction in a stage (p_t as app.stage_of gives it): completed once every
-- match is decided, ongoing again if a correction reopens one.
create function app.settle_stage(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_done boolean := app.stage_decided(p_t);
begin
  update app.stages s
     set status = case when v_done then 'completed' else 'ongoing' end,
         completed_at = case when v_done then now() end
   where s.tournament_id = p_t.id and s.number = p_t.stage
     and s.status <> case when v_done then 'completed' else 'ongoing' end;
end
$$;

-- A stage's teams with their place (p_t as app.stage_of gives it): after round robin, the
-- place in the group (`place`), the overall position (`rank`) and the key the best
-- next-placed teams are compared by (app.standings_table's best_key); otherwise the stage's standing position in both, and a
-- team still in the running (not yet placed by an elimination stage) shares place 1 with
-- decided = false.
create function app.stage_ranking(p_t app.tournaments)
returns table (team_id uuid, grp int, place int, rank int, seed int, best_key numeric[], decided boolean)
language plpgsql stable
set search_path = ''
as $$
begin
  if p_t.format = 'round_robin' then
    return query
      select k.team_id, k.grp, k.group_position, k.overall_position, k.seed, k.best_key, true
        from app.standings_table(p_t, 2147483647) k;
  else
    return query
      select e.team_id, null::int, coalesce(s.position, 1), coalesce(s.position, 1), e.seed,
             null::numeric[], s.team_id is not null
        from app.stage_entries e
        left join json_to_recordset(app.stage_standings(p_t)) as s (team_id uuid, position int) on s.team_id = e.team_id
       where e.tournament_id = p_t.id and e.stage = p_t.stage;
  end if;
end
$$;
comment on function app.stage_ranking(app.tournaments) is
  'A stage''s teams with their place, overall rank, seed and record, for qualifiers and overall standings.';

-- The teams stage p_number would start with now (p_t the tournament; stage p_number - 1 has
-- started), in seed order: by tier (every group's 1st, then every group's 2nd, ..., then the
-- best_next teams), within a tier by the stage's own standing criteria, then group number;
-- seeds 1..K, kept apart by group (app.separated_seeds, 15_seeding.sql) when an elimination stage follows a
-- round robin with groups. Without groups, the top K by the stage's standings; teams sharing
-- the place at the cut are all listed, tied (they cannot be told apart: 409 stage_tie at the
-- start).
create function app.stage_qualifiers(p_t app.tournaments, p_number int)
returns table (team_id uuid, seed int, from_group int, from_position int, tied boolean)
language plpgsql stable
set search_path = ''
as $$
declare
  v_prev app.tournaments := app.stage_of(p_t, p_number - 1);
  v_def jsonb := app.stage_list(p_t) -> (p_number - 2);
  v_next text := app.stage_list(p_t) -> (p_number - 1) ->> 'format';
  v_k int := app.advancing_count(v_def, (select s.team_count from app.stages s
                                          where s.tournament_id = p_t.id and s.number = p_number - 1));
  v_per int := coalesce((v_def #>> '{advance,per_group}')::int, (v_def #>> '{advance,per_lobby}')::int);
  v_best int := (v_def #>> '{advance,best_next}')::int;
  v_groups int := (v_prev.format_options ->> 'groups')::int;
  v_ids uuid[];
  v_grp int[];
  v_place int[];
  v_seeds int[];
  v_cut int;
  v_ties int;
begin
  if v_prev.format = 'round_robin' then
    with r as (
      select x.*, x.team_id in (select d.team_id from app.stage_disqualified(v_prev) d) as dq
        from app.stage_ranking(v_prev) x
    ), best as (
      select b.team_id from r b
       where b.place = v_per + 1
       order by b.dq, b.best_key desc, b.seed
       limit v_best
    ), q as (
      -- The best_next teams are ranked among themselves by their record per match (the
      -- contract's ranking for them, since groups may differ in size: points, then the
      -- tie-breakers but head_to_head, per match), a disqualified team after the others, as in
      -- the standings: that ranking both picks them and orders their tier. The other tiers
      -- follow the stage's own standings.
      select r.*, case when r.place <= v_per then r.place else v_per + 1 end as tier,
             case when r.place <= v_per then 0
                  else row_number() over (order by r.dq, r.best_key desc, r.seed) end as best_order
        from r
       where r.place <= v_per or r.team_id in (select b.team_id from best b)
    )
    select array_agg(q.team_id order by q.tier, q.best_order, q.rank, q.grp),
           array_agg(q.grp order by q.tier, q.best_order, q.rank, q.grp),
           array_agg(q.place order by q.tier, q.best_order, q.rank, q.grp)
      into v_ids, v_grp, v_place
      from q;
  elsif v_prev.format = 'ffa' and v_def #> '{advance,per_lobby}' is not null then
    -- The first per_lobby of each lobby of the last round, by the lobby's placement (its
    -- opponents are in placement order; by seed before its first game), in tiers as after groups:
    -- every lobby's 1st, then every lobby's 2nd, ...; within a tier by the stage's standings.
    with lobbies as (
      select m.position as lobby, o.value as o, o.i::int as place
        from app.matches m cross join lateral jsonb_array_elements(m.opponents) with ordinality as o (value, i)
       where m.tournament_id = p_t.id and m.stage = v_prev.stage
         and m.round = (select max(x.round) from app.matches x where x.tournament_id = p_t.id and x.stage = v_prev.stage)
    ), q as (
      select (l.o ->> 'team_id')::uuid as team_id, l.lobby, l.place, r.rank
        from lobbies l join app.stage_ranking(v_prev) r on r.team_id = (l.o ->> 'team_id')::uuid
       where l.place <= v_per
    )
    select array_agg(q.team_id order by q.place, q.rank, q.lobby), array_agg(q.lobby order by q.place, q.rank, q.lobby),
           array_agg(q.place order by q.place, q.rank, q.lobby), count(distinct q.lobby)
      into v_ids, v_grp, v_place, v_groups
      from q;
  end if;
  if v_prev.format = 'round_robin' or (v_prev.format = 'ffa' and v_def #> '{advance,per_lobby}' is not null) then
    if v_next in ('single_elimination', 'double_elimination') and v_groups > 1 then
      v_seeds := app.separated_seeds(v_grp);
    else
      v_seeds := array(select generate_series(1, cardinality(v_ids)));
    end if;
    return query
      select u.id, u.seed, u.grp, u.place, false
        from unnest(v_ids, v_seeds, v_grp, v_place) as u (id, seed, grp, place)
       order by u.seed;
    return;
  end if;

  select array_agg(x.team_id order by x.place, x.seed), array_agg(x.place order by x.place, x.seed)
    into v_ids, v_place
    from app.stage_ranking(v_prev) x;
  v_cut := v_place[v_k];
  v_ties := case when cardinality(v_ids) > v_k and v_place[v_k + 1] = v_cut then 1 else 0 end;
  return query
    select u.id, u.i::int, null::int, u.place, v_ties = 1 and u.place = v_cut
      from unnest(v_ids, v_place) with ordinality as u (id, place, i)
     where u.i <= v_k or (v_ties = 1 and u.place = v_cut)
     order by u.i;
end
$$;
comment on function app.stage_qualifiers(app.tournaments, int) is
  'The qualifiers stage p_number would start with now: team, seed, group and place they come from, tied at the cut.';

-- Every stage as GET shows it, in order: number, name, format, format_options, advance,
-- status, team_count (null until it starts), started_at, completed_at.
create function app.stage_documents(p_t app.tournaments) returns jsonb
language sql stable
set search_path = ''
as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'number', d.n, 'name', d.def ->> 'name', 'format', d.def ->> 'format',
           'format_options', d.def -> 'format_options', 'advance', d.def -> 'advance',
           'status', coalesce(s.status, 'pending'), 'team_count', s.team_count,
           'started_at', app.iso(s.started_at), 'completed_at', app.iso(s.completed_at)) order by d.n), '[]')
    from jsonb_array_elements(app.stage_list(p_t)) with ordinality as d (def, n)
    left join app.stages s on s.tournament_id = p_t.id and s.number = d.n
$$;
comment on function app.stage_documents(app.tournaments) is 'Every stage of a tournament as the API shows it.';

-- The overall standings of a tournament with several stages: the last started stage's places
-- first (only those decided), then the teams each earlier stage did not send on, stage by stage
-- backwards, positions continuing after the block before. Within a block, after a round robin
-- one shared position per place in the group (teams of different groups never met), its
-- disqualified teams after all the others (contract section 17: last among the teams the stage
-- eliminated alongside them); after any other stage, its own order and sharing (which places a
-- disqualified team already).
create function app.event_standings(p_t app.tournaments) returns json
language sql stable
set search_path = ''
as $$
  with entries as (
    select e.stage, count(*)::int as n from app.stage_entries e where e.tournament_id = p_t.id group by e.stage
  ), blocks as (
    select k.k, r.team_id, r.place, r.grp, coalesce(c.n, 0) as above -- the teams placed ahead: stage k + 1's
      from generate_series(1, p_t.stage) as k (k)
      left join entries c on c.stage = k.k + 1
     cross join lateral app.stage_ranking(app.stage_of(p_t, k.k)) r
     where case when k.k = p_t.stage then r.decided
                else not exists (select from app.stage_entries e
                                  where e.tournament_id = p_t.id and e.stage = k.k + 1 and e.team_id = r.team_id) end
  ), placed as (
    -- The stage being played gives its own positions (only those decided so far: a team out in
    -- a quarter-final is 5th while the semi-finals are played); an earlier stage's teams that
    -- did not go on are ranked among themselves; after groups, one position per group place.
    select b.team_id, tm.name, tm.tag, tm.disqualified,
           (case when b.k = p_t.stage and b.grp is null then b.place
                 else b.above + rank() over (partition by b.k order by b.grp is not null and tm.disqualified, b.place)
            end)::int as position
      from blocks b join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = b.team_id
  )
  select coalesce(json_agg(json_build_object('position', p.position, 'team_id', p.team_id,
                                             'team_name', p.name, 'team_tag', p.tag, 'disqualified', p.disqualified)
                           order by p.position, p.name, p.team_id), '[]')
    from placed p
$$;
comment on function app.event_standings(app.tournaments) is
  'Overall standings across stages: the last started stage''s places, then each earlier stage''s teams not sent on.';

-- `advancing` as a stage start may take it (400 naming advancing otherwise): exactly p_k
-- distinct team ids, for a stage after the first. Whether they played the stage before is
-- app.start_stage's check (it depends on the state; this one does not, so it comes first).
create function app.check_advancing(p_advancing jsonb, p_k int, p_number int) returns void
language plpgsql immutable
set search_path = ''
as $$
begin
  if p_number = 1 then
    perform app.raise_invalid('advancing', 'stage 1 takes the teams taking part; advancing is for a later stage');
  end if;
  if jsonb_typeof(p_advancing) is distinct from 'array' or jsonb_array_length(p_advancing) <> p_k
     or exists (select from jsonb_array_elements(p_advancing) a
                 where jsonb_typeof(a) <> 'string' or not pg_input_is_valid(a #>> '{}', 'uuid'))
     or (select count(distinct case when pg_input_is_valid(a #>> '{}', 'uuid') then (a #>> '{}')::uuid end)
           from jsonb_array_elements(p_advancing) a) <> p_k then
    perform app.raise_invalid('advancing', format('must list exactly %s distinct team ids of stage %s', p_k, p_number - 1));
  end if;
end
$$;

-- Starts stage p_number (2 or later) of a locked, ongoing tournament whose stage p_number - 1 is
-- completed: its entries (p_advancing, the K qualifiers in seed order by hand; else
-- app.stage_qualifiers, 409 stage_tie on a tie at the cut), the tournament's current stage, its
-- matches and its row, and the forfeits of its disqualified teams, in the caller's transaction.
create function app.start_stage(p_t app.tournaments, p_number int, p_advancing jsonb) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_k int := app.advancing_count(app.stage_list(p_t) -> (p_number - 2),
                                 (select s.team_count from app.stages s where s.tournament_id = p_t.id and s.number = p_number - 1));
  v_prev app.stages;
  v_ties jsonb;
  v_bad uuid;
begin
  select * into v_prev from app.stages s where s.tournament_id = p_t.id and s.number = p_number - 1;
  if p_number > p_t.stage + 1 or v_prev.status is distinct from 'completed' then
    perform app.raise_error('invalid_status_transition',
      format('Stage %s can start only once stage %s is completed; stage %s is %s.', p_number, p_number - 1,
             p_number - 1, coalesce(v_prev.status, 'pending')));
  end if;

  if p_advancing is not null and jsonb_typeof(p_advancing) <> 'null' then
    perform app.check_advancing(p_advancing, v_k, p_number);
    select (a #>> '{}')::uuid into v_bad from jsonb_array_elements(p_advancing) a
     where not exists (select from app.stage_entries e
                        where e.tournament_id = p_t.id and e.stage = p_number - 1 and e.team_id = (a #>> '{}')::uuid)
     limit 1;
    if v_bad is not null then
      perform app.raise_invalid('advancing', format('team %s did not play stage %s', v_bad, p_number - 1));
    end if;
    insert into app.stage_entries (tournament_id, account_id, stage, team_id, seed)
    select p_t.id, p_t.account_id, p_number, (a.v #>> '{}')::uuid, a.i
      from jsonb_array_elements(p_advancing) with ordinality as a (v, i);
  else
    select jsonb_agg(jsonb_build_object('field', 'advancing', 'team_id', q.team_id, 'team_name', tm.name,
                                        'from_position', q.from_position,
                                        'message', format('%s shares place %s at the cut', tm.name, q.from_position))
                     order by q.seed)
      into v_ties
      from app.stage_qualifiers(p_t, p_number) q join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = q.team_id
     where q.tied;
    if v_ties is not null then
      perform app.raise_error('stage_tie',
        format('Teams share the last qualifying place of stage %s; send advancing: the %s teams that go on, in seed order.',
               p_number - 1, v_k), v_ties);
    end if;
    insert into app.stage_entries (tournament_id, account_id, stage, team_id, seed)
    select p_t.id, p_t.account_id, p_number, q.team_id, q.seed
      from app.stage_qualifiers(p_t, p_number) q;
  end if;

  update app.tournaments t set stage = p_number where t.id = p_t.id;
  p_t.stage := p_number;
  perform app.generate_bracket(app.stage_of(p_t, p_number));
  insert into app.stages (tournament_id, account_id, number, status, team_count)
  values (p_t.id, p_t.account_id, p_number, 'ongoing', v_k);
  -- A disqualified team placed in the stage forfeits its matches from the first (contract section 17).
  perform app.forfeit_disqualified(p_t);
end
$$;
comment on function app.start_stage(app.tournaments, int, jsonb) is
  'Starts the next stage: its teams (qualifiers or advancing), its matches and its row; 409 stage_tie on a tie at the cut.';

-- GET /tournaments/{id}/stages.
create function app.list_stages(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_t app.tournaments;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  select * into v_t from app.tournaments t where t.id = (p_args ->> 'tournament_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  return app.stage_documents(v_t)::json;
end
$$;

-- GET /tournaments/{id}/stages/{number}: the stage, its own standings and, while it is pending
-- and the stage before it has started, its qualifiers as they stand.
create function app.get_stage(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_t app.tournaments;
  v_n int;
  v_doc jsonb;
  v_started boolean;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "number": "smallint"}');
  select * into v_t from app.tournaments t where t.id = (p_args ->> 'tournament_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  v_n := (p_args ->> 'number')::int;
  v_doc := app.stage_documents(v_t) -> (v_n - 1);
  if v_n < 1 or v_doc is null then
    perform app.raise_error('not_found', 'Stage not found.');
  end if;
  v_started := v_t.status <> 'registration' and v_n <= v_t.stage;
  return v_doc || jsonb_build_object(
    'standings', case when v_started then app.stage_standings(app.stage_of(v_t, v_n))::jsonb else '[]' end,
    'qualifiers', case when not v_started and v_n >= 2 and v_t.status <> 'registration' and v_n - 1 <= v_t.stage
                       then (select coalesce(jsonb_agg(jsonb_build_object('team_id', q.team_id, 'team_name', tm.name,
                                                'seed', q.seed, 'from_group', q.from_group,
                                                'from_position', q.from_position, 'tied', q.tied) order by q.seed), '[]')
                               from app.stage_qualifiers(v_t, v_n) q join app.tournament_teams tm on tm.tournament_id = v_t.id and tm.id = q.team_id) end);
end
$$;

-- PATCH /tournaments/{id}/stages/{number} {"status": "ongoing", "advancing"?: [...]}: starts the
-- stage after a completed one. The stage's current status again is a no-op; stage 1 starts with
-- the tournament; a stage completes by itself (any other change is 409 invalid_status_transition).
create function app.update_stage(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_t app.tournaments;
  v_n int;
  v_status text;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "number": "smallint"}');
  if v_body ->> 'status' is null or v_body ->> 'status' not in ('pending', 'ongoing', 'completed') then
    perform app.raise_invalid('status', 'must be "ongoing" (or the stage''s current status)');
  end if;
  if v_body ? 'advancing' and v_body ->> 'status' <> 'ongoing' then
    perform app.raise_invalid('advancing', 'goes only with status "ongoing"');
  end if;
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  v_n := (p_args ->> 'number')::int;
  v_status := app.stage_documents(v_t) -> (v_n - 1) ->> 'status';
  if v_n < 1 or v_status is null then
    perform app.raise_error('not_found', 'Stage not found.');
  end if;
  if v_body ? 'advancing' then
    perform app.check_advancing(v_body -> 'advancing',
      case when v_n > 1 then app.advancing_count(app.stage_list(v_t) -> (v_n - 2),
                                                 (select s.team_count from app.stages s
                                                   where s.tournament_id = v_t.id and s.number = v_n - 1)) end, v_n);
  end if;
  if v_status <> v_body ->> 'status' then
    if v_body ->> 'status' <> 'ongoing' or v_status <> 'pending' then
      perform app.raise_error('invalid_status_transition',
        format('A stage cannot go from %s to %s: it completes when its last match is decided.', v_status, v_body ->> 'status'));
    elsif v_t.status <> 'ongoing' then
      perform app.raise_error('invalid_status_transition',
        case when v_n = 1 then 'Stage 1 starts with the tournament: set the tournament''s status to ongoing.'
             else format('The stages of a tournament in %s cannot start.', v_t.status) end);
    end if;
    perform app.start_stage(v_t, v_n, v_body -> 'advancing');
  end if;
  return app.get_stage(jsonb_build_object('tournament_id', v_t.id, 'number', v_n));
end
$$;
comment on function app.update_stage(jsonb) is
  'PATCH a stage: status ongoing starts it (with advancing, or the qualifiers); the current status again is a no-op.';

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert, update on app.stages to tournament_api_owner;
grant execute on function app.stage_of(app.tournaments, int) to tournament_api_owner;
grant execute on function app.advancing_count(jsonb, int) to tournament_api_owner;
grant execute on function app.raise_invalid_under(text, text) to tournament_api_owner;
grant execute on function app.stage_definitions(jsonb) to tournament_api_owner;
grant execute on function app.advance_problem(jsonb, int, int) to tournament_api_owner;
grant execute on function app.check_stage_chain(app.tournaments, int) to tournament_api_owner;
grant execute on function app.start_first_stage(app.tournaments) to tournament_api_owner;
grant execute on function app.settle_stage(app.tournaments) to tournament_api_owner;
grant execute on function app.stage_ranking(app.tournaments) to tournament_api_owner;
grant execute on function app.stage_qualifiers(app.tournaments, int) to tournament_api_owner;
grant execute on function app.stage_documents(app.tournaments) to tournament_api_owner;
grant execute on function app.event_standings(app.tournaments) to tournament_api_owner;
grant execute on function app.check_advancing(jsonb, int, int) to tournament_api_owner;
grant execute on function app.start_stage(app.tournaments, int, jsonb) to tournament_api_owner;
grant execute on function app.list_stages(jsonb) to tournament_api_owner;
grant execute on function app.get_stage(jsonb) to tournament_api_owner;
grant execute on function app.update_stage(jsonb) to tournament_api_owner;
grant execute on function app.stage_decided(app.tournaments) to tournament_api_owner;
