-- Series (contract section 13): best-of matches and their games.
--
-- - format_options (and each stage's) gain best_of (odd, 1-9, default 1) and, for the
--   elimination formats, final_best_of (default best_of); matches gain best_of (set when the
--   matches are made: final_best_of for the final or grand final) and games (the series' games,
--   in number order); a series under way may stand level (matches_decided_scores replaces
--   matches_check).
-- - Operations games.put and games.delete (app.change_game); app.decide_match is the one way a
--   match's result is set or undone (app.report_match and app.change_game call it), and
--   app.advance empties the slots of a match whose decision was undone; double elimination's
--   reset waits again, and swiss's next round goes (drawn again when the round is decided again:
--   tournament_api_owner may delete matches now).
-- - Webhooks: match.game_reported (recorded by app.change_game); a decision undone is
--   match.corrected, not match.ready.
-- - Existing tournaments' options are completed with the new defaults (best_of 1), with the
--   webhook trigger off: that is no change anyone made.
--
-- Drafted with `npm run db:diff` from supabase/schemas and reviewed: the owner's own privileges
-- it spells out are left out; the backfill is written by hand.

SET local check_function_bodies = off;

DROP VIEW "app"."match_documents";

ALTER TABLE "app"."matches"
  DROP CONSTRAINT "matches_check";

ALTER TABLE "app"."matches"
  ADD COLUMN "best_of" smallint NOT NULL DEFAULT 1;

ALTER TABLE "app"."matches"
  ADD COLUMN "games" jsonb NOT NULL DEFAULT '[]'::jsonb;

