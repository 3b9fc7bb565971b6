-- Matches, reporting and results (contract section 5): the matches of every format (a bracket
-- or a group, a round and a position, the teams with their seeds, the result), their document,
-- and the two operations on them: PATCH a match (app.report_match) and GET the results
-- (app.tournament_results). Making the matches, advancing teams and each format's own rules are
-- in 09_formats.sql (the common part) and 10_single_elimination.sql to 14_swiss.sql.

-- ============================================================================
-- types
-- ============================================================================
create domain app.match_status as text check (value in ('pending', 'ready', 'completed', 'bye'));

-- ============================================================================
-- tables
-- ============================================================================
create table app.matches (
  id uuid primary key default gen_random_uuid(),
  tournament_id uuid not null,
  account_id uuid not null,
  round int not null check (round >= 1),
  position int not null check (position >= 1),
  team1_id uuid references app.teams (id),
  team2_id uuid references app.teams (id),
  team1_score int check (team1_score >= 0),
  team2_score int check (team2_score >= 0),
  winner_id uuid references app.teams (id),
  status app.match_status not null default 'pending',
  next_match_id uuid references app.matches (id) on delete cascade,
  completed_at timestamptz(3),
  -- Scheduling and forfeits.
  scheduled_at timestamptz(3),
  forfeit text check (forfeit in ('team1', 'team2')),
  -- The formats' columns: the bracket or group a match belongs to, and where its winner (slot
  -- next_slot of next_match_id) and its loser (loser_next_match_id, loser_next_slot) go next.
  bracket text check (bracket in ('winners', 'losers', 'grand_final', 'third_place')),
  group_no int check (group_no >= 1),
  next_slot smallint check (next_slot in (1, 2)),
  loser_next_match_id uuid references app.matches (id) on delete cascade,
  loser_next_slot smallint check (loser_next_slot in (1, 2)),
  -- Each side's bracket seed, kept on the match (app.match_seeds) so that reading a large
  -- bracket looks nothing up per match: two lookups per match were 40% of a 2,016-match
  -- results read.
  team1_seed int,
  team2_seed int,
  -- The stage (contract section 12) the match belongs to.
  stage smallint not null default 1 check (stage between 1 and 4),
  -- A match's place (tournament, stage, bracket, group, round, position) is unique: matches_place_key.
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade,
  check (team1_score is distinct from team2_score or team1_score is null),
  constraint matches_forfeit_has_no_score check (forfeit is null or (team1_score is null and team2_score is null))
);

comment on table app.matches is
  'A tournament''s matches in every format: round, position, bracket (winners, losers, grand final, third place) or group, and where winner and loser go next.';
comment on column app.matches.account_id is 'The tournament''s account, copied so that RLS needs no join.';
comment on column app.matches.forfeit is 'The team that forfeited a completed match (the other won); null otherwise.';
comment on column app.matches.bracket is
  'winners, losers, grand_final or third_place in the elimination formats; null otherwise.';
comment on column app.matches.group_no is 'The group (1-based) of a round-robin match; null otherwise.';
comment on column app.matches.team1_seed is 'team1''s seed in the match''s stage (app.stage_entries), kept by app.match_seeds.';

