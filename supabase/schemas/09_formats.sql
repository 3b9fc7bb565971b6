-- Formats (contract section 10), the common part: a tournament's format_options, checked and
-- completed with their defaults; one advancement rule for every format (the winner and, where
-- the format sends it on, the loser); and one dispatch each for the format's generator, its
-- correction rule, its report hook and its standings. Each format's own rules are in
-- 10_single_elimination.sql to 14_swiss.sql; the list of formats is app.formats()
-- (05_tournaments.sql). Every hook takes the tournament as one stage sees it (app.stage_of,
-- 16_stages.sql: that stage's format, options and number in p_t.format, p_t.format_options and
-- p_t.stage) and touches only that stage's matches and entries.

-- ============================================================================
-- functions
-- ============================================================================
-- The slot (1..p_slots) of the i-th of a list (0-based) dealt in snake order: 1, 2, ..., n, n,
-- ..., 1, 1, ... Round robin deals its groups by seed so, free-for-all its lobbies.
create function app.snake_slot(p_i int, p_slots int) returns int
language sql immutable
set search_path = ''
as $$
  select case when (p_i / p_slots) % 2 = 0 then p_i % p_slots + 1 else p_slots - p_i % p_slots end
$$;

-- Whether a JSON value is a series length: an odd integer from 1 to 9.
create function app.is_best_of(p_value jsonb) returns boolean
language sql immutable
set search_path = ''
as $$
  select case when app.is_int(p_value, 1, 9) then (p_value::text)::int % 2 = 1 else false end
$$;

-- The series length of a stage's matches (p_t as app.stage_of gives it): final_best_of for the
-- final of single elimination and the grand final (and its reset) of double elimination,
-- best_of for every other match.
create function app.series_length(p_t app.tournaments, p_final boolean) returns smallint
language sql immutable
set search_path = ''
as $$
  select coalesce(case when p_final then (p_t.format_options ->> 'final_best_of')::smallint end,
                  (p_t.format_options ->> 'best_of')::smallint, 1::smallint)
$$;

