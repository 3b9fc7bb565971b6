-- Scoring (contract section 19): the points, draws and tie-breakers of round robin and swiss,
-- and the one comparator that ranks their teams, for the standings (11_round_robin.sql,
-- 14_swiss.sql), the swiss draw's score groups and bye (13_swiss_pairing.sql) and advancement
-- to the next stage (16_stages.sql). A team's order: points, then the tie-breakers in the
-- organiser's order, then seed (so positions are never shared); a disqualified team after every
-- other one. Each entry says which criterion put it below the one above it (separated_by).

-- ============================================================================
-- functions
-- ============================================================================
-- The tie-breakers an organiser may list, in the contract's order.
create function app.tie_breakers() returns text[]
language sql immutable
set search_path = ''
as $$
  select array['head_to_head', 'wins', 'score_difference', 'score_for', 'buchholz', 'median_buchholz',
               'sonneborn_berger', 'forfeits']
$$;

-- A format's tie_breakers as sent (p_list): a list of 1 to as many criteria as p_allowed names,
-- each one of them and listed once; a 400 naming format_options.tie_breakers[<i>] otherwise.
-- Round robin and swiss (app.scoring_options) and free-for-all (app.ffa_options) take it.
create function app.check_tie_breakers(p_list jsonb, p_allowed text[]) returns void
language plpgsql immutable
set search_path = ''
as $$
declare
  v_item record;
