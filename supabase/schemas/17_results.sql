-- Reporting and results (contract sections 5 and 13): the operations on the matches
-- (08_matches.sql) once a stage is under way: PATCH a match (app.report_match), PUT or DELETE a
-- game (app.change_game), both deciding through app.decide_match, which advances the teams
-- (09_formats.sql) and settles the stage (16_stages.sql), GET the results
-- (app.tournament_results), and a disqualified team's forfeits (contract section 17:
-- app.disqualify, app.forfeit_disqualified).

-- ============================================================================
-- functions
-- ============================================================================
-- A match's result, set (p_t as app.stage_of gives the match's stage; p_m the match as it was):
-- p_winner and the scores, forfeit and games that go with it, p_draw for a draw (no winner;
-- contract section 19), or neither for a series still under way (the match is ready again: a
-- decision undone by a game's correction or deletion); p_opponents and p_records, a free-for-all
-- lobby's opponents and records after its games (contract section 20). A change of the decision advances the
-- new winner and loser, or takes them back out of the matches they went to (app.advance with no
-- winner), runs the format's hook and settles
-- the stage. The correction rules (409 match_locked): a result sent directly on a completed
-- match (p_direct), and a change of who won, need the matches this one feeds without a result
-- and, when the winner changes, without games; and the format's own rule (app.correction_lock).
-- A game that leaves the decision as it was changes the match's games and nothing else. A match
-- a disqualified team reaches through a change (or one it is in, ready again) is forfeited in
-- the same call (app.forfeit_disqualified).
create function app.decide_match(p_t app.tournaments, p_m app.matches, p_winner uuid, p_s1 int, p_s2 int,
                                 p_forfeit text, p_games jsonb, p_direct boolean, p_draw boolean default false,
                                 p_opponents jsonb default null, p_records jsonb default null)
returns app.matches
language plpgsql volatile
set search_path = ''
as $$
declare
  v_decided boolean := p_winner is not null or p_draw;
  v_changes boolean := p_m.status = 'completed' and (p_winner, p_draw) is distinct from (p_m.winner_id, p_m.draw);
  v_fed_completed boolean;
  v_fed_games boolean;
  v_m app.matches;
  v_lock text;
begin
  if p_direct or v_changes then
    select coalesce(bool_or(n.status = 'completed'), false), coalesce(bool_or(n.games <> '[]'), false)
      into v_fed_completed, v_fed_games
      from app.matches n where n.id in (p_m.next_match_id, p_m.loser_next_match_id);
    if v_fed_completed then
      perform app.raise_error('match_locked', 'A match this one feeds is completed; its result can no longer change.');
    elsif v_changes and v_fed_games then
      perform app.raise_error('match_locked',
        'A match this one feeds has games reported (played by the team this match sent on); who won here can no longer change.');
    end if;
    v_lock := app.correction_lock(p_t, p_m);
    if v_lock is not null then
      perform app.raise_error('match_locked', v_lock);
    end if;
  end if;

  update app.matches m
     set team1_score = p_s1, team2_score = p_s2, forfeit = p_forfeit, games = p_games, winner_id = p_winner,
         draw = p_draw, opponents = coalesce(p_opponents, m.opponents), lobby_records = coalesce(p_records, m.lobby_records),
         status = case when v_decided then 'completed' else 'ready' end,
         completed_at = case when not v_decided then null
                             when m.status = 'completed' and (m.winner_id, m.draw) is not distinct from (p_winner, p_draw)
                               then m.completed_at
                             else now() end
   where m.id = p_m.id
  returning * into v_m;
  -- The organiser's own result (a PATCH, a game, a forfeit) closes an open report (contract
  -- section 18); a report being applied (app.apply_report) confirms it instead.
  if v_m.report_state in ('awaiting_confirmation', 'disputed')
     and coalesce(current_setting('app.applying_report', true), '') <> 'on' then
    perform app.set_report(v_m.id, v_m.report || jsonb_build_object('state', 'resolved', 'resolved_by', 'organizer'));
    select * into v_m from app.matches m where m.id = v_m.id;
  end if;
  if p_direct or (v_m.winner_id, v_m.draw) is distinct from (p_m.winner_id, p_m.draw) then
    perform app.advance(v_m);
    perform app.after_report(p_t, v_m);
    perform app.settle_stage(p_t);
    perform app.forfeit_disqualified(p_t);
  end if;
  return v_m;
