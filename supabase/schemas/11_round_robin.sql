-- Round robin (contract section 10): groups dealt by seed in snake order, every pair of a
-- group meets once, rounds by the circle method (no team twice in a round), standings per group
-- and overall by points and tie-breakers (contract section 19, 09_scoring.sql). All matches
-- exist from the start and nothing advances, so the format has no report hook (09_formats.sql).

-- ============================================================================
-- functions
-- ============================================================================
-- Makes every match at once. Snake order with G groups: seeds 1..G go to groups 1..G, seeds
-- G+1..2G to groups G..1, and so on. Circle method in a group of n teams (one more, a blank,
-- when n is odd): team 0 stays, the others turn one place a round; in round r the i-th team of
-- the circle meets the (m-1-i)-th. A pair with the blank is no match (that team rests).
-- The better seed is team1.
create function app.generate_round_robin(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
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
    select e.team_id, e.seed, app.snake_slot(e.seed - 1, v_groups) as grp
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
$$;
comment on function app.generate_round_robin(app.tournaments) is
  'Round robin: snake-order groups, circle-method rounds, every pair of a group once.';

-- Standings: every team by the stage's order (app.standings_table: points, the tie-breakers,
-- seed; disqualified teams last), with its group, group position, record and what separated it
-- from the team above it in its group.
create function app.round_robin_standings(p_t app.tournaments) returns json
language sql stable
set search_path = ''
as $$
  select coalesce(json_agg(json_build_object('position', k.overall_position, 'group', k.grp,
                                             'group_position', k.group_position, 'team_id', k.team_id,
                                             'team_name', tm.name, 'team_tag', tm.tag, 'disqualified', tm.disqualified,
                                             'wins', k.wins, 'draws', k.draws, 'losses', k.losses, 'points', k.points,
                                             'separated_by', k.separated_by)
                           order by k.overall_position, tm.name, tm.id), '[]')
    from app.standings_table(p_t, 2147483647) k join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = k.team_id
$$;
comment on function app.round_robin_standings(app.tournaments) is
  'Round-robin standings: points, the tie-breakers, seed (disqualified teams last); with draws and separated_by.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.generate_round_robin(app.tournaments) to tournament_api_owner;
grant execute on function app.round_robin_standings(app.tournaments) to tournament_api_owner;
