-- Round robin (contract section 10): groups dealt by seed in snake order, every pair of a
-- group meets once, rounds by the circle method (no team twice in a round), points per result
-- (format_options.points), standings per group and overall. All matches exist from the start
-- and nothing advances, so the format has no report hook (09_formats.sql).

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
$$;
comment on function app.generate_round_robin(app.tournaments) is
  'Round robin: snake-order groups, circle-method rounds, every pair of a group once.';

-- The stage's table: per team its group, seed, wins, losses, points (format_options.points) and
-- scores for and against; ranked by points, then the points won against the teams level on
-- points, then score difference, then score for, then seed. `overall_position` is overall,
-- `group_position` within the group. A forfeit counts as a win and a loss with no score. A
-- disqualified team (app.stage_disqualified) comes after every other team, in its group and
-- overall (the disqualified ones ranked among themselves by the same criteria; level on points
-- means level among those).
-- app.round_robin_standings shows it; the qualifiers of the next stage are read from it.
create function app.round_robin_table(p_t app.tournaments)
returns table (team_id uuid, grp int, seed int, played int, wins int, losses int, points int,
               score_for int, score_against int, overall_position int, group_position int)
language plpgsql stable
set search_path = ''
as $$
declare
  v_out uuid[] := array(select d.team_id from app.stage_disqualified(p_t) d);
begin
  -- (plpgsql rather than sql: its plan is kept for the session, where an sql function called
  -- from another is planned again on every call.)
  return query
  with teams as (
    select distinct on (x.team_id) x.team_id, x.grp
      from (select m.team1_id as team_id, m.group_no as grp from app.matches m
             where m.tournament_id = p_t.id and m.stage = p_t.stage
            union all
            select m.team2_id, m.group_no from app.matches m
             where m.tournament_id = p_t.id and m.stage = p_t.stage) x
  ), sides as (
    -- one row per team and completed match, from the team's side
    select m.team1_id as team_id, m.team2_id as opponent, m.winner_id = m.team1_id as won,
           coalesce(m.team1_score, 0) as sf, coalesce(m.team2_score, 0) as sa
      from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage and m.status = 'completed'
    union all
    select m.team2_id, m.team1_id, m.winner_id = m.team2_id,
           coalesce(m.team2_score, 0), coalesce(m.team1_score, 0)
      from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage and m.status = 'completed'
  ), totals as (
    select t.team_id, t.grp, e.seed, t.team_id = any (v_out) as dq,
           count(s.team_id)::int as played,
           count(*) filter (where s.won)::int as wins,
           count(*) filter (where not s.won)::int as losses,
           (count(*) filter (where s.won) * (p_t.format_options #>> '{points,win}')::int
            + count(*) filter (where not s.won) * (p_t.format_options #>> '{points,loss}')::int)::int as points,
           coalesce(sum(s.sf), 0)::int as score_for,
           coalesce(sum(s.sa), 0)::int as score_against
      from teams t
      join app.stage_entries e on e.tournament_id = p_t.id and e.stage = p_t.stage and e.team_id = t.team_id
      left join sides s on s.team_id = t.team_id
     group by t.team_id, t.grp, e.seed
  ), h2h as (
    -- (a team with no such match has a null side here: it adds nothing, not a loss)
    select t.team_id,
           coalesce(sum(case when s.won then (p_t.format_options #>> '{points,win}')::int
                             when not s.won then (p_t.format_options #>> '{points,loss}')::int end), 0)::int as h2h
      from totals t
      left join sides s on s.team_id = t.team_id
           and exists (select from totals o where o.team_id = s.opponent and o.points = t.points and o.dq = t.dq)
     group by t.team_id
  )
  select t.team_id, t.grp, t.seed, t.played, t.wins, t.losses, t.points, t.score_for, t.score_against,
         (rank() over (order by t.dq, t.points desc, h.h2h desc, t.score_for - t.score_against desc,
                                t.score_for desc, t.seed))::int,
         (rank() over (partition by t.grp order by t.dq, t.points desc, h.h2h desc,
                                t.score_for - t.score_against desc, t.score_for desc, t.seed))::int
    from totals t join h2h h using (team_id);
end
$$;
comment on function app.round_robin_table(app.tournaments) is
  'Round robin: each team''s record and its overall and group positions (points, head-to-head, score difference, score for, seed).';

-- Standings: the table, with each team's group, group position, wins, losses and points.
create function app.round_robin_standings(p_t app.tournaments) returns json
language sql stable
set search_path = ''
as $$
  select coalesce(json_agg(json_build_object('position', k.overall_position, 'group', k.grp,
                                             'group_position', k.group_position, 'team_id', k.team_id,
                                             'team_name', tm.name, 'team_tag', tm.tag, 'disqualified', tm.disqualified,
                                             'wins', k.wins, 'losses', k.losses, 'points', k.points)
                           order by k.overall_position, tm.name, tm.id), '[]')
    from app.round_robin_table(p_t) k join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = k.team_id
$$;
comment on function app.round_robin_standings(app.tournaments) is
  'Round-robin standings: points, head-to-head among teams level on points, score difference, score for, seed; disqualified teams last.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.generate_round_robin(app.tournaments) to tournament_api_owner;
grant execute on function app.round_robin_table(app.tournaments) to tournament_api_owner;
grant execute on function app.round_robin_standings(app.tournaments) to tournament_api_owner;
