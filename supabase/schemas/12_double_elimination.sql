-- Double elimination (contract section 10): a winners bracket as in single elimination (its
-- seeding order is 10_single_elimination.sql's), a losers bracket fed with the winners bracket's
-- losers in brackets-manager's crossover order, and a grand final with an optional reset
-- (format_options.grand_final). All matches exist from the start; after each result the format
-- passes teams through losers-bracket byes and settles the grand final's reset.

-- ============================================================================
-- functions
-- ============================================================================
-- brackets-manager's default ordering (ordering.js, defaultMinorOrdering) of the winners-bracket
-- losers that drop into the losers bracket's minor round p_index (0-based: the losers of winners
-- round p_index + 2), for a bracket of p_size slots. brackets-manager lists sizes up to 128 and
-- leaves larger brackets in natural order (which allows immediate rematches); above 128 this
-- continues the 128 pattern (reverse, half_shift, then pair_flip) instead.
create function app.double_elimination_minor_ordering(p_size int, p_index int) returns text
language sql immutable parallel safe
set search_path = ''
as $$
  select coalesce(
    (case p_size
       when 8 then array['reverse']
       when 16 then array['reverse_half_shift', 'reverse']
       when 32 then array['reverse', 'half_shift', 'natural']
       when 64 then array['reverse', 'half_shift', 'reverse', 'natural']
       when 128 then array['reverse', 'half_shift', 'pair_flip', 'pair_flip', 'pair_flip']
     end)[p_index + 1],
    case when p_size <= 128 then 'natural'
         when p_index = 0 then 'reverse' when p_index = 1 then 'half_shift' else 'pair_flip' end)
$$;
comment on function app.double_elimination_minor_ordering(int, int) is
  'The crossover ordering (brackets-manager''s names) of the winners losers dropping into a minor losers round.';

-- Where the loser of the p_x-th (0-based) of p_m winners matches lands among the p_m matches of
-- its minor losers round, 0-based. brackets-manager orders the list of losers and pairs the i-th
-- with the i-th losers match; each of its orderings is its own inverse, so the same formula maps
-- a winners match to its losers match.
create function app.double_elimination_drop_position(p_ordering text, p_x int, p_m int) returns int
language sql immutable parallel safe
set search_path = ''
as $$
  select case p_ordering
    when 'reverse' then p_m - 1 - p_x
    when 'half_shift' then (p_x + p_m / 2) % p_m
    when 'reverse_half_shift' then case when p_x < p_m / 2 then p_m / 2 - 1 - p_x else 3 * p_m / 2 - 1 - p_x end
    when 'pair_flip' then p_x # 1
    else p_x end
$$;

-- A double-elimination bracket of p_size = 2^p_k slots without its teams, in arrays indexed by
-- a flat match number (winners 1 .. P - 1, losers P .. 2P - 3, the grand final 2P - 2 and, with
-- p_reset, its round 2 at 2P - 1): each match's bracket, round and position, the match and slot
-- its winner goes to, and (winners bracket) the match and slot its loser drops to.
--
-- - winners: rounds 1..k, P / 2^r matches in round r.
-- - losers: rounds 1..2(k-1). Round 1 pairs the losers of winners round 1 (matches 2j-1, 2j).
--   Round 2i (a "minor" round) puts the losers of winners round i+1 (slot 1, crossed over by
--   app.double_elimination_drop_position) against the winners of losers round 2i-1 (slot 2);
--   round 2i+1 pairs the winners of round 2i. The last losers round is the losers final.
-- - grand_final: round 1 is the winners champion (slot 1) against the losers champion (slot 2);
--   with p_reset its winner goes on to round 2.
-- - P = 2: no losers bracket; the final's loser goes straight to the grand final.
create function app.double_elimination_links(p_size int, p_k int, p_reset boolean,
  out brackets text[], out rounds int[], out positions int[], out next_match int[], out next_slot int[],
  out loser_match int[], out loser_slot int[])
language plpgsql immutable
set search_path = ''
as $$
declare
  v_gf int := 2 * p_size - 2;                 -- P - 1 winners matches, P - 2 losers matches
  v_total int := v_gf + case when p_reset then 1 else 0 end;
  v_lb_off int[] := '{}';
  v_off int := p_size - 1;
  v_c int;
  v_x int;
