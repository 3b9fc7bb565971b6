-- Free-for-all (contract section 20): battle royale, racing and auto-battlers, many teams at
-- once scored by placement. Its options (lobby_size, games, rounds, draw, placement_points,
-- kill_points, tie_breakers); lobbies dealt in snake order, every round at the start (draw
-- "seed") or each round from the standings once the round before completes (draw "standings");
-- a lobby is a match with `opponents` instead of team1/team2, whose games are placements and
-- kills (app.ffa_change_game, called by app.change_game); the ranking of a lobby's teams and of
-- the stage's (app.ffa_table: points, the tie-breakers, seed; disqualified teams last in the
-- stage); and the standings. Stages (16_stages.sql) send on the top n or the first n of each
-- lobby of the last round.

-- ============================================================================
-- functions
-- ============================================================================
-- The tie-breakers a free-for-all stage may list, in the contract's order.
create function app.ffa_tie_breakers() returns text[]
language sql immutable
set search_path = ''
as $$
  select array['first_places', 'best_placement', 'kills', 'last_game']
$$;

-- The options of a free-for-all format, checked strictly and completed with their defaults; a
-- 400 naming format_options.<field> otherwise. best_of, points and draws: true do not apply
-- (draws: false is accepted and not kept, as for the elimination formats).
create function app.ffa_options(p_options jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
declare
  v_out jsonb;
  v_unknown text;
  v_points jsonb;
  v_list jsonb;
  v_item record;
  v_ranges int4range[] := '{}';
  v_range int4range;
begin
  select k into v_unknown from jsonb_object_keys(p_options) k
   where k not in ('lobby_size', 'games', 'rounds', 'draw', 'placement_points', 'kill_points', 'tie_breakers', 'draws')
   order by k limit 1;
  if v_unknown in ('best_of', 'final_best_of') then
    perform app.raise_invalid('format_options.' || v_unknown, 'does not apply to ffa: a lobby plays `games` games');
  elsif v_unknown = 'points' then
    perform app.raise_invalid('format_options.points', 'does not apply to ffa: use placement_points and kill_points');
  elsif v_unknown is not null then
    perform app.raise_invalid('format_options.' || v_unknown, 'is not an option of ffa');
  end if;
  if jsonb_typeof(coalesce(p_options -> 'draws', 'false')) <> 'boolean' then
    perform app.raise_invalid('format_options.draws', 'must be a boolean');
  elsif p_options -> 'draws' = 'true' then
    perform app.raise_invalid('format_options.draws', 'must be false: ffa never draws');
  end if;

  v_out := jsonb_build_object('lobby_size', coalesce(p_options -> 'lobby_size', '20'),
                              'games', coalesce(p_options -> 'games', '1'),
                              'rounds', coalesce(p_options -> 'rounds', '1'),
                              'draw', coalesce(p_options -> 'draw', '"seed"'),
                              'kill_points', coalesce(p_options -> 'kill_points', '1'));
  if not app.is_int(v_out -> 'lobby_size', 3, 100) then
    perform app.raise_invalid('format_options.lobby_size', 'must be an integer from 3 to 100');
  elsif not app.is_int(v_out -> 'games', 1, 20) then
    perform app.raise_invalid('format_options.games', 'must be an integer from 1 to 20');
  elsif not app.is_int(v_out -> 'rounds', 1, 20) then
    perform app.raise_invalid('format_options.rounds', 'must be an integer from 1 to 20');
  elsif jsonb_typeof(v_out -> 'draw') <> 'string' or v_out ->> 'draw' not in ('seed', 'standings') then
    perform app.raise_invalid('format_options.draw', 'must be "seed" or "standings"');
  elsif not app.is_int(v_out -> 'kill_points', 0, 100) then
    perform app.raise_invalid('format_options.kill_points', 'must be an integer from 0 to 100');
  end if;

  -- Placement points: "n" or "a-b" (1 <= a <= b <= 100) to 0-1,000, ranges not overlapping.
  v_points := coalesce(p_options -> 'placement_points',
                       '{"1": 10, "2": 6, "3": 5, "4": 4, "5": 3, "6": 2, "7": 1, "8": 1}');
  if jsonb_typeof(v_points) <> 'object' then
    perform app.raise_invalid('format_options.placement_points',
      'must be an object from a placement or a range ("1", "2-3") to points');
  end if;
  for v_item in select e.key, e.value from jsonb_each(v_points) e order by e.key loop
    if v_item.key !~ '^[1-9][0-9]{0,2}(-[1-9][0-9]{0,2})?$'
       or split_part(v_item.key, '-', 1)::int > coalesce(nullif(split_part(v_item.key, '-', 2), ''), v_item.key)::int
       or coalesce(nullif(split_part(v_item.key, '-', 2), ''), v_item.key)::int > 100 then
      perform app.raise_invalid('format_options.placement_points.' || v_item.key,
        'must be a placement ("4") or a range ("4-10"), 1 to 100, the first no greater than the last');
    end if;
    if not app.is_int(v_item.value, 0, 1000) then
      perform app.raise_invalid('format_options.placement_points.' || v_item.key, 'must be an integer from 0 to 1000');
    end if;
    v_range := int4range(split_part(v_item.key, '-', 1)::int,
                         coalesce(nullif(split_part(v_item.key, '-', 2), ''), v_item.key)::int, '[]');
    if v_range && any (v_ranges) then
      perform app.raise_invalid('format_options.placement_points.' || v_item.key, 'overlaps another placement or range');
    end if;
    v_ranges := v_ranges || v_range;
  end loop;

  v_list := coalesce(p_options -> 'tie_breakers', '["first_places", "kills", "last_game"]');
  perform app.check_tie_breakers(v_list, app.ffa_tie_breakers());
  return v_out || jsonb_build_object('placement_points', v_points, 'tie_breakers', v_list);
end
$$;
comment on function app.ffa_options(jsonb) is
  'Free-for-all: lobby_size, games, rounds, draw, placement_points, kill_points, tie_breakers checked (400) and completed.';

-- The points of placements 1..p_n under a stage's placement_points (0 for a placement no entry
-- names): element i is placement i's.
create function app.ffa_points_table(p_points jsonb, p_n int) returns int[]
language plpgsql immutable
set search_path = ''
as $$
begin
  -- (plpgsql, as on the hot path below: its plan is kept for the connection.)
  return array(select coalesce((select e.value::int from jsonb_each_text(p_points) e
                                 where i.i between split_part(e.key, '-', 1)::int
                                               and coalesce(nullif(split_part(e.key, '-', 2), ''), e.key)::int
                                 limit 1), 0)
                 from generate_series(1, p_n) as i (i) order by i.i);