-- The format's options, checked strictly and completed with their defaults; a 400 naming the
-- field (format_options.<name>) otherwise.
create function app.format_options(p_format text, p_options jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
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
  if p_format = 'ffa' then
    return app.ffa_options(v_options); -- (no series: a lobby plays its games; 14_free_for_all.sql)
  end if;
  v_known := case p_format
    when 'single_elimination' then array['third_place_match', 'best_of', 'final_best_of', 'draws']
    when 'double_elimination' then array['grand_final', 'best_of', 'final_best_of', 'draws']
    when 'round_robin' then array['groups', 'points', 'best_of', 'draws', 'tie_breakers']
    when 'swiss' then array['rounds', 'best_of', 'draws', 'points', 'tie_breakers'] end;
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
      v_out := jsonb_build_object('groups', coalesce(v_options -> 'groups', '1'));
      if not app.is_int(v_out -> 'groups', 1, 512) then
        perform app.raise_invalid('format_options.groups', 'must be an integer from 1 to 512');
      end if;
    when 'swiss' then
      v_out := jsonb_build_object('rounds', coalesce(v_options -> 'rounds', 'null'));
      if jsonb_typeof(v_out -> 'rounds') <> 'null' and not app.is_int(v_out -> 'rounds', 1, 1023) then
        perform app.raise_invalid('format_options.rounds', 'must be an integer from 1 to 1023, or null for ceil(log2 N)');
      end if;
  end case;

  -- Draws, points and tie-breakers (contract section 19): round robin and swiss.
  v_out := v_out || app.scoring_options(p_format, v_options);

  -- Series (contract section 13): every match a best of best_of games; the elimination
  -- formats' final (single elimination) or grand final and its reset a best of final_best_of.
  -- With draws a series may have an even length (it may end level).
  v_out := v_out || jsonb_build_object('best_of', coalesce(v_options -> 'best_of', '1'));
  if coalesce((v_out ->> 'draws')::boolean, false) then
    if not app.is_int(v_out -> 'best_of', 1, 9) then
      perform app.raise_invalid('format_options.best_of', 'must be an integer from 1 to 9');
    end if;
  elsif not app.is_best_of(v_out -> 'best_of') then
    perform app.raise_invalid('format_options.best_of', 'must be an odd integer from 1 to 9 (even only with draws)');
  end if;
  if p_format in ('single_elimination', 'double_elimination') then
    v_out := v_out || jsonb_build_object('final_best_of', coalesce(v_options -> 'final_best_of', v_out -> 'best_of'));
    if not app.is_best_of(v_out -> 'final_best_of') then
      perform app.raise_invalid('format_options.final_best_of', 'must be an odd integer from 1 to 9');
    end if;
  end if;
  return v_out;
end
$$;
comment on function app.format_options(text, jsonb) is
  'The options of a format, checked (400 format_options.<name>) and completed with defaults.';

-- Makes a stage's matches once (p_t as app.stage_of gives it): when the tournament goes from
-- registration to ongoing (stage 1, app.change_status), or when a later stage starts
-- (app.start_stage, its entries written first). The caller holds the tournament's row lock, so
-- two racing starts make one set of matches. Single elimination's matches are its winners
-- bracket, with a third-place match when format_options.third_place_match asks for one.
create function app.generate_bracket(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  if exists (select from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage) then
    return; -- made already
  end if;
  case p_t.format
    when 'single_elimination' then
      perform app.generate_single_elimination(p_t);
      update app.matches m set bracket = 'winners' where m.tournament_id = p_t.id and m.stage = p_t.stage;
      if (p_t.format_options ->> 'third_place_match')::boolean then
        perform app.add_third_place_match(p_t);
      end if;
    when 'round_robin' then
      perform app.generate_round_robin(p_t);
    when 'double_elimination' then
      perform app.generate_double_elimination(p_t);
    when 'swiss' then
      perform app.generate_swiss(p_t);
    when 'ffa' then
      perform app.generate_ffa(p_t);
  end case;
end
$$;
comment on function app.generate_bracket(app.tournaments) is
  'Makes a stage''s matches for its format from its entries; does nothing if they exist.';

-- Places a decided match's winner and loser in the matches they go to, and sets those
-- matches ready or pending. Works for corrections too: the slots are overwritten; a match
-- whose decision was undone (no winner: a series under way again) empties them.
-- A match's winner goes to next_match_id in slot next_slot (1 = team1, 2 = team2) and its loser
-- to loser_next_match_id in loser_next_slot. A match without next_slot (single elimination's
-- winners bracket) sends the winner of position p to slot 2 - p % 2. A grand final's reset is
-- double elimination's own to settle (app.double_elimination_after_report).
create function app.advance(p_m app.matches) returns void
language plpgsql volatile
set search_path = ''
as $$
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
$$;

-- The format's own rule for whether a decided match may still be corrected (null: it may; else
-- the reason, answered as 409 match_locked). Beyond the common rule (a match it feeds is
-- completed), only swiss has one: a round's results are final once the next round has one.
create function app.correction_lock(p_t app.tournaments, p_m app.matches) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  if p_m.status = 'completed' and p_t.format = 'swiss' then
    return app.swiss_correction_lock(p_t, p_m);
  end if;
  return null;
end
$$;

-- What a format does once a result is in (after app.advance): double elimination settles its
-- grand final, swiss draws its next round, free-for-all deals its next round (draw "standings").
create function app.after_report(p_t app.tournaments, p_m app.matches) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  case p_t.format
    when 'double_elimination' then perform app.double_elimination_after_report(p_t, p_m);
    when 'swiss' then perform app.swiss_after_report(p_t, p_m);
    when 'ffa' then perform app.ffa_after_report(p_t, p_m);
    else null;
  end case;
end
$$;

-- The disqualified teams (contract section 17) that a stage's standings (p_t as app.stage_of
-- gives it) place last among the teams placed alongside them: those disqualified while the stage
-- was played (or before the next started), and those disqualified later that the stage did not
-- send on (it is the stage that eliminated them). A team that went on before it was disqualified
-- keeps its place in the stages it left; every standing still shows it disqualified.
create function app.stage_disqualified(p_t app.tournaments) returns table (team_id uuid)
language sql stable
set search_path = ''
as $$
  select r.team_id from app.registrations r
   where r.tournament_id = p_t.id and r.disqualified_at is not null
     and (r.disqualified_stage <= p_t.stage
          or not exists (select from app.stage_entries e
                          where e.tournament_id = p_t.id and e.stage = p_t.stage + 1 and e.team_id = r.team_id))
$$;
comment on function app.stage_disqualified(app.tournaments) is
  'The disqualified teams a stage''s standings place last among those placed alongside them (not those it sent on before their disqualification).';

-- A stage's own standings (p_t as app.stage_of gives it), by its format; none before it starts.
create function app.stage_standings(p_t app.tournaments) returns json
language plpgsql stable
set search_path = ''
as $$
begin
  -- One statement per format (see app.stage_decided).
  case p_t.format
    when 'single_elimination' then return app.single_elimination_standings(p_t);
    when 'round_robin' then return app.round_robin_standings(p_t);
    when 'double_elimination' then return app.double_elimination_standings(p_t);
    when 'swiss' then return app.swiss_standings(p_t);
    when 'ffa' then return app.ffa_standings(p_t);
  end case;
end
$$;
comment on function app.stage_standings(app.tournaments) is 'A stage''s standings as its format ranks them.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.formats() to tournament_api_owner;
grant execute on function app.snake_slot(int, int) to tournament_api_owner;
grant execute on function app.is_best_of(jsonb) to tournament_api_owner;
grant execute on function app.series_length(app.tournaments, boolean) to tournament_api_owner;
grant execute on function app.format_options(text, jsonb) to tournament_api_owner;
grant execute on function app.generate_bracket(app.tournaments) to tournament_api_owner;
grant execute on function app.advance(app.matches) to tournament_api_owner;
grant execute on function app.correction_lock(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.after_report(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.stage_disqualified(app.tournaments) to tournament_api_owner;
grant execute on function app.stage_standings(app.tournaments) to tournament_api_owner;