CREATE OR REPLACE FUNCTION app.add_third_place_match (
  p_t app.tournaments
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_final app.matches;
  v_id uuid := gen_random_uuid();
begin
  select * into v_final from app.matches m
   where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'winners' and m.next_match_id is null;
  if v_final.round < 2
     or (select count(*) from app.stage_entries e where e.tournament_id = p_t.id and e.stage = p_t.stage) < 4 then
    return;
  end if;
  insert into app.matches (id, tournament_id, account_id, stage, bracket, round, position, status, best_of)
  values (v_id, p_t.id, p_t.account_id, p_t.stage, 'third_place', v_final.round, 1, 'pending',
          app.series_length(p_t, false));
  update app.matches m set loser_next_match_id = v_id, loser_next_slot = (2 - m.position % 2)::smallint
   where m.tournament_id = p_t.id and m.stage = p_t.stage and m.next_match_id = v_final.id;
end
$function$;

CREATE OR REPLACE FUNCTION app.advance (
  p_m app.matches
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_loser uuid := case when p_m.winner_id = p_m.team1_id then p_m.team2_id
                       when p_m.winner_id = p_m.team2_id then p_m.team1_id end;
begin
  if p_m.bracket = 'grand_final' then
    return;
  end if;
  if p_m.next_match_id is not null then
    update app.matches m
       set team1_id = case when coalesce(p_m.next_slot, 2 - p_m.position % 2) = 1 then p_m.winner_id else m.team1_id end,
           team2_id = case when coalesce(p_m.next_slot, 2 - p_m.position % 2) = 2 then p_m.winner_id else m.team2_id end
     where m.id = p_m.next_match_id;
  end if;
  if p_m.loser_next_match_id is not null then
    update app.matches m
       set team1_id = case when p_m.loser_next_slot = 1 then v_loser else m.team1_id end,
           team2_id = case when p_m.loser_next_slot = 2 then v_loser else m.team2_id end
     where m.id = p_m.loser_next_match_id;
  end if;
  update app.matches m
     set status = case when m.team1_id is not null and m.team2_id is not null then 'ready' else 'pending' end
   where m.id in (p_m.next_match_id, p_m.loser_next_match_id) and m.status in ('pending', 'ready');
end
$function$;

CREATE OR REPLACE FUNCTION app.change_game (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
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
  v_game jsonb;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "match_id": "uuid", "number": "int"}');
  v_number := (p_args ->> 'number')::int;
  if v_body is not null then
    if not app.is_int(v_body -> 'team1_score', 0, 1000000) then
      perform app.raise_invalid('team1_score', 'must be an integer from 0 to 1000000');
    end if;
    if not app.is_int(v_body -> 'team2_score', 0, 1000000) then
      perform app.raise_invalid('team2_score', 'must be an integer from 0 to 1000000');
    end if;
    if (v_body ->> 'team1_score')::int = (v_body ->> 'team2_score')::int then
      perform app.raise_invalid('team2_score', 'scores cannot be equal: a game needs a winner');
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
      'map', coalesce(v_body -> 'map', 'null'), 'reported_at', app.iso(now()));
    v_games := case when v_number > v_count then v_m.games || jsonb_build_array(v_game)
                    else jsonb_set(v_m.games, array[(v_number - 1)::text], v_game) end;
  end if;
  v_need := (v_m.best_of + 1) / 2;
  for v_game in select g from jsonb_array_elements(v_games) g loop
    if v_winner is not null then
      perform app.raise_error('series_decided',
        format('This correction decides the series at game %s; delete the games after it first.', v_w1 + v_w2));
    end if;
    if (v_game ->> 'winner_id')::uuid = v_m.team1_id then v_w1 := v_w1 + 1; else v_w2 := v_w2 + 1; end if;
    if greatest(v_w1, v_w2) = v_need then
      v_winner := case when v_w1 = v_need then v_m.team1_id else v_m.team2_id end;
    end if;
  end loop;

  perform app.webhook_record(json_build_array(json_build_object('account_id', v_m.account_id,
    'tournament_id', v_t.id, 'type', 'match.game_reported', 'kind', 'match.game', 'subject_id', v_m.id)));
  v_m := app.decide_match(app.stage_of(v_t, v_m.stage), v_m, v_winner,
    case when v_games <> '[]' then v_w1 end, case when v_games <> '[]' then v_w2 end, null, v_games, false);
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.check_reportable (
  p_t app.tournaments,
  p_m app.matches
)
  RETURNS void
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.decide_match (
  p_t       app.tournaments,
  p_m       app.matches,
  p_winner  uuid,
  p_s1      integer,
  p_s2      integer,
  p_forfeit text,
  p_games   jsonb,
  p_direct  boolean
)
  RETURNS app.matches
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_changes boolean := p_m.status = 'completed' and p_winner is distinct from p_m.winner_id;
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
         status = case when p_winner is null then 'ready' else 'completed' end,
         completed_at = case when p_winner is null then null
                             when m.status = 'completed' and m.winner_id = p_winner then m.completed_at
                             else now() end
   where m.id = p_m.id
  returning * into v_m;
  if p_direct or v_m.winner_id is distinct from p_m.winner_id then
    perform app.advance(v_m);
    perform app.after_report(p_t, v_m);
    perform app.settle_stage(p_t);
  end if;
  return v_m;
end
$function$;

CREATE OR REPLACE FUNCTION app.double_elimination_after_report (
  p_t app.tournaments,
  p_m app.matches
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_bye app.matches;
begin
  for v_bye in
    select * from app.matches m
     where m.id in (p_m.next_match_id, p_m.loser_next_match_id) and m.bracket = 'losers' and m.status = 'bye'
  loop
    if exists (select from app.matches n
                where n.id = v_bye.next_match_id
                  and (n.status = 'completed'
                       or (n.games <> '[]' and coalesce(v_bye.team1_id, v_bye.team2_id) is distinct from v_bye.winner_id))) then
      perform app.raise_error('match_locked',
        'A match this one feeds (through a bye) is completed; its result can no longer change.');
    end if;
    update app.matches m set winner_id = coalesce(m.team1_id, m.team2_id)
     where m.id = v_bye.id
    returning * into v_bye;
    perform app.advance(v_bye);
  end loop;

  if p_m.bracket = 'grand_final' and p_m.round = 1 and p_m.next_match_id is not null then
    -- (only when that changes it: a correction that keeps the grand final's winner leaves a
    -- reset under way, its games and score, as it is)
    update app.matches m
       set team1_id = r.team1_id, team2_id = r.team2_id, status = r.status,
           winner_id = null, team1_score = null, team2_score = null, forfeit = null, completed_at = null
      from (select case when p_m.winner_id = p_m.team2_id then p_m.team1_id end as team1_id,
                   case when p_m.winner_id = p_m.team2_id then p_m.team2_id end as team2_id,
                   case when p_m.winner_id is null then 'pending'
                        when p_m.winner_id = p_m.team2_id then 'ready' else 'bye' end::app.match_status as status) r
     where m.id = p_m.next_match_id
       and (m.team1_id, m.team2_id, m.status) is distinct from (r.team1_id, r.team2_id, r.status);
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION app.format_options (
  p_format  text,
  p_options jsonb
)
  RETURNS jsonb
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
declare
  v_options jsonb := coalesce(p_options, '{}');
  v_known text[];
  v_unknown text;
  v_out jsonb;
begin
  if p_format is null or p_format <> all (app.formats()) then
    perform app.raise_invalid('format', 'must be one of ' || array_to_string(app.formats(), ', '));
  end if;
  if jsonb_typeof(v_options) <> 'object' then
    perform app.raise_invalid('format_options', 'must be an object');
  end if;
  v_known := case p_format
    when 'single_elimination' then array['third_place_match', 'best_of', 'final_best_of']
    when 'double_elimination' then array['grand_final', 'best_of', 'final_best_of']
    when 'round_robin' then array['groups', 'points', 'best_of']
    when 'swiss' then array['rounds', 'best_of'] end;
  select k into v_unknown from jsonb_object_keys(v_options) k where k <> all (v_known) order by k limit 1;
  if v_unknown is not null then
    perform app.raise_invalid('format_options.' || v_unknown, format('is not an option of %s', p_format));
  end if;

  case p_format
    when 'single_elimination' then
      v_out := jsonb_build_object('third_place_match', coalesce(v_options -> 'third_place_match', 'false'));
      if jsonb_typeof(v_out -> 'third_place_match') <> 'boolean' then
        perform app.raise_invalid('format_options.third_place_match', 'must be a boolean');
      end if;
    when 'double_elimination' then
      v_out := jsonb_build_object('grand_final', coalesce(v_options -> 'grand_final', '"reset"'));
      if v_out ->> 'grand_final' is null or v_out ->> 'grand_final' not in ('single', 'reset')
         or jsonb_typeof(v_out -> 'grand_final') <> 'string' then
        perform app.raise_invalid('format_options.grand_final', 'must be "single" or "reset"');
      end if;
    when 'round_robin' then
      v_out := jsonb_build_object('groups', coalesce(v_options -> 'groups', '1'),
        'points', coalesce(v_options -> 'points', '{}'));
      if not app.is_int(v_out -> 'groups', 1, 512) then
        perform app.raise_invalid('format_options.groups', 'must be an integer from 1 to 512');
      end if;
      if jsonb_typeof(v_out -> 'points') <> 'object' then
        perform app.raise_invalid('format_options.points', 'must be an object {win, loss}');
      end if;
      select k into v_unknown from jsonb_object_keys(v_out -> 'points') k where k not in ('win', 'loss') order by k limit 1;
      if v_unknown is not null then
        perform app.raise_invalid('format_options.points.' || v_unknown, 'is not a known field (win, loss)');
      end if;
      v_out := jsonb_set(v_out, '{points}', jsonb_build_object(
        'win', coalesce(v_out #> '{points,win}', '3'), 'loss', coalesce(v_out #> '{points,loss}', '0')));
      if not app.is_int(v_out #> '{points,win}', -1000, 1000) then
        perform app.raise_invalid('format_options.points.win', 'must be an integer from -1000 to 1000');
      end if;
      if not app.is_int(v_out #> '{points,loss}', -1000, 1000) then
        perform app.raise_invalid('format_options.points.loss', 'must be an integer from -1000 to 1000');
      end if;
    when 'swiss' then
      v_out := jsonb_build_object('rounds', coalesce(v_options -> 'rounds', 'null'));
      if jsonb_typeof(v_out -> 'rounds') <> 'null' and not app.is_int(v_out -> 'rounds', 1, 1023) then
        perform app.raise_invalid('format_options.rounds', 'must be an integer from 1 to 1023, or null for ceil(log2 N)');
      end if;
  end case;

  -- Series (contract section 13): every match a best of best_of games; the elimination
  -- formats' final (single elimination) or grand final and its reset a best of final_best_of.
  v_out := v_out || jsonb_build_object('best_of', coalesce(v_options -> 'best_of', '1'));
  if not app.is_best_of(v_out -> 'best_of') then
    perform app.raise_invalid('format_options.best_of', 'must be an odd integer from 1 to 9');
  end if;
  if p_format in ('single_elimination', 'double_elimination') then
    v_out := v_out || jsonb_build_object('final_best_of', coalesce(v_options -> 'final_best_of', v_out -> 'best_of'));
    if not app.is_best_of(v_out -> 'final_best_of') then
      perform app.raise_invalid('format_options.final_best_of', 'must be an odd integer from 1 to 9');
    end if;
  end if;
  return v_out;
end
$function$;

CREATE OR REPLACE FUNCTION app.generate_double_elimination (
  p_t app.tournaments
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_n int;
  v_size int := 2;
  v_k int := 1;
  v_teams uuid[];
  v_order int[];
  v_reset boolean := p_t.format_options ->> 'grand_final' = 'reset';
  v_gf int;
  v_total int;
  v_lb_off int[] := '{}';
  v_ids uuid[];
  v_bracket text[];
  v_round int[];
  v_pos int[];
  v_t1 uuid[];
  v_t2 uuid[];
  v_status text[];
  v_winner uuid[];
  v_next int[];
  v_nslot int[];
  v_lnext int[];
  v_lslot int[];
  v_off int;
  v_c int;
  v_x int;
  v_y int;
begin
  v_n := app.seed_participants(p_t);
  while v_size < v_n loop
    v_size := v_size * 2;
    v_k := v_k + 1;
  end loop;
  v_teams := array(select e.team_id from app.stage_entries e
                    where e.tournament_id = p_t.id and e.stage = p_t.stage order by e.seed);
  v_order := app.seed_order(v_size);
  v_gf := 2 * v_size - 2;                     -- P - 1 winners matches, P - 2 losers matches
  v_total := v_gf + case when v_reset then 1 else 0 end;
  -- every array 1..v_total, so that unnest below lines them up
  v_bracket := array_fill(null::text, array[v_total]); v_status := v_bracket;
  v_round := array_fill(null::int, array[v_total]); v_pos := v_round; v_next := v_round;
  v_nslot := v_round; v_lnext := v_round; v_lslot := v_round;
  v_t1 := array_fill(null::uuid, array[v_total]); v_t2 := v_t1; v_winner := v_t1;

  -- losers bracket: round l has P / 2^(ceil(l/2) + 1) matches
  v_off := v_size - 1;
  for l in 1 .. 2 * (v_k - 1) loop
    v_lb_off[l] := v_off;
    v_c := v_size >> ((l + 1) / 2 + 1);
    for j in 1 .. v_c loop
      v_x := v_off + j;
      v_bracket[v_x] := 'losers'; v_round[v_x] := l; v_pos[v_x] := j; v_status[v_x] := 'pending';
      if l % 2 = 1 then
        v_next[v_x] := v_off + v_c + j; v_nslot[v_x] := 2;
      elsif l = 2 * (v_k - 1) then
        v_next[v_x] := v_gf; v_nslot[v_x] := 2;
      else
        v_next[v_x] := v_off + v_c + (j + 1) / 2; v_nslot[v_x] := 2 - j % 2;
      end if;
    end loop;
    v_off := v_off + v_c;
  end loop;

  -- winners bracket
  for r in 1 .. v_k loop
    for p in 1 .. v_size >> r loop
      v_x := v_size - (v_size >> (r - 1)) + p;
      v_bracket[v_x] := 'winners'; v_round[v_x] := r; v_pos[v_x] := p; v_status[v_x] := 'pending';
      if r = 1 then
        v_t1[v_x] := v_teams[v_order[2 * p - 1]];
        v_t2[v_x] := v_teams[v_order[2 * p]];
        if v_t2[v_x] is null then
          v_status[v_x] := 'bye'; v_winner[v_x] := v_t1[v_x];
        else
          v_status[v_x] := 'ready';
        end if;
      end if;
      if r < v_k then
        v_next[v_x] := v_size - (v_size >> r) + (p + 1) / 2; v_nslot[v_x] := 2 - p % 2;
      else
        v_next[v_x] := v_gf; v_nslot[v_x] := 1;
      end if;
      if v_status[v_x] = 'bye' then
        null; -- no loser
      elsif v_k = 1 then
        v_lnext[v_x] := v_gf; v_lslot[v_x] := 2;
      elsif r = 1 then
        v_lnext[v_x] := v_lb_off[1] + (p + 1) / 2; v_lslot[v_x] := 2 - p % 2;
      else
        v_lnext[v_x] := v_lb_off[2 * (r - 1)] + 1 + app.double_elimination_drop_position(
          case when r = v_k then 'natural' else app.double_elimination_minor_ordering(v_size, r - 2) end,
          p - 1, v_size >> r);
        v_lslot[v_x] := 1;
      end if;
    end loop;
  end loop;

  -- winners round-1 byes: the team goes straight to round 2; the losers match a bye feeds can
  -- only get one team (a bye), or none (then the round-2 losers match it feeds gets only one)
  for p in 1 .. v_size >> 1 loop
    if v_status[p] = 'bye' then
      if v_nslot[p] = 1 then v_t1[v_next[p]] := v_winner[p]; else v_t2[v_next[p]] := v_winner[p]; end if;
      if v_t1[v_next[p]] is not null and v_t2[v_next[p]] is not null then
        v_status[v_next[p]] := 'ready';
      end if;
    end if;
  end loop;
  for j in 1 .. v_size >> 2 loop
    v_x := v_lb_off[1] + j;
    if v_status[2 * j - 1] = 'bye' or v_status[2 * j] = 'bye' then
      v_status[v_x] := 'bye';
      if v_status[2 * j - 1] = 'bye' and v_status[2 * j] = 'bye' then
        v_y := v_next[v_x];
        v_status[v_y] := 'bye';
      end if;
    end if;
  end loop;

  -- grand final
  v_bracket[v_gf] := 'grand_final'; v_round[v_gf] := 1; v_pos[v_gf] := 1; v_status[v_gf] := 'pending';
  if v_reset then
    v_next[v_gf] := v_gf + 1; v_nslot[v_gf] := 1;
    v_bracket[v_gf + 1] := 'grand_final'; v_round[v_gf + 1] := 2; v_pos[v_gf + 1] := 1;
    v_status[v_gf + 1] := 'pending';
  end if;

  v_ids := array(select gen_random_uuid() from generate_series(1, v_total));
  insert into app.matches (id, tournament_id, account_id, stage, bracket, round, position, team1_id, team2_id,
                           status, winner_id, next_match_id, next_slot, loser_next_match_id, loser_next_slot,
                           best_of)
  select u.id, p_t.id, p_t.account_id, p_t.stage, u.bracket, u.round, u.position, u.team1_id, u.team2_id,
         u.status::app.match_status, u.winner_id, v_ids[u.next], u.next_slot::smallint,
         v_ids[u.loser_next], u.loser_next_slot::smallint, app.series_length(p_t, u.bracket = 'grand_final')
    -- unnest walks the arrays once (subscripting an array with nulls or text walks it from the start)
    from unnest(v_ids, v_bracket, v_round, v_pos, v_t1, v_t2, v_status, v_winner, v_next, v_nslot, v_lnext, v_lslot)
         as u(id, bracket, round, position, team1_id, team2_id, status, winner_id, next, next_slot, loser_next,
              loser_next_slot);
end
$function$;

CREATE OR REPLACE FUNCTION app.generate_round_robin (
  p_t app.tournaments
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_groups int := (p_t.format_options ->> 'groups')::int;
  v_n int;
begin
  v_n := app.seed_participants(p_t);
  if v_n < 2 * v_groups then
    perform app.raise_error('invalid_status_transition',
      format('A round robin of %s groups needs at least %s teams taking part (2 a group); it has %s.',
             v_groups, 2 * v_groups, v_n));
  end if;

  insert into app.matches (tournament_id, account_id, stage, group_no, round, position, team1_id, team2_id, status,
                           best_of)
  with members as (
    select e.team_id, e.seed,
           case when ((e.seed - 1) / v_groups) % 2 = 0 then (e.seed - 1) % v_groups + 1
                else v_groups - (e.seed - 1) % v_groups end as grp
      from app.stage_entries e
     where e.tournament_id = p_t.id and e.stage = p_t.stage
  ), ranked as (
    select m.*, (row_number() over (partition by m.grp order by m.seed) - 1)::int as k from members m
  ), sizes as (
    select k.grp, (count(*) + count(*) % 2)::int as m from ranked k group by k.grp
  ), pairs as (
    select s.grp, r.r, i.i,
           case when i.i = 0 then 0 else 1 + ((i.i - 1 + r.r) % (s.m - 1)) end as a,
           1 + ((s.m - 2 - i.i + r.r) % (s.m - 1)) as b
      from sizes s
     cross join lateral generate_series(0, s.m - 2) r (r)
     cross join lateral generate_series(0, s.m / 2 - 1) i (i)
  )
  select p_t.id, p_t.account_id, p_t.stage, p.grp, p.r + 1,
         row_number() over (partition by p.grp, p.r order by p.i),
         case when ta.seed < tb.seed then ta.team_id else tb.team_id end,
         case when ta.seed < tb.seed then tb.team_id else ta.team_id end,
         'ready', app.series_length(p_t, false)
    from pairs p
    join ranked ta on ta.grp = p.grp and ta.k = p.a
    join ranked tb on tb.grp = p.grp and tb.k = p.b
   order by p.grp, p.r, p.i;
end
$function$;

CREATE OR REPLACE FUNCTION app.generate_single_elimination (
  p_t app.tournaments
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_n int;
  v_size int := 1;
  v_rounds int := 0;
begin
  v_n := app.seed_participants(p_t);
  while v_size < v_n loop
    v_size := v_size * 2;
    v_rounds := v_rounds + 1;
  end loop;

  -- One insert: every match gets its id up front (slots is materialized once) so that
  -- next_match_id can be filled in; round-1 byes put their team straight into round 2.
  insert into app.matches (id, tournament_id, account_id, stage, round, position, team1_id, team2_id,
                           status, winner_id, next_match_id, best_of)
  with seeds as (
    select e.seed, e.team_id
      from app.stage_entries e where e.tournament_id = p_t.id and e.stage = p_t.stage
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
  select t.id, p_t.id, p_t.account_id, p_t.stage, t.round, t.position, t.team1_id, t.team2_id,
         case when t.round = 1 and t.bye_winner is not null then 'bye'
              when t.team1_id is not null and t.team2_id is not null then 'ready'
              else 'pending' end,
         t.bye_winner, nxt.id, app.series_length(p_t, t.round = v_rounds)
    from teams t
    left join slots nxt on nxt.round = t.round + 1 and nxt.position = (t.position + 1) / 2
   order by t.round, t.position;
end
$function$;

CREATE OR REPLACE FUNCTION app.is_best_of (
  p_value jsonb
)
  RETURNS boolean
  LANGUAGE sql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
  select case when app.is_int(p_value, 1, 9) then (p_value::text)::int % 2 = 1 else false end
$function$;

CREATE OR REPLACE FUNCTION app.operation (
  p_op     text,
  p_args   jsonb,
  p_key_id uuid,
  p_run    boolean,
  OUT      scope text,
  OUT      writes boolean,
  OUT      result json
)
  RETURNS record
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
begin
  case p_op
    when 'tournaments.list'      then scope := 'read:tournaments';     writes := false; if p_run then result := app.list_tournaments(p_args); end if;
    when 'tournaments.get'       then scope := 'read:tournaments';     writes := false; if p_run then result := app.get_tournament(p_args); end if;
    when 'tournaments.create'    then scope := 'write:tournaments';    writes := true;  if p_run then result := app.create_tournament(p_args); end if;
    when 'tournaments.update'    then scope := 'write:tournaments';    writes := true;  if p_run then result := app.update_tournament(p_args); end if;
    when 'tournaments.delete'    then scope := 'write:tournaments';    writes := true;  if p_run then result := app.delete_tournament(p_args); end if;
    when 'registrations.list'    then scope := 'read:registrations';   writes := false; if p_run then result := app.list_registrations(p_args); end if;
    when 'registrations.get'     then scope := 'read:registrations';   writes := false; if p_run then result := app.get_registration(p_args); end if;
    when 'registrations.create'  then scope := 'write:registrations';  writes := true;  if p_run then result := app.create_registration(p_args); end if;
    when 'registrations.update'  then scope := 'write:registrations';  writes := true;  if p_run then result := app.update_registration(p_args); end if;
    when 'registrations.delete'  then scope := 'write:registrations';  writes := true;  if p_run then result := app.delete_registration(p_args); end if;
    when 'results.get'           then scope := 'read:results';         writes := false; if p_run then result := app.tournament_results(p_args); end if;
    when 'matches.report'        then scope := 'write:results';        writes := true;  if p_run then result := app.report_match(p_args); end if;
    when 'games.put'             then scope := 'write:results';        writes := true;  if p_run then result := app.change_game(p_args); end if;
    when 'games.delete'          then scope := 'write:results';        writes := true;  if p_run then result := app.change_game(p_args - 'body'); end if;
    when 'stages.list'           then scope := 'read:results';         writes := false; if p_run then result := app.list_stages(p_args); end if;
    when 'stages.get'            then scope := 'read:results';         writes := false; if p_run then result := app.get_stage(p_args); end if;
    when 'stages.update'         then scope := 'write:tournaments';    writes := true;  if p_run then result := app.update_stage(p_args); end if;
    when 'teams.list'            then scope := 'read:teams';           writes := false; if p_run then result := app.list_teams(p_args); end if;
    when 'teams.get'             then scope := 'read:teams';           writes := false; if p_run then result := app.get_team(p_args); end if;
    when 'teams.create'          then scope := 'write:teams';          writes := true;  if p_run then result := app.create_team(p_args); end if;
    when 'teams.update'          then scope := 'write:teams';          writes := true;  if p_run then result := app.update_team(p_args); end if;
    when 'teams.delete'          then scope := 'write:teams';          writes := true;  if p_run then result := app.delete_team(p_args); end if;
    when 'webhooks.list'         then scope := 'read:webhooks';        writes := false; if p_run then result := app.list_webhooks(p_args); end if;
    when 'webhooks.get'          then scope := 'read:webhooks';        writes := false; if p_run then result := app.get_webhook(p_args); end if;
    when 'webhooks.create'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.create_webhook(p_args); end if;
    when 'webhooks.update'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.update_webhook(p_args); end if;
    when 'webhooks.delete'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.delete_webhook(p_args); end if;
    when 'webhooks.rotate'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.rotate_webhook_secret(p_args); end if;
    when 'webhooks.test'         then scope := 'write:webhooks';       writes := true;  if p_run then result := app.test_webhook(p_args); end if;
    when 'deliveries.list'       then scope := 'read:webhooks';        writes := false; if p_run then result := app.list_webhook_deliveries(p_args); end if;
    when 'deliveries.retry'      then scope := 'write:webhooks';       writes := true;  if p_run then result := app.retry_webhook_delivery(p_args); end if;
    when 'me'                    then scope := null;                   writes := false; if p_run then result := app.me(p_key_id); end if;
    else raise exception 'unknown operation %', p_op using errcode = '22023';
  end case;
end
$function$;

CREATE OR REPLACE FUNCTION app.report_match (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_t app.tournaments;
  v_m app.matches;
  v_s1 int;
  v_s2 int;
  v_forfeit text := v_body ->> 'forfeit';
  v_result boolean := v_body ?| array['team1_score', 'team2_score', 'forfeit'];
  v_need int;
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
  if v_body ? 'best_of' and not app.is_best_of(v_body -> 'best_of') then
    perform app.raise_invalid('best_of', 'must be an odd integer from 1 to 9');
  end if;
  if not v_result and not v_body ?| array['scheduled_at', 'best_of'] then
    perform app.raise_invalid('body', 'send a result (both scores, or forfeit), best_of and/or scheduled_at');
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
  -- A result on a best-of-n match (n > 1, or the best_of sent with it) is the series score:
  -- input, checked against the match before its state.
  v_need := (coalesce((v_body ->> 'best_of')::int, v_m.best_of) + 1) / 2;
  if v_forfeit is null and v_result and v_need > 1
     and (greatest(v_s1, v_s2) <> v_need or least(v_s1, v_s2) >= v_need) then
    perform app.raise_invalid(case when v_s1 > v_s2 then 'team1_score' else 'team2_score' end,
      format('a best of %s is the series score: the winner has exactly %s games, the loser fewer',
             2 * v_need - 1, v_need));
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
           when v_s1 > v_s2 then v_m.team1_id else v_m.team2_id end,
      v_s1, v_s2, v_forfeit, case when v_forfeit is null then '[]' else v_m.games end, true);
  end if;

  if v_body ? 'scheduled_at' then
    update app.matches m set scheduled_at = (v_body ->> 'scheduled_at')::timestamptz where m.id = v_m.id;
  end if;
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.series_length (
  p_t     app.tournaments,
  p_final boolean
)
  RETURNS smallint
  LANGUAGE sql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
  select coalesce(case when p_final then (p_t.format_options ->> 'final_best_of')::smallint end,
                  (p_t.format_options ->> 'best_of')::smallint, 1::smallint)
$function$;

CREATE OR REPLACE FUNCTION app.swiss_after_report (
  p_t app.tournaments,
  p_m app.matches
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_next int := p_m.round + 1;
begin
  if exists (select from app.matches m
              where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round = p_m.round
                and m.status in ('pending', 'ready')) then
    -- The round goes on. If it was decided and a game's correction or deletion has undone a
    -- decision, the next round (drawn, with no result and no game: app.swiss_correction_lock)
    -- goes again: only the current round's matches exist (contract section 10); it is drawn
    -- anew when the round is decided again.
    delete from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round = v_next;
    return;
  end if;
  if exists (select from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round = v_next) then
    -- Redrawn in place: a round always has the same positions (the bye last), so each keeps
    -- its id (and scheduled_at); only the positions whose teams change are written.
    update app.matches m
       set team1_id = p.draw_team1, team2_id = p.draw_team2,
           winner_id = case when p.draw_team2 is null then p.draw_team1 end,
           status = case when p.draw_team2 is null then 'bye' else 'ready' end
      from app.swiss_pairings(p_t, v_next) p
     where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round = v_next and m.position = p.draw_position
       and (m.team1_id, m.team2_id) is distinct from (p.draw_team1, p.draw_team2);
  elsif v_next <= app.swiss_rounds(p_t) then
    perform app.swiss_draw(p_t, v_next);
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION app.swiss_correction_lock (
  p_t app.tournaments,
  p_m app.matches
)
  RETURNS text
  LANGUAGE sql
  STABLE
  SET search_path TO ''
  AS $function$
  select 'The next round has a result or games; this round''s results can no longer change.'
   where exists (select from app.matches m
                  where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round > p_m.round
                    and (m.status = 'completed' or m.games <> '[]'))
$function$;

CREATE OR REPLACE FUNCTION app.swiss_draw (
  p_t     app.tournaments,
  p_round integer
)
  RETURNS void
  LANGUAGE sql
  SET search_path TO ''
  AS $function$
  insert into app.matches (tournament_id, account_id, stage, round, position, team1_id, team2_id, winner_id, status,
                           best_of)
  select p_t.id, p_t.account_id, p_t.stage, p_round, p.draw_position, p.draw_team1, p.draw_team2,
         case when p.draw_team2 is null then p.draw_team1 end,
         case when p.draw_team2 is null then 'bye' else 'ready' end, app.series_length(p_t, false)
    from app.swiss_pairings(p_t, p_round) p
   order by p.draw_position
$function$;

CREATE OR REPLACE FUNCTION app.webhook_change_events()
  RETURNS TRIGGER
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_intents json;
begin
  if not exists (select from app.webhook_endpoints w where w.enabled) then
    return null; -- no endpoint of the bound account (or anywhere, for the operator): nothing to hear
  end if;
  case tg_table_name
  when 'tournaments' then
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.id,
               'type', 'tournament.created', 'kind', 'tournament', 'subject_id', n.id)) into v_intents
        from new_rows n;
    elsif tg_op = 'DELETE' then
      select json_agg(json_build_object('account_id', o.account_id, 'tournament_id', o.id,
               'type', 'tournament.deleted', 'kind', 'tournament', 'subject_id', o.id,
               'data', json_build_object('id', o.id))) into v_intents
        from old_rows o;
    else
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.id,
               'type', case when n.status is not distinct from o.status then 'tournament.updated'
                            when n.status = 'ongoing' then 'tournament.started'
                            when n.status = 'completed' then 'tournament.completed'
                            else 'tournament.updated' end,
               'kind', 'tournament', 'subject_id', n.id)) into v_intents
        from new_rows n join old_rows o on o.id = n.id
       where (n.name, n.description, n.game_id, n.status, n.format, n.format_options, n.team_size, n.max_teams,
              n.entry_fee, n.prize_pool, n.starts_at, n.registration_closes, n.check_in_opens, n.rules, n.stages)
             is distinct from
             (o.name, o.description, o.game_id, o.status, o.format, o.format_options, o.team_size, o.max_teams,
              o.entry_fee, o.prize_pool, o.starts_at, o.registration_closes, o.check_in_opens, o.rules, o.stages);
    end if;
  when 'registrations' then
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'registration.created', 'kind', 'registration', 'subject_id', n.id)) into v_intents
        from new_rows n;
    else
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'registration.updated', 'kind', 'registration', 'subject_id', n.id)) into v_intents
        from new_rows n join old_rows o on o.id = n.id
       where (n.seed, n.payment_status, n.checked_in_at) is distinct from (o.seed, o.payment_status, o.checked_in_at);
    end if;
  when 'matches' then
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'match.ready', 'kind', 'match.ready', 'subject_id', n.id)) into v_intents
        from new_rows n
       where n.status = 'ready';
    else
      select json_agg(e) into v_intents
        from new_rows n
        join old_rows o on o.id = n.id
       cross join lateral (
         -- A match gets both teams (again, when a correction changes who plays it).
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', 'match.ready', 'kind', 'match.ready', 'subject_id', n.id) as e
          where n.status = 'ready'
            and (o.status not in ('ready', 'completed') or (n.team1_id, n.team2_id) is distinct from (o.team1_id, o.team2_id))
         union all
         -- A result, or a change of one (a series' decision undone by a game included).
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', case when o.status = 'completed' then 'match.corrected' else 'match.completed' end,
                  'kind', 'match.result', 'subject_id', n.id)
          where n.team1_id is not null and n.team2_id is not null
            and ((n.status = 'completed' and o.status = 'ready')
                 or (o.status = 'completed' and n.status = 'ready')
                 or (n.status = 'completed' and o.status = 'completed'
                     and (n.winner_id, n.team1_score, n.team2_score, n.forfeit)
                         is distinct from (o.winner_id, o.team1_score, o.team2_score, o.forfeit)))
         union all
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', 'match.scheduled', 'kind', 'match.scheduled', 'subject_id', n.id)
          where n.scheduled_at is distinct from o.scheduled_at
       ) x;
    end if;
  when 'stages' then
    -- A stage starts (its row is made) and completes (or reopens, which says nothing).
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'stage.started', 'kind', 'stage', 'subject_id', n.id)) into v_intents
        from new_rows n;
    else
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'stage.completed', 'kind', 'stage', 'subject_id', n.id)) into v_intents
        from new_rows n join old_rows o on o.id = n.id
       where n.status = 'completed' and o.status <> 'completed';
    end if;
  end case;
  if v_intents is not null then
    perform app.webhook_record(v_intents);
  end if;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION app.webhook_event_types()
  RETURNS text[]
  LANGUAGE sql
  IMMUTABLE
  PARALLEL SAFE
  SET search_path TO ''
  AS $function$
  select array['tournament.created', 'tournament.updated', 'tournament.started', 'tournament.completed',
               'tournament.cancelled', 'tournament.deleted', 'registration.created', 'registration.updated',
               'registration.withdrawn', 'match.ready', 'match.completed', 'match.corrected', 'match.scheduled',
               'match.game_reported', 'stage.started', 'stage.completed']