end
$$;
comment on function app.decide_match(app.tournaments, app.matches, uuid, int, int, text, jsonb, boolean, boolean, jsonb, jsonb) is
  'Sets a match''s result (or undoes its decision) under the correction rules, advancing or retracting its teams.';

-- The checks every result and game takes (409): the tournament is ongoing, the match has its
-- teams and is not a bye, and its stage is the one being played.
create function app.check_reportable(p_t app.tournaments, p_m app.matches) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if p_t.status <> 'ongoing' then
    perform app.raise_error('match_locked',
      format('Matches cannot be changed while the tournament is %s.', p_t.status));
  end if;
  if p_m.status in ('pending', 'bye') then
    perform app.raise_error('match_not_ready',
      case p_m.status when 'bye' then 'This match is a bye; it has no result to report.'
                      else 'This match is still waiting for its teams.' end);
  end if;
  if p_m.stage < p_t.stage then
    perform app.raise_error('match_locked',
      format('Stage %s has started; the results of stage %s can no longer change.', p_m.stage + 1, p_m.stage));
  end if;
end
$$;

-- PATCH a match: a result (both scores, or a forfeit naming the team that forfeits), a
-- best_of, a scheduled_at, or any of them together; scheduled_at alone may change on any match
-- while the tournament is ongoing, best_of until the match has a game or a result. A result
-- on a best-of-n match (n > 1) is the series score, and replaces the games reported; a
-- forfeit keeps them. The winner advances and, where the format sends it on, the loser
-- (app.decide_match). The body's shape (a forfeit without scores, unequal scores, best_of odd
-- from 1 to 9, something to change) is the door's (the function's ReportMatch); here the casts,
-- and what needs the match; the table's constraints keep a direct caller to the same rules.
create function app.report_match(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_t app.tournaments;
  v_m app.matches;
  v_s1 int;
  v_s2 int;
  v_forfeit text := v_body ->> 'forfeit';
  v_result boolean := v_body ?| array['team1_score', 'team2_score', 'forfeit'];
  v_best_of int;
  v_draws boolean;
  v_problem text;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "match_id": "uuid"}');
  perform app.check_input(v_body, '{"team1_score": "int", "team2_score": "int", "scheduled_at": "timestamptz", "best_of": "int"}');
  v_s1 := (v_body ->> 'team1_score')::int;
  v_s2 := (v_body ->> 'team2_score')::int;
  if v_body ? 'forfeit' and v_forfeit is distinct from 'team1' and v_forfeit is distinct from 'team2' then
    perform app.raise_invalid('forfeit', 'must be "team1" or "team2"');
  end if;
  if v_result and v_forfeit is null and (v_s1 is null or v_s2 is null or v_s1 < 0 or v_s2 < 0) then
    perform app.raise_invalid(case when v_s1 is null or v_s1 < 0 then 'team1_score' else 'team2_score' end,
      'must be an integer of at least 0');
  end if;
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select * into v_m from app.matches m
   where m.id = (p_args ->> 'match_id')::uuid and m.tournament_id = v_t.id;
  if not found then
    perform app.raise_error('not_found', 'Match not found.');
  end if;
  if v_m.opponents is not null and (v_result or v_body ? 'best_of') then
    perform app.raise_invalid(case when v_body ? 'best_of' and not v_result then 'best_of'
                                   when v_forfeit is not null then 'forfeit' else 'team1_score' end,
      'does not apply to a free-for-all lobby: report its games (PUT .../games/{number} {results})');
  end if;
  -- Input checked against the match (and its stage) before its state: equal scores are a draw
  -- only where the stage allows draws (contract section 19), and so is an even best_of; a result
  -- on a best-of-n match (n > 1, or the best_of sent with it) is the series score.
  v_draws := app.stage_draws(app.stage_of(v_t, v_m.stage));
  v_best_of := coalesce((v_body ->> 'best_of')::int, v_m.best_of);
  if v_body ? 'best_of' and v_best_of % 2 = 0 and not v_draws then
    perform app.raise_invalid('best_of', 'must be odd: this stage does not allow draws (an even series may end level)');
  end if;
  if v_forfeit is null and v_result then
    v_problem := app.series_result_problem(v_best_of, v_draws, v_s1, v_s2);
    if v_problem is not null then
      perform app.raise_invalid(case when v_s1 > v_s2 then 'team1_score' else 'team2_score' end, v_problem);
    end if;
  end if;
  if v_t.status <> 'ongoing' then
    perform app.raise_error('match_locked',
      format('Matches cannot be changed while the tournament is %s.', v_t.status));
  end if;

  if v_body ? 'best_of' and (v_body ->> 'best_of')::int <> v_m.best_of then
    if v_m.status = 'bye' then
      perform app.raise_error('match_not_ready', 'This match is a bye; it has no series to play.');
    end if;
    if v_m.status = 'completed' or v_m.games <> '[]' then
      perform app.raise_error('match_locked',
        'This match has a result or games; its best_of can no longer change.');
    end if;
    update app.matches m set best_of = (v_body ->> 'best_of')::int where m.id = v_m.id
    returning * into v_m;
  end if;

  if v_result then
    perform app.check_reportable(v_t, v_m);
    v_m := app.decide_match(app.stage_of(v_t, v_m.stage), v_m,
      case when v_forfeit = 'team1' then v_m.team2_id
           when v_forfeit = 'team2' then v_m.team1_id
           when v_s1 > v_s2 then v_m.team1_id
           when v_s2 > v_s1 then v_m.team2_id end,
      v_s1, v_s2, v_forfeit, case when v_forfeit is null then '[]' else v_m.games end, true,
      v_forfeit is null and v_s1 = v_s2);
  end if;

  if v_body ? 'scheduled_at' then
    update app.matches m set scheduled_at = (v_body ->> 'scheduled_at')::timestamptz where m.id = v_m.id;
  end if;
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$$;
comment on function app.report_match(jsonb) is
  'Records a result or forfeit (or corrects one while the next match is not completed), advances the winner, sets best_of and scheduled_at.';

