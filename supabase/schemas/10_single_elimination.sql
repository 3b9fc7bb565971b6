-- Single elimination (contract sections 5 and 10): one bracket whose size P is the next power of
-- two; standard seeding pairs seeds 1-P, 2-(P-1), ... (the participants' bracket seeds,
-- 07_registrations.sql) so that seeds 1 and 2 can meet only in the final, and the P-N byes fall
-- to the top seeds. All P-1 matches exist from the start, each linked to the match its winner
-- goes to; with format_options.third_place_match, the semi-final losers meet for third place.
-- The seeding order is used by 12_double_elimination.sql's winners bracket too.

-- ============================================================================
-- functions
-- ============================================================================
-- Standard seeding order for a bracket of size p_size (a power of two): the seed at each
-- round-1 slot, e.g. 8 -> {1,8,4,5,2,7,3,6}. Each doubling mirrors every seed s into
-- (2 * size + 1 - s) right after it.
create function app.seed_order(p_size int) returns int[]
language plpgsql immutable strict
set search_path = ''
as $$
declare
  v_order int[] := array[1];
  v_next int[];
  v_n int := 1;
begin
  while v_n < p_size loop
    v_n := v_n * 2;
    v_next := '{}';
    for i in 1 .. cardinality(v_order) loop
      v_next := v_next || v_order[i] || (v_n + 1 - v_order[i]);
    end loop;
    v_order := v_next;
  end loop;
  return v_order;
end
$$;

-- Seeds the stage's teams and makes the bracket's matches; app.generate_bracket then marks them
-- bracket 'winners' and adds the third-place match.
create function app.generate_single_elimination(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
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
$$;
comment on function app.generate_single_elimination(app.tournaments) is
  'Makes all P-1 matches of a stage''s bracket from its entries.';

-- The third-place match of a single-elimination bracket: the two semi-final losers, in the
-- final's round, once there are semi-finals with two teams each (4 teams or more).
create function app.add_third_place_match(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
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
$$;

-- Standings: a loser in a round with 2^k teams left takes 2^(k-1) + 1; with a
-- third-place match its two teams take 3 and 4 once it is decided (and the semi-final losers
-- are unplaced until then). A disqualified team (app.stage_disqualified) comes last among the
-- teams placed alongside it: they keep the position, it takes the one after them (the
-- quarter-final losers 5, 5, 5 and the disqualified one 8).
create function app.single_elimination_standings(p_t app.tournaments) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_rounds int;
  v_third app.matches;
  v_out uuid[] := array(select d.team_id from app.stage_disqualified(p_t) d);
begin
  select max(m.round) into v_rounds from app.matches m
   where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'winners';
  select * into v_third from app.matches m
   where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'third_place';
  return (
    with placed as (
      select case when m.winner_id = m.team1_id then m.team2_id else m.team1_id end as team_id,
             (1 << (v_rounds - m.round)) + 1 as position
        from app.matches m
       where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'winners' and m.status = 'completed'
         and (v_third.id is null or m.round <> v_rounds - 1)
      union all
      select m.winner_id, 1 from app.matches m
       where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'winners' and m.next_match_id is null
         and m.status = 'completed'
      union all
      select v_third.winner_id, 3 where v_third.status = 'completed'
      union all
      select case when v_third.winner_id = v_third.team1_id then v_third.team2_id else v_third.team1_id end, 4
       where v_third.status = 'completed'
    ), ranked as (
      select p.team_id,
             p.position + case when p.team_id = any (v_out)
                               then count(*) filter (where not (p.team_id = any (v_out))) over (partition by p.position)
                               else 0 end as position
        from placed p
    )
    select coalesce(json_agg(json_build_object('position', p.position, 'team_id', p.team_id,
                                               'team_name', tm.name, 'team_tag', tm.tag, 'disqualified', tm.disqualified)
                             order by p.position, tm.name, tm.id), '[]')
      from ranked p join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = p.team_id);
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.seed_order(int) to tournament_api_owner;
grant execute on function app.generate_single_elimination(app.tournaments) to tournament_api_owner;
grant execute on function app.add_third_place_match(app.tournaments) to tournament_api_owner;
grant execute on function app.single_elimination_standings(app.tournaments) to tournament_api_owner;