$function$;

ALTER TABLE "app"."matches"
  ADD CONSTRAINT "matches_best_of_check" CHECK (best_of between 1 and 9 and best_of % 2 = 1);

ALTER TABLE "app"."matches"
  ADD CONSTRAINT "matches_decided_scores" CHECK ((((status)::text <> 'completed'::text) OR (team1_score IS DISTINCT FROM team2_score) OR (team1_score IS NULL)));

ALTER TABLE "app"."matches"
  ADD CONSTRAINT "matches_games_check" CHECK (((jsonb_typeof(games) = 'array'::text) AND (jsonb_array_length(games) <= best_of)));

-- Existing tournaments' options with the new defaults, as app.format_options now completes them.
ALTER TABLE app.tournaments DISABLE TRIGGER webhook_events_on_update;

UPDATE app.tournaments t
   SET format_options = app.format_options(t.format, t.format_options),
       stages = (SELECT jsonb_agg(d || jsonb_build_object('format_options',
                                    app.format_options(d ->> 'format', d -> 'format_options')) ORDER BY i)
                   FROM jsonb_array_elements(t.stages) WITH ORDINALITY AS x (d, i))
 WHERE NOT t.format_options ? 'best_of'
    OR (t.stages IS NOT NULL AND NOT t.stages -> 0 -> 'format_options' ? 'best_of');