-- Who played a game (contract section 16), {team1: [player_id...], team2: [...]}: on each side
-- exactly team_size players of that side's lineup in this tournament (players or substitutes),
-- each once (the function checks the shape); a 400 naming the side otherwise.
create function app.check_game_lineups(p_t app.tournaments, p_m app.matches, p_lineups jsonb) returns void
language plpgsql stable
set search_path = ''
as $$
declare
  v_side text;
  v_team uuid;
  v_ids jsonb;
  v_known int;
begin
  foreach v_side in array array['team1', 'team2'] loop
    v_team := case v_side when 'team1' then p_m.team1_id else p_m.team2_id end;
    v_ids := coalesce(p_lineups -> v_side, '[]');
    if jsonb_array_length(v_ids) <> p_t.team_size then
      perform app.raise_invalid('lineups.' || v_side,
        format('must name exactly %s players (the team_size), not %s', p_t.team_size, jsonb_array_length(v_ids)));
    end if;
    select count(distinct e.player_id) into v_known
      from app.lineup_entries e join app.registrations r on r.id = e.registration_id
     where r.tournament_id = p_t.id and r.team_id = v_team and e.role in ('player', 'substitute')
       and e.player_id in (select (x #>> '{}')::uuid from jsonb_array_elements(v_ids) x);
    if v_known <> jsonb_array_length(v_ids) then
      perform app.raise_invalid('lineups.' || v_side,
        'must name players of that side''s lineup (players or substitutes), each once');
    end if;
  end loop;
end
$$;

-- PUT a game of a match's series (p_args.number; p_args.body {team1_score, team2_score, map?, lineups?})
-- and DELETE the last one (p_args.body null): games come in order (the next number, or one
-- reported to correct it), none past the game that decided the series (409 series_decided). The
-- match's scores are the games each side won; the side that reaches best_of / 2 + 1 wins the
-- match (a series of even length level after all its games is a draw), in this transaction, as
-- a result sent directly would (app.decide_match); a correction or deletion that changes or undoes the decision follows the correction rules. Every change records
-- match.game_reported (before the match.completed it may bring).
create function app.change_game(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := p_args -> 'body';
  v_number int;
  v_t app.tournaments;
  v_m app.matches;
  v_games jsonb;
  v_count int;
  v_need int;
  v_w1 int := 0;
  v_w2 int := 0;
  v_winner uuid;
  v_draw boolean := false;
  v_game jsonb;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "match_id": "uuid", "number": "int"}');
  v_number := (p_args ->> 'number')::int;
  if v_body is not null and not v_body ? 'results' then -- (a lobby's game: app.ffa_change_game checks it)
    if not app.is_int(v_body -> 'team1_score', 0, 1000000) then
      perform app.raise_invalid('team1_score', 'must be an integer from 0 to 1000000');
    end if;
    if not app.is_int(v_body -> 'team2_score', 0, 1000000) then
      perform app.raise_invalid('team2_score', 'must be an integer from 0 to 1000000');
    end if;
    if jsonb_typeof(v_body -> 'map') not in ('string', 'null') or length(v_body ->> 'map') > 100 then
      perform app.raise_invalid('map', 'must be a string of at most 100 characters, or null');
    end if;
  end if;
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select * into v_m from app.matches m
   where m.id = (p_args ->> 'match_id')::uuid and m.tournament_id = v_t.id;
  if not found then
    perform app.raise_error('not_found', 'Match not found.');
  end if;
  if v_m.opponents is not null then
    return app.ffa_change_game(v_t, v_m, v_number, v_body); -- a free-for-all lobby (contract section 20)
  elsif v_body ? 'results' then
    perform app.raise_invalid('results', 'is a free-for-all lobby''s game; a two-sided game is {team1_score, team2_score}');
  end if;
  v_count := jsonb_array_length(v_m.games);
  if v_body is null then
    if v_number not between 1 and v_count then
      perform app.raise_error('not_found', format('Game %s of this match has not been reported.', v_number));
    end if;
  elsif v_number not between 1 and v_m.best_of then
    perform app.raise_invalid('number', format('must be a game of this best of %s: 1 to %s', v_m.best_of, v_m.best_of));
  elsif v_number > v_count + 1 then
    perform app.raise_invalid('number', format('games are reported in order: the next is game %s', v_count + 1));
  end if;
  perform app.check_reportable(v_t, v_m);
  if jsonb_typeof(v_body -> 'lineups') = 'object' then
    perform app.check_game_lineups(v_t, v_m, v_body -> 'lineups');
  end if;
  if v_m.forfeit is not null then
    perform app.raise_error('series_decided',
      'This match was decided by forfeit; its games can no longer change (a result sent to the match corrects it).');
  end if;
  if v_body is null and v_number < v_count then
    perform app.raise_error('match_locked',
      format('Only the last game (%s) can be deleted; delete the games after game %s first.', v_count, v_number));
  end if;
  if v_body is not null and v_number > v_count and v_m.status = 'completed' then
    perform app.raise_error('series_decided',
      format('The series is decided (%s-%s); there is no game %s.', coalesce(v_m.team1_score, 0),
             coalesce(v_m.team2_score, 0), v_number));
  end if;

  -- The games after the change, counted game by game: the decision falls on the last one.
  if v_body is null then
    v_games := v_m.games - (v_number - 1);
  else
    v_game := jsonb_build_object('number', v_number, 'team1_score', (v_body ->> 'team1_score')::int,
      'team2_score', (v_body ->> 'team2_score')::int,
      'winner_id', case when (v_body ->> 'team1_score')::int > (v_body ->> 'team2_score')::int
                        then v_m.team1_id else v_m.team2_id end,
      'map', coalesce(v_body -> 'map', 'null'), 'reported_at', app.iso(now()),
      -- (who played, each id as the API writes UUIDs: lower case)
      'lineups', coalesce((select jsonb_object_agg(l.side, (select coalesce(jsonb_agg(to_jsonb((x #>> '{}')::uuid::text)), '[]')
                                                              from jsonb_array_elements(l.ids) x))
                             from jsonb_each(case when jsonb_typeof(v_body -> 'lineups') = 'object' then v_body -> 'lineups' end)
                                  as l (side, ids)), 'null'));
    v_games := case when v_number > v_count then v_m.games || jsonb_build_array(v_game)
                    else jsonb_set(v_m.games, array[(v_number - 1)::text], v_game) end;
  end if;
  -- A side needs best_of / 2 + 1 games; a series of even length that ends level after all its
  -- games is a draw (contract section 19: only where the stage allows draws).
  v_need := v_m.best_of / 2 + 1;
  for v_game in select g from jsonb_array_elements(v_games) g loop
    if v_winner is not null or v_draw then
      perform app.raise_error('series_decided',
        format('This correction decides the series at game %s; delete the games after it first.', v_w1 + v_w2));
    end if;
    if (v_game ->> 'winner_id')::uuid = v_m.team1_id then v_w1 := v_w1 + 1; else v_w2 := v_w2 + 1; end if;
    if greatest(v_w1, v_w2) = v_need then
      v_winner := case when v_w1 = v_need then v_m.team1_id else v_m.team2_id end;
    elsif v_w1 + v_w2 = v_m.best_of and v_w1 = v_w2 then
      v_draw := true;
    end if;
  end loop;

  perform app.webhook_record(json_build_array(json_build_object('account_id', v_m.account_id,
    'tournament_id', v_t.id, 'type', 'match.game_reported', 'kind', 'match.game', 'subject_id', v_m.id)));
  v_m := app.decide_match(app.stage_of(v_t, v_m.stage), v_m, v_winner,
    case when v_games <> '[]' then v_w1 end, case when v_games <> '[]' then v_w2 end, null, v_games, false, v_draw);
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$$;
comment on function app.change_game(jsonb) is
  'PUT or DELETE a game of a series: the match''s score is the games won, decided at ceil(best_of / 2).';

-- GET the results: every started stage's matches (by stage, bracket, group, round, position)
-- and the standings. One stage: that stage's standings, which each format computes in its own
-- function (app.stage_standings); several: the overall standings block by block
-- (app.event_standings). ?stage=k keeps stage k's matches and gives its own standings. Nothing
-- while the tournament is in registration. ?since=v (contract section 14) keeps the matches
-- changed after version v (an index range on matches_version_idx) and names in
-- removed_matches those taken away since (a swiss round drawn again); standings stay whole.
create function app.tournament_results(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_t app.tournaments;
  v_stage int;
  v_since bigint;
  v_report text := v_query ->> 'report_state';
  v_count int;
  v_standings json := '[]';
  v_tournament json;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(v_query, '{"stage": "smallint", "since": "bigint"}');
  v_stage := (v_query ->> 'stage')::int;
  v_since := (v_query ->> 'since')::bigint;
  if v_report not in ('awaiting_confirmation', 'disputed') then
    perform app.raise_invalid('report_state', 'must be awaiting_confirmation or disputed');
  end if;
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
  v_tournament := json_build_object('id', v_t.id, 'format', v_t.format, 'status', v_t.status, 'stage', v_t.stage,
                                    'version', app.version_of(v_t.id));
  if v_since is null then
    return json_build_object('tournament', v_tournament,
      'matches', (select coalesce(json_agg(d.doc order by d.stage,
                            array_position(array['winners', 'losers', 'grand_final', 'third_place'], d.bracket),
                            d.group_no, d.round, d.position), '[]')
                    from app.match_documents d
                   where d.tournament_id = v_t.id and (v_stage is null or d.stage = v_stage)
                     and (v_report is null or d.report_state = v_report)),
      'standings', v_standings);
  end if;
  -- (A query of its own, so that its plan is the index range on (tournament_id, version).)
  return json_build_object('tournament', v_tournament,
    'matches', (select coalesce(json_agg(d.doc order by d.stage,
                          array_position(array['winners', 'losers', 'grand_final', 'third_place'], d.bracket),
                          d.group_no, d.round, d.position), '[]')
                  from app.match_documents d
                 where d.tournament_id = v_t.id and d.version > v_since and (v_stage is null or d.stage = v_stage)
                   and (v_report is null or d.report_state = v_report)),
    'removed_matches', (select coalesce(json_agg(r.match_id order by r.version, r.match_id), '[]')
                          from app.match_removals r
                         where r.tournament_id = v_t.id and r.version > v_since
                           and (v_stage is null or r.stage = v_stage)),
    'standings', v_standings);
end
$$;
comment on function app.tournament_results(jsonb) is
  'Results: the matches by stage, round and position, and standings (a stage''s own, or the whole event''s block by block).';

-- Forfeits every ready match of the tournament's current stage (p_t.stage; p_t the tournament,
-- or a stage of it as app.stage_of gives it, whose row lock the caller holds) that holds a
-- disqualified team (contract section 17), as the organiser's PATCH {forfeit} does: the other
-- team wins, no scores, the games kept (app.decide_match). A forfeit may make another such match
-- ready (the winner's next match, a loser's drop, a swiss round drawn, a grand final's reset), so
-- it goes on until there is none: no ready match holds a disqualified team when the transaction
-- ends. When both teams are disqualified, team1 forfeits (team2 wins), so the match still has a
-- winner to send on. Called after every decision (app.decide_match: the forfeits it makes call
-- back here and return at once, this loop carrying on, so the depth stays one however long the
-- chain), after a later stage starts (app.start_stage) and by app.disqualify; stage 1 starts
-- before anyone can be disqualified. One index probe when the tournament has no disqualified
-- team.
create function app.forfeit_disqualified(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_out uuid[];
  v_m app.matches;
begin
  if current_setting('app.forfeiting', true) = 'on' then
    return; -- a forfeit of the loop below: the loop sees what it made ready
  end if;
  select array_agg(r.team_id) into v_out from app.registrations r
   where r.tournament_id = p_t.id and r.disqualified_at is not null;
  if v_out is null then
    return;
  end if;
  perform set_config('app.forfeiting', 'on', true);
  loop
    select * into v_m from app.matches m
     where m.tournament_id = p_t.id and m.stage = p_t.stage and m.status = 'ready'
       and (m.team1_id = any (v_out) or m.team2_id = any (v_out))
     order by array_position(array['winners', 'losers', 'grand_final', 'third_place'], m.bracket), m.group_no,
              m.round, m.position
     limit 1;
    exit when not found;
    perform app.decide_match(app.stage_of(p_t, v_m.stage), v_m,
      case when v_m.team1_id = any (v_out) then v_m.team2_id else v_m.team1_id end, null, null,
      case when v_m.team1_id = any (v_out) then 'team1' else 'team2' end, v_m.games, true);
  end loop;
  perform set_config('app.forfeiting', '', true);
end
$$;
comment on function app.forfeit_disqualified(app.tournaments) is
  'Forfeits, for their disqualified team, the ready matches of the current stage that hold one, until none is left.';

-- Disqualifies a registration of an ongoing tournament whose row lock the caller holds
-- (contract section 17): its team forfeits its ready match now, and every later match it reaches
-- or is placed in in the transaction that makes it ready (app.forfeit_disqualified). Results
-- decided before stay as they were; the standings place the team last among the teams placed
-- alongside it (app.stage_disqualified).
create function app.disqualify(p_t app.tournaments, p_r app.registrations) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  update app.registrations r set disqualified_at = clock_timestamp(), disqualified_stage = p_t.stage where r.id = p_r.id;
  perform app.forfeit_disqualified(p_t);
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.decide_match(app.tournaments, app.matches, uuid, int, int, text, jsonb, boolean, boolean, jsonb, jsonb) to tournament_api_owner;
grant execute on function app.check_reportable(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.report_match(jsonb) to tournament_api_owner;
grant execute on function app.change_game(jsonb) to tournament_api_owner;
grant execute on function app.tournament_results(jsonb) to tournament_api_owner;
grant execute on function app.check_game_lineups(app.tournaments, app.matches, jsonb) to tournament_api_owner;
grant execute on function app.forfeit_disqualified(app.tournaments) to tournament_api_owner;
grant execute on function app.disqualify(app.tournaments, app.registrations) to tournament_api_owner;
grant update (disqualified_at, disqualified_stage) on app.registrations to tournament_api_owner;