begin
  -- every array 1..v_total, so that unnest lines them up
  brackets := array_fill(null::text, array[v_total]);
  rounds := array_fill(null::int, array[v_total]); positions := rounds; next_match := rounds;
  next_slot := rounds; loser_match := rounds; loser_slot := rounds;

  -- losers bracket: round l has P / 2^(ceil(l/2) + 1) matches
  for l in 1 .. 2 * (p_k - 1) loop
    v_lb_off[l] := v_off;
    v_c := p_size >> ((l + 1) / 2 + 1);
    for j in 1 .. v_c loop
      v_x := v_off + j;
      brackets[v_x] := 'losers'; rounds[v_x] := l; positions[v_x] := j;
      if l % 2 = 1 then
        next_match[v_x] := v_off + v_c + j; next_slot[v_x] := 2;
      elsif l = 2 * (p_k - 1) then
        next_match[v_x] := v_gf; next_slot[v_x] := 2;
      else
        next_match[v_x] := v_off + v_c + (j + 1) / 2; next_slot[v_x] := 2 - j % 2;
      end if;
    end loop;
    v_off := v_off + v_c;
  end loop;

  -- winners bracket
  for r in 1 .. p_k loop
    for p in 1 .. p_size >> r loop
      v_x := p_size - (p_size >> (r - 1)) + p;
      brackets[v_x] := 'winners'; rounds[v_x] := r; positions[v_x] := p;
      if r < p_k then
        next_match[v_x] := p_size - (p_size >> r) + (p + 1) / 2; next_slot[v_x] := 2 - p % 2;
      else
        next_match[v_x] := v_gf; next_slot[v_x] := 1;
      end if;
      if p_k = 1 then
        loser_match[v_x] := v_gf; loser_slot[v_x] := 2;
      elsif r = 1 then
        loser_match[v_x] := v_lb_off[1] + (p + 1) / 2; loser_slot[v_x] := 2 - p % 2;
      else
        loser_match[v_x] := v_lb_off[2 * (r - 1)] + 1 + app.double_elimination_drop_position(
          case when r = p_k then 'natural' else app.double_elimination_minor_ordering(p_size, r - 2) end,
          p - 1, p_size >> r);
        loser_slot[v_x] := 1;
      end if;
    end loop;
  end loop;

  -- grand final
  brackets[v_gf] := 'grand_final'; rounds[v_gf] := 1; positions[v_gf] := 1;
  if p_reset then
    next_match[v_gf] := v_gf + 1; next_slot[v_gf] := 1;
    brackets[v_gf + 1] := 'grand_final'; rounds[v_gf + 1] := 2; positions[v_gf + 1] := 1;
  end if;
end
$$;
comment on function app.double_elimination_links(int, int, boolean) is
  'Double elimination: every match''s bracket, round, position and where its winner and loser go, without teams.';

-- Makes every match at once: the bracket's links (app.double_elimination_links), the teams
-- seated in winners round 1 (standard seeding, byes to the top seeds), then one insert. The
-- caller holds the tournament's row lock. With grand_final = "reset" the grand final's round 2
-- exists from the start: it becomes ready (same teams) when the losers champion wins round 1,
-- and a 'bye' with no teams otherwise.
--
-- Byes: a winners round-1 match with one team is a 'bye' (as in single elimination) and has no
-- loser. A losers match that can only ever receive one team is a 'bye' from the start; the team
-- passes through it when it arrives (app.double_elimination_after_report). A losers round-1
-- match fed by two byes has no team at all and stays a 'bye'; it then makes the round-2 match it
-- feeds a 'bye' too. No match is left waiting for a team that never comes.
create function app.generate_double_elimination(p_t app.tournaments) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_n int;
  v_size int := 2;
  v_k int := 1;
  v_teams uuid[];
  v_order int[];
  v_total int;
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
  v_x int;
begin
  v_n := app.seed_participants(p_t);
  while v_size < v_n loop
    v_size := v_size * 2;
    v_k := v_k + 1;
  end loop;
  v_teams := array(select e.team_id from app.stage_entries e
                    where e.tournament_id = p_t.id and e.stage = p_t.stage order by e.seed);
  v_order := app.seed_order(v_size);
  select l.brackets, l.rounds, l.positions, l.next_match, l.next_slot, l.loser_match, l.loser_slot
    into v_bracket, v_round, v_pos, v_next, v_nslot, v_lnext, v_lslot
    from app.double_elimination_links(v_size, v_k, p_t.format_options ->> 'grand_final' = 'reset') l;
  v_total := cardinality(v_bracket);
  v_status := array_fill('pending'::text, array[v_total]);
  v_t1 := array_fill(null::uuid, array[v_total]); v_t2 := v_t1; v_winner := v_t1;

  -- winners round 1 (matches 1 .. P / 2): a match with one team is a bye, won by it, no loser
  for p in 1 .. v_size >> 1 loop
    v_t1[p] := v_teams[v_order[2 * p - 1]];
    v_t2[p] := v_teams[v_order[2 * p]];
    if v_t2[p] is null then
      v_status[p] := 'bye'; v_winner[p] := v_t1[p]; v_lnext[p] := null; v_lslot[p] := null;
    else
      v_status[p] := 'ready';
    end if;
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
    v_x := v_size - 1 + j; -- losers round 1 follows the P - 1 winners matches
    if v_status[2 * j - 1] = 'bye' or v_status[2 * j] = 'bye' then
      v_status[v_x] := 'bye';
      if v_status[2 * j - 1] = 'bye' and v_status[2 * j] = 'bye' then
        v_status[v_next[v_x]] := 'bye';
      end if;
    end if;
  end loop;

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
$$;
comment on function app.generate_double_elimination(app.tournaments) is
  'Double elimination: winners bracket, losers bracket in crossover order, grand final (+ reset).';