end
$$;

-- Deals round p_round of a stage (p_t as app.stage_of gives it): its teams in p_order (seeds, or
-- standings) into ceil(N / lobby_size) lobbies in snake order, each a ready match whose
-- opponents are its teams by seed (their names and tags as the tournament froze them).
create function app.ffa_deal(p_t app.tournaments, p_round int, p_order uuid[]) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_lobbies int := ceil(cardinality(p_order)::numeric / (p_t.format_options ->> 'lobby_size')::int)::int;
begin
  insert into app.matches (tournament_id, account_id, stage, round, position, status, opponents)
  select p_t.id, p_t.account_id, p_t.stage, p_round, d.lobby, 'ready',
         jsonb_agg(jsonb_build_object('team_id', d.team_id, 'team_name', tm.name, 'team_tag', tm.tag, 'seed', e.seed,
                                      'placement', null, 'kills', 0, 'points', 0) order by e.seed)
    from (select o.team_id, app.snake_slot((o.i - 1)::int, v_lobbies) as lobby
            from unnest(p_order) with ordinality as o (team_id, i)) d
    join app.stage_entries e on e.tournament_id = p_t.id and e.stage = p_t.stage and e.team_id = d.team_id
    join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = d.team_id
   group by d.lobby
   order by d.lobby;