ALTER TABLE app.tournaments ENABLE TRIGGER webhook_events_on_update;

CREATE VIEW "app"."match_documents" WITH (security_invoker=true) AS  SELECT m.id,
    m.tournament_id,
    m.round,
    m."position",
    row_to_json(d.*) AS doc,
    m.bracket,
    m.group_no,
    m.stage
   FROM (app.matches m
     CROSS JOIN LATERAL ( SELECT m.id,
            m.stage,
            m.bracket,
            m.group_no AS "group",
            m.round,
            m."position",
            m.team1_id,
            m.team2_id,
            m.team1_seed,
            m.team2_seed,
            m.team1_score,
            m.team2_score,
            m.winner_id,
            (m.status)::text AS status,
            m.forfeit,
            m.best_of,
            m.games,
            m.next_match_id,
            m.loser_next_match_id,
            to_char((m.scheduled_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text) AS scheduled_at,
            to_char((m.completed_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text) AS completed_at) d);

CREATE POLICY "Matches are deleted by their account" ON "app"."matches"
  FOR DELETE
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

COMMENT ON COLUMN "app"."matches"."best_of" IS 'The series length: the match is decided when a side wins ceil(best_of / 2) games.';

COMMENT ON COLUMN "app"."matches"."games" IS 'The games reported, in number order: [{number, team1_score, team2_score, winner_id, map, reported_at}].';

COMMENT ON FUNCTION "app"."change_game"(jsonb) IS 'PUT or DELETE a game of a series: the match''s score is the games won, decided at ceil(best_of / 2).';

COMMENT ON FUNCTION "app"."decide_match"(app.tournaments, app.matches, uuid, integer, integer, text, jsonb, boolean) IS 'Sets a match''s result (or undoes its decision) under the correction rules, advancing or retracting its teams.';

COMMENT ON FUNCTION "app"."report_match"(jsonb) IS 'Records a result or forfeit (or corrects one while the next match is not completed), advances the winner, sets best_of and scheduled_at.';

COMMENT ON VIEW "app"."match_documents" IS 'Each match with its API representation (doc).';

REVOKE ALL ON FUNCTION "app"."change_game"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."change_game"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."check_reportable"(app.tournaments, app.matches) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."check_reportable"(app.tournaments, app.matches) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."decide_match"(app.tournaments, app.matches, uuid, integer, integer, text, jsonb, boolean) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."decide_match"(app.tournaments, app.matches, uuid, integer, integer, text, jsonb, boolean) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."is_best_of"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."is_best_of"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."series_length"(app.tournaments, boolean) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."series_length"(app.tournaments, boolean) TO "tournament_api_owner";

REVOKE ALL ON TABLE "app"."matches" FROM "tournament_api_owner";

REVOKE ALL ("forfeit") ON TABLE "app"."matches" FROM "tournament_api_owner";

GRANT UPDATE ("forfeit") ON TABLE "app"."matches" TO "tournament_api_owner";

REVOKE ALL ("scheduled_at") ON TABLE "app"."matches" FROM "tournament_api_owner";

GRANT UPDATE ("scheduled_at") ON TABLE "app"."matches" TO "tournament_api_owner";

GRANT DELETE, INSERT, SELECT, UPDATE ON TABLE "app"."matches" TO "tournament_api_owner";

GRANT SELECT ON TABLE "app"."match_documents" TO "tournament_api_owner";