-- The doc is row_to_json of one record rather than json_build_object of its pairs: a third
-- faster to build (2,047 matches of a 1,024-team double elimination: 19 ms against 30).
create view app.match_documents with (security_invoker = true) as
  select m.id, m.tournament_id, m.round, m.position, row_to_json(d) as doc, m.bracket, m.group_no, m.stage
    from app.matches m
   cross join lateral (
     select m.id, m.stage, m.bracket, m.group_no as "group", m.round, m.position, m.team1_id, m.team2_id,
            m.team1_seed, m.team2_seed, m.team1_score, m.team2_score, m.winner_id, m.status::text as status,
            m.forfeit, m.next_match_id, m.loser_next_match_id,
            to_char(m.scheduled_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as scheduled_at,
            to_char(m.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as completed_at) d;
comment on view app.match_documents is 'Each match with its API representation (doc).';

-- ============================================================================
-- indexes
-- ============================================================================
-- (account_id, tournament_id): the RLS column first, and the tournament foreign key's columns.
create index matches_account_idx on app.matches (account_id, tournament_id);

create index matches_next_match_idx on app.matches (next_match_id);

-- The team foreign keys: deleting a team must not scan every match.
create index matches_team1_idx on app.matches (team1_id);

create index matches_team2_idx on app.matches (team2_id);

create index matches_winner_idx on app.matches (winner_id);

-- A match's place in its tournament.
create unique index matches_place_key
  on app.matches (tournament_id, stage, coalesce(bracket, ''), coalesce(group_no, 0), round, position);

-- A stage's matches still waiting for a result: whether a stage is decided is one probe.
create index matches_open_idx on app.matches (tournament_id, stage) where status in ('pending', 'ready');

create index matches_loser_next_match_idx on app.matches (loser_next_match_id);

-- ============================================================================
-- triggers
-- ============================================================================
-- A match's team1_seed and team2_seed follow its teams, whatever format puts them there: each
-- team's seed in the match's stage.
create function app.match_seeds() returns trigger
language plpgsql volatile
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' or new.team1_id is distinct from old.team1_id then
    new.team1_seed := (select e.seed from app.stage_entries e
                        where e.tournament_id = new.tournament_id and e.stage = new.stage and e.team_id = new.team1_id);
  end if;
  if tg_op = 'INSERT' or new.team2_id is distinct from old.team2_id then
    new.team2_seed := (select e.seed from app.stage_entries e
                        where e.tournament_id = new.tournament_id and e.stage = new.stage and e.team_id = new.team2_id);
  end if;
  return new;
end
$$;

create trigger matches_seeds before insert or update of team1_id, team2_id on app.matches
  for each row execute function app.match_seeds();

-- ============================================================================
-- policies
-- ============================================================================
alter table app.matches enable row level security;

create policy "Matches are visible to their account" on app.matches
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Matches are created in the bound account" on app.matches
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Matches are updated by their account" on app.matches
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
-- ============================================================================
-- Whether a stage is decided (p_t as app.stage_of gives it): it has matches and none waits for
-- a result (swiss: and every round has been drawn). The tournament may be completed once its
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
  end if;
  return true;
end
$$;

-- PATCH a match: a result (both scores, or a forfeit naming the team that forfeits), a
-- scheduled_at, or both; scheduled_at alone may change on any match while the tournament is
-- ongoing. A result advances the winner and, where the format sends it on, the loser
-- (app.advance, then the format's app.after_report, for the match's stage); a correction is
-- locked once either match it feeds is completed, by the format's own rule
-- (app.correction_lock), and once the next stage has started. The stage's status follows
-- (app.settle_stage).
create function app.report_match(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_t app.tournaments;
  v_st app.tournaments; -- the match's stage (app.stage_of)
  v_m app.matches;
  v_s1 int;
  v_s2 int;
  v_forfeit text := v_body ->> 'forfeit';
  v_result boolean := v_body ?| array['team1_score', 'team2_score', 'forfeit'];
  v_winner uuid;
  v_lock text;
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
    if v_m.stage < v_t.stage then
      perform app.raise_error('match_locked',
        format('Stage %s has started; the results of stage %s can no longer change.', v_m.stage + 1, v_m.stage));
    end if;
    if exists (select from app.matches n where n.id in (v_m.next_match_id, v_m.loser_next_match_id)
                                         and n.status = 'completed') then
      perform app.raise_error('match_locked',
        'A match this one feeds is completed; its result can no longer change.');
    end if;
    v_st := app.stage_of(v_t, v_m.stage);
    v_lock := app.correction_lock(v_st, v_m);
    if v_lock is not null then
      perform app.raise_error('match_locked', v_lock);
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
    perform app.advance(v_m);
    perform app.after_report(v_st, v_m);
    perform app.settle_stage(v_st);
  end if;

  if v_body ? 'scheduled_at' then
    update app.matches m set scheduled_at = (v_body ->> 'scheduled_at')::timestamptz where m.id = v_m.id;
  end if;
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$$;
comment on function app.report_match(jsonb) is
  'Records a result or forfeit (or corrects one while the next match is not completed), advances the winner, sets scheduled_at.';

-- GET the results: every started stage's matches (by stage, bracket, group, round, position)
-- and the standings. One stage: that stage's standings, which each format computes in its own
-- function (app.stage_standings); several: the overall standings block by block
-- (app.event_standings). ?stage=k keeps stage k's matches and gives its own standings. Nothing
-- while the tournament is in registration.
create function app.tournament_results(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_t app.tournaments;
  v_stage int;
  v_count int;
  v_standings json := '[]';
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(v_query, '{"stage": "smallint"}');
  v_stage := (v_query ->> 'stage')::int;
  select * into v_t from app.tournaments t where t.id = (p_args ->> 'tournament_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  v_count := jsonb_array_length(app.stage_list(v_t));
  if v_stage not between 1 and v_count then
    perform app.raise_invalid('stage', format('must be a stage of this tournament, 1 to %s', v_count));
  end if;
  if v_t.status <> 'registration' and coalesce(v_stage, 1) <= v_t.stage then
    if v_stage is not null or v_count = 1 then
      v_standings := app.stage_standings(app.stage_of(v_t, coalesce(v_stage, 1)));
    else
      v_standings := app.event_standings(v_t);
    end if;
  end if;
  return json_build_object(
    'tournament', json_build_object('id', v_t.id, 'format', v_t.format, 'status', v_t.status, 'stage', v_t.stage),
    'matches', (select coalesce(json_agg(d.doc order by d.stage,
                          array_position(array['winners', 'losers', 'grand_final', 'third_place'], d.bracket),
                          d.group_no, d.round, d.position), '[]')
                  from app.match_documents d
                 where d.tournament_id = v_t.id and (v_stage is null or d.stage = v_stage)),
    'standings', v_standings);
end
$$;
comment on function app.tournament_results(jsonb) is
  'Results: the matches by stage, round and position, and standings (a stage''s own, or the whole event''s block by block).';

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert, update on app.matches to tournament_api_owner;
grant select on app.match_documents to tournament_api_owner;
grant execute on function app.stage_decided(app.tournaments) to tournament_api_owner;
grant execute on function app.report_match(jsonb) to tournament_api_owner;
grant execute on function app.tournament_results(jsonb) to tournament_api_owner;
grant update (scheduled_at, forfeit) on app.matches to tournament_api_owner;
grant execute on function app.match_seeds() to tournament_api_owner;