-- After every result and correction (after app.advance):
-- - a team that lands in a losers-bracket bye passes through it to the match after (409
--   match_locked when that match is completed, or has games and the team there changes);
-- - the grand final decides whether its reset is played: ready with the same teams when the
--   losers champion (team2) won, else a 'bye' without teams, so it never blocks completion;
--   pending without teams while the grand final is undecided again (a series under way).
--   A correction of the grand final redoes this (the reset being completed locks it, through
--   next_match_id).
create function app.double_elimination_after_report(p_t app.tournaments, p_m app.matches) returns void
language plpgsql volatile
set search_path = ''
as $$
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
$$;
comment on function app.double_elimination_after_report(app.tournaments, app.matches) is
  'Double elimination after a result: passes teams through losers-bracket byes; settles the grand-final reset.';

-- Standings: the grand final's decisive match gives 1 and 2 (round 2 if played, else round 1
-- once the reset is not needed); a team that loses in losers round l is out, behind every team
-- out later: position 3 + the number of teams out in later losers rounds (competition ranking:
-- the losers final 3, its semi-final 4, then a round's teams share a position). Byes put no one
-- out, so they do not count. Only decided places are listed. A disqualified team
-- (app.stage_disqualified) comes last among the teams placed alongside it: they keep the
-- position, it takes the one after them.
create function app.double_elimination_standings(p_t app.tournaments) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_gf1 app.matches;
  v_gf2 app.matches;
  v_final app.matches;
  v_out uuid[] := array(select d.team_id from app.stage_disqualified(p_t) d);
begin
  select * into v_gf1 from app.matches m
   where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'grand_final' and m.round = 1;
  select * into v_gf2 from app.matches m
   where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'grand_final' and m.round = 2;
  if v_gf2.status = 'completed' then
    v_final := v_gf2;
  elsif v_gf1.status = 'completed' and (v_gf2.id is null or v_gf2.status = 'bye') then
    v_final := v_gf1;
  end if;
  return (
    with rounds as (
      select m.round, count(*) filter (where m.status <> 'bye') as played
        from app.matches m where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'losers'
       group by m.round
    ), positions as (
      select r.round, 3 + coalesce(sum(r.played) over (order by r.round desc
                                   rows between unbounded preceding and 1 preceding), 0)::int as position
        from rounds r
    ), placed as (
      select case when m.winner_id = m.team1_id then m.team2_id else m.team1_id end as team_id, p.position
        from app.matches m join positions p on p.round = m.round
       where m.tournament_id = p_t.id and m.stage = p_t.stage and m.bracket = 'losers' and m.status = 'completed'
      union all
      select v_final.winner_id, 1 where v_final.id is not null
      union all
      select case when v_final.winner_id = v_final.team1_id then v_final.team2_id else v_final.team1_id end, 2
       where v_final.id is not null
    ), ranked as (
      select p.team_id,
             p.position + case when p.team_id = any (v_out)
                               then count(*) filter (where not (p.team_id = any (v_out))) over (partition by p.position)
                               else 0 end as position
        from placed p
    ), tally as (
      select x.team_id, count(*) filter (where x.won)::int as wins, count(*) filter (where not x.won)::int as losses
        from (select m.team1_id as team_id, m.winner_id = m.team1_id as won from app.matches m
               where m.tournament_id = p_t.id and m.stage = p_t.stage and m.status = 'completed'
              union all
              select m.team2_id, m.winner_id = m.team2_id from app.matches m
               where m.tournament_id = p_t.id and m.stage = p_t.stage and m.status = 'completed') x
       group by x.team_id
    )
    select coalesce(json_agg(json_build_object('position', p.position, 'team_id', p.team_id,
                                               'team_name', tm.name, 'team_tag', tm.tag, 'disqualified', tm.disqualified,
                                               'wins', coalesce(w.wins, 0), 'losses', coalesce(w.losses, 0))
                             order by p.position, tm.name, tm.id), '[]')
      from ranked p
      join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = p.team_id
      left join tally w on w.team_id = p.team_id);
end
$$;
comment on function app.double_elimination_standings(app.tournaments) is
  'Double-elimination standings: 1 and 2 from the grand final, then by the losers round a team went out in.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.double_elimination_minor_ordering(int, int) to tournament_api_owner;
grant execute on function app.double_elimination_drop_position(text, int, int) to tournament_api_owner;
grant execute on function app.double_elimination_links(int, int, boolean) to tournament_api_owner;
grant execute on function app.generate_double_elimination(app.tournaments) to tournament_api_owner;
grant execute on function app.double_elimination_after_report(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.double_elimination_standings(app.tournaments) to tournament_api_owner;
