-- Matches (contract sections 5 and 13): the matches of every format (a bracket or a group, a
-- round and a position, the teams with their seeds, the result, the series and its games) and
-- their document. Making the matches, advancing teams and each format's own rules are in
-- 09_formats.sql (the common part) and 10_single_elimination.sql to 14_swiss.sql; stages in
-- 16_stages.sql; the operations on a match (reporting, games, results) in 17_results.sql.

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
  -- The series (contract section 13): a best of best_of games, and the games reported, in
  -- number order, each {number, team1_score, team2_score, winner_id, map, reported_at}. The
  -- games are part of the match: at most nine, always read and written with it under its row
  -- lock, so the results read stays one row per match (app.report_game keeps them whole).
  best_of smallint not null default 1 check (best_of between 1 and 9),
  games jsonb not null default '[]',
  -- The tournament's version (contract section 14) that last changed the match: the changes
  -- since version v are an index range (matches_version_idx), set by app.match_version.
  version bigint not null default 1,
  -- A participants' report (contract section 18) as the API shows it, {state, team1, team2,
  -- confirm_by, resolved_by, note}, null when none; its state and deadline as columns too, for
  -- the organiser's queue (?report_state=) and the worker's sweep (app.confirm_due_reports).
  -- Written by app.set_report only.
  report jsonb,
  report_state text check (report_state in ('awaiting_confirmation', 'confirmed', 'disputed', 'resolved', 'void')),
  report_confirm_by timestamptz(3),
  -- A draw (contract section 19): completed level, without a winner; only in a round robin or
  -- swiss stage with draws (the function checks the stage; an even best_of is one of those too).
  draw boolean not null default false,
  -- A free-for-all lobby (contract section 20): its teams, [{team_id, team_name, team_tag, seed,
  -- placement, kills, points}] in placement order (by seed before its first game), written by
  -- app.ffa_deal and app.ffa_change_game; team1_id and team2_id are null there, and its games are
  -- [{number, results: [{team_id, placement, kills, points}], reported_at}]. Null on a two-sided match.
  opponents jsonb,
  -- A lobby's records: each team's totals over its games, [{team_id, points, kills, first_places,
  -- best_placement, last_game, games}], written with them (app.ffa_lobby), which the stage's
  -- standings add up instead of every game's results. Not shown by the API.
  lobby_records jsonb,
  -- A match's place (tournament, stage, bracket, group, round, position) is unique: matches_place_key.
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade,
  -- A decided match has a winner, or is a draw; a series under way may stand level (1-1 in a
  -- best of three).
  constraint matches_decided_scores check (status <> 'completed' or team1_score is distinct from team2_score
                                           or team1_score is null or draw),
  constraint matches_draw_check check (not draw or (status = 'completed' and winner_id is null and forfeit is null)),
  -- (A lobby plays its stage's `games`, at most 20; best_of does not apply to it.)
  constraint matches_games_check check (jsonb_typeof(games) = 'array'
                                        and jsonb_array_length(games) <= case when opponents is null then best_of else 20 end),
  constraint matches_lobby_check check (opponents is null
                                        or (jsonb_typeof(opponents) = 'array' and team1_id is null and team2_id is null)),
  constraint matches_forfeit_has_no_score check (forfeit is null or (team1_score is null and team2_score is null)),
  -- Every game has a winner (the door refuses equal scores; this keeps a direct caller to it too).
  constraint matches_games_have_winners check (not jsonb_path_exists(games, '$[*] ? (@.team1_score == @.team2_score)'))
);

comment on table app.matches is
  'A tournament''s matches in every format: round, position, bracket (winners, losers, grand final, third place) or group, and where winner and loser go next.';
comment on column app.matches.account_id is 'The tournament''s account, copied so that RLS needs no join.';
comment on column app.matches.forfeit is 'The team that forfeited a completed match (the other won); null otherwise.';
comment on column app.matches.bracket is
  'winners, losers, grand_final or third_place in the elimination formats; null otherwise.';