end
$$;

-- The generator hook: seeds the participants and deals round 1 by seed (with draw "seed", every
-- round: each keeps round 1's lobbies).
create function app.generate_ffa(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_order uuid[];
begin
  perform app.seed_participants(p_t);
  v_order := array(select e.team_id from app.stage_entries e
                    where e.tournament_id = p_t.id and e.stage = p_t.stage order by e.seed);
  for r in 1 .. case when p_t.format_options ->> 'draw' = 'seed' then (p_t.format_options ->> 'rounds')::int else 1 end loop
    perform app.ffa_deal(p_t, r, v_order);
  end loop;
end
$$;
comment on function app.generate_ffa(app.tournaments) is
  'Free-for-all: seeds the participants and deals round 1 (every round with draw "seed") into lobbies in snake order.';

-- The teams of a stage (p_t as app.stage_of gives it; p_opponents null) or of one lobby (its
-- opponents and games, p_opponents and p_games, perhaps not yet written), ranked over those
-- games: points (each game's placement points plus kill_points per kill, as written on the game),
-- then the stage's tie-breakers (first_places: games won; best_placement: the best placement in a
-- game, lower first; kills; last_game: the placement in the team's own most recent game, by round
-- then game number, lower first), then seed. In the stage, a disqualified team
-- (app.stage_disqualified) comes after every other one; a lobby ranks its games only. key holds
-- each criterion's value in order, larger better (a team without a game has none of the
-- placements: 101, after every placement); entry is the team as the lobbies hold it ({team_id,
-- team_name, team_tag, seed, ...}).
create function app.ffa_table(p_t app.tournaments, p_opponents jsonb default null, p_games jsonb default null)
returns table (team_id uuid, seed int, dq boolean, points int, kills int, first_places int, best_placement int,
               last_game int, games_played int, key numeric[], place int, separated_by text, entry jsonb)
language plpgsql stable
set search_path = ''
-- (One plan per connection: a custom plan made on each of a connection's first calls cost as much
-- as running it, 0.9 ms of a 20-team lobby's 2.)
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
begin
  -- (plpgsql: its plan is kept for the connection; a SQL function's would be made on every call.)
  return query
  with criteria as (
    select array(select jsonb_array_elements_text(p_t.format_options -> 'tie_breakers')) as tb
  ), lobbies as (
    select p_opponents as opponents, null::jsonb as records where p_opponents is not null
    union all
    select m.opponents, m.lobby_records from app.matches m
     where p_opponents is null and m.tournament_id = p_t.id and m.stage = p_t.stage and m.opponents is not null
  ), teams as (
    select (o ->> 'team_id')::uuid as team_id, min((o ->> 'seed')::int) as seed, (array_agg(o))[1] as entry
      from lobbies l cross join lateral jsonb_array_elements(l.opponents) o
     group by 1
  ), totals as (
    -- A lobby: its games' results (last_game: the placement of the greatest number, read from one
    -- integer, so the grouping hashes and allocates nothing per result).
    select r.team_id, sum(r.points)::int as points, sum(r.kills)::int as kills,
           count(*) filter (where r.placement = 1)::int as first_places, min(r.placement) as best_placement,
           (max((g ->> 'number')::int * 1000 + r.placement) % 1000)::int as last_game, count(*)::int as games_played
      from jsonb_array_elements(p_games) g
     cross join lateral jsonb_to_recordset(g -> 'results') as r (team_id uuid, placement int, kills int, points int)
     where p_opponents is not null
     group by r.team_id
    union all
    -- The stage: each lobby's records, its teams' totals written with its games (app.ffa_lobby),
    -- so a 1,000-team stage of 6 games reads 1,000 of them rather than 6,000 results; last_game
    -- from the latest round in which the team has played.
    select r.team_id, sum(r.points)::int, sum(r.kills)::int, sum(r.first_places)::int, min(r.best_placement),
           (max(case when r.games > 0 then m.round * 1000 + r.last_game end) % 1000)::int, sum(r.games)::int
      from app.matches m
     cross join lateral jsonb_to_recordset(m.lobby_records)
                        as r (team_id uuid, points int, kills int, first_places int, best_placement int, last_game int, games int)
     where p_opponents is null and m.tournament_id = p_t.id and m.stage = p_t.stage and m.lobby_records is not null
     group by r.team_id
  ), records as (
    select t.team_id, t.seed, t.entry,
           coalesce(p_opponents is null and t.team_id in (select d.team_id from app.stage_disqualified(p_t) d), false) as dq,
           coalesce(x.points, 0) as points, coalesce(x.kills, 0) as kills, coalesce(x.first_places, 0) as first_places,
           x.best_placement, x.last_game, coalesce(x.games_played, 0) as games_played
      from teams t left join totals x on x.team_id = t.team_id
  ), keyed as (
    -- (Each criterion's value by its place in the list, at most four, without a subquery per team.)
    select r.*,
           array_remove(array[r.points::numeric,
             case k.tb[1] when 'first_places' then r.first_places when 'best_placement' then -coalesce(r.best_placement, 101)
                          when 'kills' then r.kills when 'last_game' then -coalesce(r.last_game, 101) end,
             case k.tb[2] when 'first_places' then r.first_places when 'best_placement' then -coalesce(r.best_placement, 101)
                          when 'kills' then r.kills when 'last_game' then -coalesce(r.last_game, 101) end,
             case k.tb[3] when 'first_places' then r.first_places when 'best_placement' then -coalesce(r.best_placement, 101)
                          when 'kills' then r.kills when 'last_game' then -coalesce(r.last_game, 101) end,
             case k.tb[4] when 'first_places' then r.first_places when 'best_placement' then -coalesce(r.best_placement, 101)
                          when 'kills' then r.kills when 'last_game' then -coalesce(r.last_game, 101) end], null) as key
      from records r cross join criteria k
  ), ranked as (
    select k.*, row_number() over (order by k.dq, k.key desc, k.seed)::int as position,
           lag(k.key) over (order by k.dq, k.key desc, k.seed) as above_key,
           lag(k.dq) over (order by k.dq, k.key desc, k.seed) as above_dq
      from keyed k
  )
  select r.team_id, r.seed, r.dq, r.points, r.kills, r.first_places, r.best_placement, r.last_game, r.games_played,
         r.key, r.position,
         -- (app.separated_by's rule unrolled over this key's at most five places: a call per team was a
         -- quarter of a 1,000-team stage's standings. A lobby's placement needs none.)
         case when p_opponents is not null or r.above_key is null then null
              when r.dq is distinct from r.above_dq then 'disqualified'
              when r.key[1] is distinct from r.above_key[1] then 'points'
              when r.key[2] is distinct from r.above_key[2] then k.tb[1]
              when r.key[3] is distinct from r.above_key[3] then k.tb[2]
              when r.key[4] is distinct from r.above_key[4] then k.tb[3]
              when r.key[5] is distinct from r.above_key[5] then k.tb[4]
              else 'seed' end,
         r.entry
    from ranked r cross join criteria k;
end
$$;
comment on function app.ffa_table(app.tournaments, jsonb, jsonb) is
  'Free-for-all: a stage''s (or one lobby''s) teams ranked by points, the tie-breakers, seed; with their record and separated_by.';

-- A lobby for its games (p_m.games, perhaps not yet written): its opponents, each team's placement
-- (its rank in the lobby, null before the first game), kills and points, in placement order (by
-- seed before a game); and its records, each team's totals over the lobby's games (points, kills,
-- first_places, best_placement, last_game, games), which the stage's standings add up.
create function app.ffa_lobby(p_t app.tournaments, p_m app.matches, out opponents jsonb, out records jsonb)
language plpgsql stable
set search_path = ''
as $$
begin
  select jsonb_agg(k.entry || jsonb_build_object('placement', case when p_m.games <> '[]' then k.place end,
                                                 'kills', k.kills, 'points', k.points)
                   order by case when p_m.games <> '[]' then k.place end, k.seed),
         jsonb_agg(jsonb_build_object('team_id', k.team_id, 'points', k.points, 'kills', k.kills, 'first_places', k.first_places,
                                      'best_placement', k.best_placement, 'last_game', k.last_game, 'games', k.games_played)
                   order by k.place)
    into opponents, records
    from app.ffa_table(p_t, p_m.opponents, p_m.games) k;
end
$$;

-- PUT a lobby's game p_number (p_body {results: [{team_id, placement, kills?}]}) or DELETE it
-- (p_body null; the last only) on a locked tournament's lobby (app.change_game found it): every
-- team of the lobby once, placements 1..n once each, kills 0-1,000 (400 naming results[i].<field>);
-- games 1..`games`, in order. Each result keeps its points (placement points plus kill_points per
-- kill). The lobby completes when its games are all in, won by the team it places first; the
-- decision goes through app.decide_match (the stage settles, the next round is dealt). With draw
-- "standings", a round's games are final once the next round has a game (409 match_locked).
create function app.ffa_change_game(p_t app.tournaments, p_m app.matches, p_number int, p_body jsonb) returns json
language plpgsql volatile
set search_path = ''
-- (One plan per statement and connection, as app.ffa_table.)
set plan_cache_mode = force_generic_plan
as $$
declare
  v_s app.tournaments := app.stage_of(p_t, p_m.stage);
  v_games int := (v_s.format_options ->> 'games')::int;
  v_count int := jsonb_array_length(p_m.games);
  v_n int := jsonb_array_length(p_m.opponents);
  v_results jsonb := p_body -> 'results';
  v_bad record;
  v_game jsonb;
  v_all jsonb;
  v_table int[];
  v_opponents jsonb;
  v_records jsonb;
  v_m app.matches;
begin
  if p_body is null then
    if p_number not between 1 and v_count then
      perform app.raise_error('not_found', format('Game %s of this lobby has not been reported.', p_number));
    end if;
  else
    if p_body ?| array['team1_score', 'team2_score', 'map', 'lineups'] or jsonb_typeof(v_results) is distinct from 'array' then
      perform app.raise_invalid('results', 'a lobby''s game is {results: [{team_id, placement, kills}]}, every team of the lobby once');
    end if;
    if p_number not between 1 and v_games then
      perform app.raise_invalid('number', format('must be a game of this lobby: 1 to %s', v_games));
    elsif p_number > v_count + 1 then
      perform app.raise_invalid('number', format('games are reported in order: the next is game %s', v_count + 1));
    end if;
    -- Each entry: a team of the lobby, once; a placement 1..n, once; kills 0-1,000. (A team or
    -- placement given twice is named where it comes again; one pass over the entries, made only
    -- when the quick check of the whole finds something wrong.)
    -- (The quick check reads each entry's fields as text in one pass: jsonb_to_recordset, a third
    -- of the cost of a per-field pass. The body's shape, fields and types are the door's: zod.)
    if not (jsonb_array_length(v_results) = v_n and not jsonb_path_exists(v_results, '$[*] ? (@.type() != "object")') and (
         select count(distinct lower(x.team_id)) = v_n and count(distinct x.placement) = v_n
                and bool_and(x.placement ~ '^[1-9][0-9]{0,2}$' and coalesce(x.kills, '0') ~ '^[0-9]{1,4}$')
                and max(case when x.placement ~ '^[1-9][0-9]{0,2}$' then x.placement::int end) <= v_n
                and max(case when coalesce(x.kills, '0') ~ '^[0-9]{1,4}$' then coalesce(x.kills, '0')::int end) <= 1000
                and count(*) filter (where lower(x.team_id) in (select o ->> 'team_id' from jsonb_array_elements(p_m.opponents) o)) = v_n
           from jsonb_to_recordset(v_results) as x (team_id text, placement text, kills text))) then
      with x as (
        select e.i - 1 as i, e.r, lower(case when jsonb_typeof(e.r) = 'object' then e.r ->> 'team_id' end) as team,
               case when jsonb_typeof(e.r) = 'object' then e.r -> 'placement' end as placement
          from jsonb_array_elements(v_results) with ordinality as e (r, i)
      ), checked as (
        select x.*, row_number() over (partition by x.team order by x.i) as seen,
               row_number() over (partition by x.placement order by x.i) as placed,
               x.team in (select o ->> 'team_id' from jsonb_array_elements(p_m.opponents) o) as member
          from x
      )
      select c.* into v_bad
        from checked c
       where jsonb_typeof(c.r) <> 'object' or not c.member or c.seen > 1 or not app.is_int(c.placement, 1, v_n) or c.placed > 1
          or not app.is_int(coalesce(c.r -> 'kills', '0'), 0, 1000)
          or exists (select from jsonb_object_keys(case when jsonb_typeof(c.r) = 'object' then c.r else '{}' end) k
                      where k not in ('team_id', 'placement', 'kills'))
       order by c.i limit 1;
      if found then
        if jsonb_typeof(v_bad.r) <> 'object' then
          perform app.raise_invalid(format('results[%s]', v_bad.i), 'must be {team_id, placement, kills}');
        elsif not v_bad.member then
          perform app.raise_invalid(format('results[%s].team_id', v_bad.i), 'is not a team of this lobby');
        elsif v_bad.seen > 1 then
          perform app.raise_invalid(format('results[%s].team_id', v_bad.i), 'is listed twice');
        elsif not app.is_int(v_bad.r -> 'placement', 1, v_n) then
          perform app.raise_invalid(format('results[%s].placement', v_bad.i), format('must be an integer from 1 to %s', v_n));
        elsif v_bad.placed > 1 then
          perform app.raise_invalid(format('results[%s].placement', v_bad.i), 'is given twice: each placement once');
        elsif not app.is_int(coalesce(v_bad.r -> 'kills', '0'), 0, 1000) then
          perform app.raise_invalid(format('results[%s].kills', v_bad.i), 'must be an integer from 0 to 1000');
        else
          perform app.raise_invalid(format('results[%s]', v_bad.i), 'has a field other than team_id, placement, kills');
        end if;
      end if;
    end if;
    if jsonb_array_length(v_results) <> v_n then
      perform app.raise_invalid('results', format('must place every team of the lobby once: %s teams, %s given', v_n,
                                                   jsonb_array_length(v_results)));
    end if;
  end if;
  perform app.check_reportable(p_t, p_m);
  if p_body is null and p_number < v_count then
    perform app.raise_error('match_locked',
      format('Only the last game (%s) can be deleted; delete the games after game %s first.', v_count, p_number));
  end if;
  if v_s.format_options ->> 'draw' = 'standings' and (p_body is null or p_number <= v_count)
     and exists (select from app.matches m
                  where m.tournament_id = p_t.id and m.stage = p_m.stage and m.round > p_m.round and m.games <> '[]') then
    perform app.raise_error('match_locked',
      'The next round has games; this round''s games can no longer change (its lobbies were dealt from them).');
  end if;

  if p_body is null then
    v_all := p_m.games - (p_number - 1);
  else
    v_table := app.ffa_points_table(v_s.format_options -> 'placement_points', v_n);
  end if;
  if p_body is null then
    null;
  else
    v_game := jsonb_build_object('number', p_number,
      'results', (select jsonb_agg(jsonb_build_object('team_id', lower(x ->> 'team_id'), 'placement', (x ->> 'placement')::int,
                                                      'kills', coalesce((x ->> 'kills')::int, 0),
                                                      'points', v_table[(x ->> 'placement')::int]
                                                                + (v_s.format_options ->> 'kill_points')::int
                                                                  * coalesce((x ->> 'kills')::int, 0))
                                   order by (x ->> 'placement')::int)
                    from jsonb_array_elements(v_results) x),
      'reported_at', app.iso(now()));
    v_all := case when p_number > v_count then p_m.games || jsonb_build_array(v_game)
                  else jsonb_set(p_m.games, array[(p_number - 1)::text], v_game) end;
  end if;

  v_m := p_m;
  v_m.games := v_all;
  select l.opponents, l.records into v_opponents, v_records from app.ffa_lobby(v_s, v_m) l;
  perform app.webhook_record(json_build_array(json_build_object('account_id', p_m.account_id,
    'tournament_id', p_t.id, 'type', 'match.game_reported', 'kind', 'match.game', 'subject_id', p_m.id)));
  v_m := app.decide_match(v_s, p_m, case when jsonb_array_length(v_all) = v_games then (v_opponents -> 0 ->> 'team_id')::uuid end,
                          null, null, null, v_all, false, false, v_opponents, v_records);
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$$;
comment on function app.ffa_change_game(app.tournaments, app.matches, int, jsonb) is
  'Free-for-all: PUT or DELETE a lobby''s game (placements and kills); the lobby completes with its games, won by its first.';

-- The report hook: with draw "standings", once every lobby of round r has completed, round r + 1
-- (if the stage has it and it is not dealt yet: a correction never deals a round again) is dealt
-- from the standings so far.
create function app.ffa_after_report(p_t app.tournaments, p_m app.matches) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  if p_t.format_options ->> 'draw' <> 'standings' or p_m.round >= (p_t.format_options ->> 'rounds')::int
     or exists (select from app.matches m
                 where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round = p_m.round and m.status <> 'completed')
     or exists (select from app.matches m
                 where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round = p_m.round + 1) then
    return;
  end if;
  perform app.ffa_deal(p_t, p_m.round + 1, array(select k.team_id from app.ffa_table(p_t) k order by k.place));
end
$$;

-- Complete when every round is dealt (app.stage_decided checks that every lobby is complete).
create function app.ffa_complete(p_t app.tournaments) returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce(max(m.round), 0) >= (p_t.format_options ->> 'rounds')::int
    from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage
$$;

-- Standings: every team of the stage by points, the tie-breakers, seed (disqualified teams last),
-- with points, kills, first places, games played, best placement and separated_by.
create function app.ffa_standings(p_t app.tournaments) returns json
language sql stable
set search_path = ''
as $$
  select coalesce(json_agg(json_build_object('position', k.place, 'team_id', k.team_id, 'team_name', tm.name,
                                             'team_tag', tm.tag, 'disqualified', tm.disqualified, 'points', k.points,
                                             'kills', k.kills, 'first_places', k.first_places,
                                             'games_played', k.games_played, 'best_placement', k.best_placement,
                                             'separated_by', k.separated_by)
                           order by k.place), '[]')
    from app.ffa_table(p_t) k join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = k.team_id
$$;
comment on function app.ffa_standings(app.tournaments) is
  'Free-for-all standings: points, the tie-breakers, seed (disqualified teams last); with kills, first places, games played.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.ffa_tie_breakers() to tournament_api_owner;
grant execute on function app.ffa_options(jsonb) to tournament_api_owner;
grant execute on function app.ffa_points_table(jsonb, int) to tournament_api_owner;
grant execute on function app.ffa_deal(app.tournaments, int, uuid[]) to tournament_api_owner;
grant execute on function app.generate_ffa(app.tournaments) to tournament_api_owner;
grant execute on function app.ffa_table(app.tournaments, jsonb, jsonb) to tournament_api_owner;
grant execute on function app.ffa_lobby(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.ffa_change_game(app.tournaments, app.matches, int, jsonb) to tournament_api_owner;
grant execute on function app.ffa_after_report(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.ffa_complete(app.tournaments) to tournament_api_owner;
grant execute on function app.ffa_standings(app.tournaments) to tournament_api_owner;