begin
  if jsonb_typeof(p_list) <> 'array' or jsonb_array_length(p_list) not between 1 and cardinality(p_allowed) then
    perform app.raise_invalid('format_options.tie_breakers', format('must be a list of 1 to %s criteria', cardinality(p_allowed)));
  end if;
  for v_item in select x.c, x.i from jsonb_array_elements(p_list) with ordinality x (c, i) loop
    if jsonb_typeof(v_item.c) <> 'string' or (v_item.c #>> '{}') <> all (p_allowed) then
      perform app.raise_invalid(format('format_options.tie_breakers[%s]', v_item.i - 1),
        'must be one of ' || array_to_string(p_allowed, ', ') || ' (seed always ends the order)');
    end if;
    if exists (select from jsonb_array_elements(p_list) with ordinality y (c, i) where y.c = v_item.c and y.i < v_item.i) then
      perform app.raise_invalid(format('format_options.tie_breakers[%s]', v_item.i - 1), 'is listed twice');
    end if;
  end loop;
end
$$;

-- The scoring options of a format (the draws, points and tie_breakers of format_options),
-- checked and completed with their defaults; a 400 naming format_options.<field> otherwise.
-- Elimination formats never draw: draws false is accepted (and not kept), true is 400.
-- Defaults: points {win 3, draw 1, loss 0} (swiss without draws: {win 1, draw 0, loss 0}, its
-- wins), forfeit_loss = loss; tie_breakers head_to_head, score_difference, score_for (round
-- robin) or buchholz (swiss): today's orders.
create function app.scoring_options(p_format text, p_options jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
declare
  v_draws jsonb := coalesce(p_options -> 'draws', 'false');
  v_points jsonb := coalesce(p_options -> 'points', '{}');
  v_list jsonb;
  v_unknown text;
  v_field text;
begin
  if jsonb_typeof(v_draws) <> 'boolean' then
    perform app.raise_invalid('format_options.draws', 'must be a boolean');
  end if;
  if p_format not in ('round_robin', 'swiss') then
    if v_draws = 'true' then
      perform app.raise_invalid('format_options.draws', format('must be false: %s never draws', p_format));
    end if;
    return '{}';
  end if;

  if jsonb_typeof(v_points) <> 'object' then
    perform app.raise_invalid('format_options.points', 'must be an object {win, draw, loss, forfeit_loss}');
  end if;
  select k into v_unknown from jsonb_object_keys(v_points) k
   where k not in ('win', 'draw', 'loss', 'forfeit_loss') order by k limit 1;
  if v_unknown is not null then
    perform app.raise_invalid('format_options.points.' || v_unknown, 'is not a known field (win, draw, loss, forfeit_loss)');
  end if;
  v_points := case when p_format = 'swiss' and v_draws = 'false' then '{"win": 1, "draw": 0, "loss": 0}'::jsonb
                   else '{"win": 3, "draw": 1, "loss": 0}'::jsonb end || v_points;
  v_points := jsonb_build_object('forfeit_loss', v_points -> 'loss') || v_points;
  foreach v_field in array array['win', 'draw', 'loss', 'forfeit_loss'] loop
    if not app.is_int(v_points -> v_field, -10, 100) then
      perform app.raise_invalid('format_options.points.' || v_field, 'must be an integer from -10 to 100');
    end if;
  end loop;

  v_list := coalesce(p_options -> 'tie_breakers',
                     case p_format when 'swiss' then '["buchholz"]'
                                   else '["head_to_head", "score_difference", "score_for"]' end::jsonb);
  perform app.check_tie_breakers(v_list, app.tie_breakers());
  return jsonb_build_object('draws', v_draws, 'points', v_points, 'tie_breakers', v_list);
end
$$;
comment on function app.scoring_options(text, jsonb) is
  'Round robin and swiss: draws, points and tie_breakers checked (400 format_options.<field>) and completed with defaults.';

-- Whether a stage's matches may end level (p_t as app.stage_of gives it).
create function app.stage_draws(p_t app.tournaments) returns boolean
language sql immutable
set search_path = ''
as $$
  select coalesce((p_t.format_options ->> 'draws')::boolean, false)
$$;

-- A series of p_best_of games: the games a side needs to win it (best_of / 2 + 1, so
-- ceil(best_of / 2) when odd), and whether a result is one a series can end with: a win
-- (the winner exactly that, the loser at most best_of minus it) or, where draws are allowed and
-- best_of is even, a draw (best_of / 2 each). A best of 1 is any unequal score, or any equal
-- one with draws.
create function app.series_result_problem(p_best_of int, p_draws boolean, p_s1 int, p_s2 int) returns text
language sql immutable
set search_path = ''
as $$
  select case
    when p_s1 = p_s2 and not p_draws then 'scores cannot be equal: this stage does not allow draws'
    when p_best_of = 1 then null
    when p_s1 = p_s2 and p_best_of % 2 = 0 and p_s1 = p_best_of / 2 then null
    when p_s1 <> p_s2 and greatest(p_s1, p_s2) = p_best_of / 2 + 1 and least(p_s1, p_s2) <= p_best_of - (p_best_of / 2 + 1)
      then null
    else format('a best of %s is the series score: the winner has exactly %s games, the loser at most %s', p_best_of,
                p_best_of / 2 + 1, p_best_of - (p_best_of / 2 + 1))
         || case when p_draws and p_best_of % 2 = 0 then format('; a draw is %s-%s', p_best_of / 2, p_best_of / 2) else '' end
  end
$$;
comment on function app.series_result_problem(int, boolean, int, int) is
  'Null when the scores are a result a best of n can end with (a win, or with draws and n even a draw); else why not.';

-- The criteria a stage ranks by, in order: points, then its tie-breakers (seed ends the order).
create function app.ranking_criteria(p_t app.tournaments) returns text[]
language sql immutable
set search_path = ''
as $$
  select array['points'] || array(select jsonb_array_elements_text(coalesce(p_t.format_options -> 'tie_breakers',
    case p_t.format when 'swiss' then '["buchholz"]' else '["head_to_head", "score_difference", "score_for"]' end::jsonb)))
$$;

-- The first criterion (of p_criteria) on which a key differs from the key above it: null for
-- the first entry, `disqualified` between the last team in good standing and the first
-- disqualified one, `seed` when nothing else separates them.
create function app.separated_by(p_criteria text[], p_key numeric[], p_above numeric[], p_dq boolean,
                                 p_above_dq boolean) returns text
language sql immutable
set search_path = ''
as $$
  select case when p_above is null then null
              when p_dq is distinct from p_above_dq then 'disqualified'
              else coalesce((select p_criteria[i] from generate_subscripts(p_key, 1) i
                              where p_key[i] is distinct from p_above[i] order by i limit 1), 'seed') end
$$;

-- Every team of a stage (p_t as app.stage_of gives it; round robin or swiss) with its record from
-- the rounds before p_before_round, its ranking key and its place. The record: played, wins,
-- draws, losses (a forfeit is a loss, counted in forfeit_losses and scored forfeit_loss), points,
-- scores for and against (a forfeit has none), buchholz (the sum of the points of the opponents
-- met), whether it had a bye (a swiss bye is a win with no opponent and no score). The key holds
-- each criterion's value in order, the larger the better:
-- - head_to_head: the points won in the matches among the teams level on every criterion before
--   it (and alike disqualified), computed once for that set;
-- - median_buchholz: buchholz without the highest and lowest opponents (plain with fewer than 3);
-- - sonneborn_berger: the points of the opponents beaten, plus half of those drawn;
-- - forfeits: minus the forfeit losses.
-- Ranked by disqualified last, key, seed: overall (`overall_position`) and in the group
-- (`group_position`). What only a standings read needs is left null before a round (the swiss
-- draw): separated_by (compared with the entry above in the group) and best_key, which ranks
-- teams of different groups (best_next, contract section 12: the key per match played, without
-- head_to_head, which they never played).
-- (Each key is built from a fixed vector of every criterion's value by index, not by a subquery
-- per team: a 1,024-team swiss draw reads this table every round.)
create function app.standings_table(p_t app.tournaments, p_before_round int)
returns table (team_id uuid, grp int, seed int, dq boolean, played int, wins int, draws int, losses int,
               points int, score_for int, score_against int, buchholz int, had_bye boolean,
               sort_key numeric[], best_key numeric[], overall_position int, group_position int, separated_by text)
language plpgsql stable
set search_path = ''
as $$
declare
  v_criteria text[] := app.ranking_criteria(p_t);
  v_n int := cardinality(v_criteria);
  v_at int[] := array(select array_position(array['points', 'wins', 'score_difference', 'score_for', 'buchholz',
                                                  'median_buchholz', 'sonneborn_berger', 'forfeits', 'head_to_head'], c)
                        from unnest(v_criteria) with ordinality u (c, i) order by u.i); -- (in `vectors` below)
  v_h2h int := array_position(v_criteria, 'head_to_head');
  -- the key's positions but head_to_head's (best_key)
  v_best int[] := array(select i from generate_series(1, v_n) i where i is distinct from v_h2h order by i);
  v_reading boolean := p_before_round = 2147483647;
  v_pts jsonb := coalesce(p_t.format_options -> 'points', '{}');
  v_win int := coalesce((v_pts ->> 'win')::int, case p_t.format when 'swiss' then 1 else 3 end);
  v_draw int := coalesce((v_pts ->> 'draw')::int, case p_t.format when 'swiss' then 0 else 1 end);
  v_loss int := coalesce((v_pts ->> 'loss')::int, 0);
  v_forfeit int := coalesce((v_pts ->> 'forfeit_loss')::int, (v_pts ->> 'loss')::int, 0);
  v_out uuid[] := array(select d.team_id from app.stage_disqualified(p_t) d);
  v_groups boolean := p_t.format = 'round_robin';
  -- the opponents' points: swiss shows buchholz; a round robin needs them for those criteria only
  v_opponents boolean := p_t.format = 'swiss' or v_criteria && array['buchholz', 'median_buchholz', 'sonneborn_berger'];
begin
  -- (plpgsql: its plan is kept for the session; an sql function's is made again on every call)
  return query
  with groups as (
    -- (round robin: a team's group is that of its matches; swiss has none)
    select distinct on (x.team_id) x.team_id, x.grp
      from (select m.team1_id as team_id, m.group_no as grp from app.matches m
             where v_groups and m.tournament_id = p_t.id and m.stage = p_t.stage
            union all
            select m.team2_id, m.group_no from app.matches m
             where v_groups and m.tournament_id = p_t.id and m.stage = p_t.stage) x
  ), teams as (
    select e.team_id, e.seed, g.grp
      from app.stage_entries e left join groups g on g.team_id = e.team_id
     where e.tournament_id = p_t.id and e.stage = p_t.stage
  ), sides as (
    -- one row per team and decided match (or bye), from the team's side
    select m.team1_id as team_id, m.team2_id as opponent,
           case when m.draw then 'draw' when m.winner_id = m.team1_id then 'win' else 'loss' end as result,
           m.forfeit = 'team1' as forfeited, m.status = 'bye' as bye,
           coalesce(m.team1_score, 0) as sf, coalesce(m.team2_score, 0) as sa
      from app.matches m
     where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round < p_before_round
       and m.status in ('completed', 'bye')
    union all
    select m.team2_id, m.team1_id,
           case when m.draw then 'draw' when m.winner_id = m.team2_id then 'win' else 'loss' end,
           m.forfeit = 'team2', false, coalesce(m.team2_score, 0), coalesce(m.team1_score, 0)
      from app.matches m
     where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round < p_before_round and m.status = 'completed'
  ), scored as (
    select s.*, case s.result when 'win' then v_win when 'draw' then v_draw
                              else case when s.forfeited then v_forfeit else v_loss end end as pts
      from sides s
  ), totals as (
    select t.team_id, t.grp, t.seed, t.team_id = any (v_out) as dq,
           count(s.team_id)::int as played,
           count(*) filter (where s.result = 'win')::int as wins,
           count(*) filter (where s.result = 'draw')::int as draws,
           count(*) filter (where s.result = 'loss')::int as losses,
           count(*) filter (where s.result = 'loss' and s.forfeited)::int as forfeit_losses,
           coalesce(sum(s.pts), 0)::int as points,
           coalesce(sum(s.sf), 0)::int as score_for,
           coalesce(sum(s.sa), 0)::int as score_against,
           coalesce(bool_or(s.bye), false) as had_bye
      from teams t left join scored s on s.team_id = t.team_id
     group by t.team_id, t.grp, t.seed
  ), opponents as (
    select s.team_id, sum(o.points)::int as buchholz,
           case when count(*) >= 3 then sum(o.points) - max(o.points) - min(o.points) else sum(o.points) end as median,
           sum(case s.result when 'win' then o.points when 'draw' then o.points / 2.0 else 0 end) as sb
      from scored s join totals o on o.team_id = s.opponent
     where v_opponents
     group by s.team_id
  ), vectors as (
    -- every criterion's value (head_to_head, 0 here, is filled in below)
    select t.*, coalesce(o.buchholz, 0) as buchholz,
           array[t.points, t.wins, t.score_for - t.score_against, t.score_for, coalesce(o.buchholz, 0),
                 coalesce(o.median, 0), coalesce(o.sb, 0), -t.forfeit_losses, 0]::numeric[] as v
      from totals t left join opponents o on o.team_id = t.team_id
  ), valued as (
    select x.*, (array[x.v[v_at[1]], x.v[v_at[2]], x.v[v_at[3]], x.v[v_at[4]], x.v[v_at[5]], x.v[v_at[6]],
                       x.v[v_at[7]], x.v[v_at[8]], x.v[v_at[9]]])[1:v_n] as k
      from vectors x
  ), h2h as (
    -- the points won against the teams level on every criterion before head_to_head (if listed)
    select s.team_id, sum(s.pts)::numeric as h2h
      from scored s
      join valued v on v.team_id = s.team_id
      join valued o on o.team_id = s.opponent and o.dq = v.dq and o.k[1:v_h2h - 1] = v.k[1:v_h2h - 1]
     where v_h2h is not null
     group by s.team_id
  ), keyed as (
    select v.*, case when v_h2h is null then v.k else v.k[1:v_h2h - 1] || coalesce(h.h2h, 0) || v.k[v_h2h + 1:] end as key
      from valued v left join h2h h on h.team_id = v.team_id
  ), ranked as (
    select k.*,
           row_number() over (order by k.dq, k.key desc, k.seed)::int as overall,
           row_number() over (partition by k.grp order by k.dq, k.key desc, k.seed)::int as in_group,
           lag(k.key) over (partition by k.grp order by k.dq, k.key desc, k.seed) as above,
           lag(k.dq) over (partition by k.grp order by k.dq, k.key desc, k.seed) as above_dq
      from keyed k
  )
  select r.team_id, r.grp, r.seed, r.dq, r.played, r.wins, r.draws, r.losses, r.points, r.score_for, r.score_against,
         r.buchholz, r.had_bye, r.key,
         case when v_reading and v_groups then
           (array[r.key[v_best[1]] / greatest(r.played, 1), r.key[v_best[2]] / greatest(r.played, 1),
                  r.key[v_best[3]] / greatest(r.played, 1), r.key[v_best[4]] / greatest(r.played, 1),
                  r.key[v_best[5]] / greatest(r.played, 1), r.key[v_best[6]] / greatest(r.played, 1),
                  r.key[v_best[7]] / greatest(r.played, 1), r.key[v_best[8]] / greatest(r.played, 1)])[1:cardinality(v_best)]
         end,
         r.overall, r.in_group,
         case when v_reading then app.separated_by(v_criteria, r.key, r.above, r.dq, r.above_dq) end
    from ranked r;
end
$$;
comment on function app.standings_table(app.tournaments, int) is
  'Round robin and swiss: each team''s record before a round, its ranking key (points, tie-breakers), places and separated_by.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.tie_breakers() to tournament_api_owner;
grant execute on function app.check_tie_breakers(jsonb, text[]) to tournament_api_owner;
grant execute on function app.scoring_options(text, jsonb) to tournament_api_owner;
grant execute on function app.stage_draws(app.tournaments) to tournament_api_owner;
grant execute on function app.series_result_problem(int, boolean, int, int) to tournament_api_owner;
grant execute on function app.ranking_criteria(app.tournaments) to tournament_api_owner;
grant execute on function app.separated_by(text[], numeric[], numeric[], boolean, boolean) to tournament_api_owner;
grant execute on function app.standings_table(app.tournaments, int) to tournament_api_owner;
