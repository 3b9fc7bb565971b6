-- Swiss (contract section 10), the format's hooks: the generator (seeds, checks the rounds,
-- draws round 1); the report hook, which draws each next round when the last result of the
-- round before comes in; the correction rule (a result may be corrected while the next round
-- has no result or game; a correction that changes the next round's draw rewrites that round's
-- matches in place, each position keeping its match id and scheduled_at, and one that undoes a
-- decision of the round, by a game, takes the next round away); completion; and standings
-- (points, then the tie-breakers, then seed: 09_scoring.sql). The pairing itself is
-- 13_swiss_pairing.sql.

-- ============================================================================
-- functions
-- ============================================================================
-- The generator hook: seeds the participants, checks the number of rounds, draws round 1.
create function app.generate_swiss(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_n int;
  v_rounds int;
begin
  v_n := app.seed_participants(p_t);
  v_rounds := app.swiss_rounds(p_t);
  if v_rounds > v_n - 1 then
    perform app.raise_error('invalid_status_transition',
      format('A swiss tournament of %s rounds needs at least %s teams taking part (rounds at most N - 1); it has %s.',
             v_rounds, v_rounds + 1, v_n));
  end if;
  perform app.swiss_draw(p_t, 1);
end
$$;
comment on function app.generate_swiss(app.tournaments) is
  'Swiss: seeds the participants and draws round 1 (409 when the rounds exceed N - 1).';

-- The report hook (after every result or correction in round r): once round r is decided,
-- round r + 1 is drawn if it is not yet and the tournament has more rounds; if it is drawn
-- already (a correction: it has no result yet, see app.swiss_correction_lock), it is drawn
-- again and the matches whose teams change are rewritten. Reports are serialised by the
-- tournament's row lock, so a round is drawn once however many of its results arrive together.
create function app.swiss_after_report(p_t app.tournaments, p_m app.matches) returns void
language plpgsql volatile
set search_path = ''
as $$
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
$$;
comment on function app.swiss_after_report(app.tournaments, app.matches) is
  'Swiss: draws the next round when a round is decided; redraws it when a correction changes its draw.';

-- A round's results are final once a later round has a result (or a game).
create function app.swiss_correction_lock(p_t app.tournaments, p_m app.matches) returns text
language sql stable
set search_path = ''
as $$
  select 'The next round has a result or games; this round''s results can no longer change.'
   where exists (select from app.matches m
                  where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round > p_m.round
                    and (m.status = 'completed' or m.games <> '[]'))
$$;
comment on function app.swiss_correction_lock(app.tournaments, app.matches) is
  'Swiss: null while a decided match may be corrected (no later round has a result), else the 409 message.';

-- Complete when every round is drawn (app.stage_decided checks that all are decided).
create function app.swiss_complete(p_t app.tournaments) returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce(max(m.round), 0) >= app.swiss_rounds(p_t)
    from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage
$$;
comment on function app.swiss_complete(app.tournaments) is 'Swiss: every round has been drawn.';

-- Standings: every participant by the stage's order (app.standings_table: points, the
-- tie-breakers, seed, so positions are 1..N; a disqualified team after every other one), with its
-- record, points, Buchholz (the sum of its opponents' points) and what separated it from the
-- team above it.
create function app.swiss_standings(p_t app.tournaments) returns json
language sql stable
set search_path = ''
as $$
  select coalesce(json_agg(json_build_object('position', k.overall_position, 'team_id', k.team_id,
                                             'team_name', tm.name, 'team_tag', tm.tag, 'disqualified', tm.disqualified,
                                             'wins', k.wins, 'draws', k.draws, 'losses', k.losses, 'points', k.points,
                                             'buchholz', k.buchholz, 'separated_by', k.separated_by)
                           order by k.overall_position, tm.name, tm.id), '[]')
    from app.standings_table(p_t, 2147483647) k join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = k.team_id
$$;
comment on function app.swiss_standings(app.tournaments) is
  'Swiss standings: every participant by points, the tie-breakers, seed (disqualified teams last); with record, points, buchholz, separated_by.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.generate_swiss(app.tournaments) to tournament_api_owner;
grant execute on function app.swiss_after_report(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.swiss_correction_lock(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.swiss_complete(app.tournaments) to tournament_api_owner;
grant execute on function app.swiss_standings(app.tournaments) to tournament_api_owner;