comment on column app.matches.group_no is 'The group (1-based) of a round-robin match; null otherwise.';
comment on column app.matches.best_of is 'The series length: the match is decided when a side wins ceil(best_of / 2) games.';
comment on column app.matches.games is
  'The games reported, in number order: [{number, team1_score, team2_score, winner_id, map, reported_at}].';
comment on column app.matches.team1_seed is 'team1''s seed in the match''s stage (app.stage_entries), kept by app.match_seeds.';

-- The doc is row_to_json of one record rather than json_build_object of its pairs: a third
-- faster to build (2,047 matches of a 1,024-team double elimination: 19 ms against 30).
create view app.match_documents with (security_invoker = true) as
  select m.id, m.tournament_id, m.round, m.position, row_to_json(d) as doc, m.bracket, m.group_no, m.stage,
         m.version, m.report_state
    from app.matches m
   cross join lateral (
     select m.id, m.stage, m.bracket, m.group_no as "group", m.round, m.position, m.team1_id, m.team2_id,
            m.team1_seed, m.team2_seed, m.team1_score, m.team2_score, m.winner_id, m.draw, m.status::text as status,
            m.forfeit, case when m.opponents is null then m.best_of end as best_of, m.games, m.next_match_id,
            m.loser_next_match_id,
            to_char(m.scheduled_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as scheduled_at,
            to_char(m.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as completed_at, m.report,
            m.opponents) d;
-- (m.version and m.report_state are the last columns: a view gains columns only at its end.)
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

-- What changed since a version (?since=, the live stream): an index range.
create index matches_version_idx on app.matches (tournament_id, version);

-- The reports awaiting confirmation by their deadline (the worker's sweep), and a tournament's
-- open ones (its organiser's queue).
create index matches_report_due_idx on app.matches (report_confirm_by) where report_state = 'awaiting_confirmation';

create index matches_report_open_idx on app.matches (tournament_id, report_state)
  where report_state in ('awaiting_confirmation', 'disputed');

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

-- A correction upstream that changes who plays a match makes its open report (awaiting
-- confirmation or disputed: contract section 18) void, whatever changed the teams.
create function app.match_report_void() returns trigger
language plpgsql volatile
set search_path = ''
as $$
begin
  if new.report_state in ('awaiting_confirmation', 'disputed')
     and (new.team1_id, new.team2_id) is distinct from (old.team1_id, old.team2_id) then
    new.report := jsonb_set(new.report, '{state}', '"void"');
    new.report_state := 'void';
    new.report_confirm_by := null;
  end if;
  return new;
end
$$;

create trigger matches_report_void before update of team1_id, team2_id on app.matches
  for each row execute function app.match_report_void();

-- Writes a match's report (the API's object, or null) with its state and deadline columns.
create function app.set_report(p_match_id uuid, p_report jsonb) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  update app.matches m
     set report = p_report, report_state = p_report ->> 'state',
         report_confirm_by = case when p_report ->> 'state' = 'awaiting_confirmation'
                                  then (p_report ->> 'confirm_by')::timestamptz end
   where m.id = p_match_id;
end
$$;

-- ============================================================================
-- policies
-- ============================================================================
alter table app.matches enable row level security;

create policy "Matches are visible to their account" on app.matches
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Matches are created in the bound account" on app.matches
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Matches are deleted by their account" on app.matches
  for delete to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Matches are updated by their account" on app.matches
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- grants
-- ============================================================================
-- (delete: a swiss round drawn again after a decision of the round before is undone)
grant select, insert, update, delete on app.matches to tournament_api_owner;
grant select on app.match_documents to tournament_api_owner;
grant update (scheduled_at, forfeit) on app.matches to tournament_api_owner;
grant execute on function app.match_seeds() to tournament_api_owner;
grant execute on function app.match_report_void() to tournament_api_owner;
grant execute on function app.set_report(uuid, jsonb) to tournament_api_owner;
