-- Swiss pairing (contract sections 10 and 19): the rounds to play and the draw of a round.
-- Round 1 pairs seed i with seed i + N/2 (N odd: the lowest seed has the bye); each later round
-- pairs teams within their score group (points: the wins with the default points), highest seed
-- first, without rematches whenever a rematch-free draw exists, floating down to the next score
-- group when a group is odd or cannot be paired otherwise. With N odd, one team a round has a
-- bye (a win; at most one per team; the lowest-placed team without one). Each participant's
-- record is app.standings_table (09_scoring.sql). When rounds are drawn and redrawn, completion
-- and standings are 14_swiss.sql.

-- ============================================================================
-- functions
-- ============================================================================
-- The number of rounds: format_options.rounds, else ceil(log2 N) for the N seeded participants.
-- More rounds than N - 1 would make some team meet another twice (it has N - 1 possible
-- opponents), so starting such a tournament is 409 invalid_status_transition, naming the limit
-- (app.generate_swiss); rounds can be lowered while in registration.
create function app.swiss_rounds(p_t app.tournaments) returns int
language sql stable
set search_path = ''
as $$
  select coalesce((p_t.format_options ->> 'rounds')::int,
                  (select min(k) from generate_series(0, 11) k where (1 << k) >= n.n))
    from (select count(*)::int as n from app.stage_entries e
           where e.tournament_id = p_t.id and e.stage = p_t.stage) n
$$;
comment on function app.swiss_rounds(app.tournaments) is
  'Swiss: the rounds to play (format_options.rounds, else ceil(log2 N)).';

-- For each position of p_order (team indexes in drawing order), the last position of its score
-- group (the run of positions whose teams have the same points in p_wins).
create function app.swiss_group_ends(p_order int[], p_wins int[]) returns int[]
language plpgsql immutable
set search_path = ''
as $$
declare
  v_len int := cardinality(p_order);
  v_group_end int[] := array_fill(0, array[v_len]);
begin
  for v_p in reverse v_len .. 1 loop
    v_group_end[v_p] := case when v_p < v_len and p_wins[p_order[v_p + 1]] = p_wins[p_order[v_p]]
                             then v_group_end[v_p + 1] else v_p end;
  end loop;
  return v_group_end;
end
$$;
comment on function app.swiss_group_ends(int[], int[]) is
  'Swiss: the last position of each drawing position''s win group.';

-- The middle of a choosing team's win group: of the k unpaired positions after p_first up to
-- p_group_end, the ((k + 1) / 2)-th; p_group_end + 1 when there is none.
create function app.swiss_group_middle(p_paired boolean[], p_first int, p_group_end int) returns int
language plpgsql immutable
set search_path = ''
as $$
declare
  v_k int := 0;
begin
  for v_p in p_first + 1 .. p_group_end loop
    if not p_paired[v_p] then v_k := v_k + 1; end if;
  end loop;
  if v_k = 0 then
    return p_group_end + 1;
  end if;
  v_k := (v_k + 1) / 2;
  for v_p in p_first + 1 .. p_group_end loop
    if not p_paired[v_p] then
      v_k := v_k - 1;
      if v_k = 0 then
        return v_p;
      end if;
    end if;
  end loop;
  return p_group_end + 1; -- not reached
end
$$;
comment on function app.swiss_group_middle(boolean[], int, int) is
  'Swiss: where a choosing team starts looking in its win group (the middle of its unpaired members).';

-- Pairs the teams listed in p_order (indexes into the tournament's teams, in drawing order:
-- more points first, then better seed) for one round; p_wins holds each index's points and row i
-- of p_met the indexes team i has met (0 fills a row's end). Depth-first with backtracking:
-- the first unpaired team tries its candidates in order (its own win group from the middle of
-- the unpaired members upward, then from the middle downward, then the lower groups in order),
-- never one it has met, unless p_rematches: then those it has not met first, in the same
-- order, then the others. Candidates are scanned lazily (a phase and a cursor a depth), so a
-- draw without conflicts costs one scan of each group. Returns each index's partner, or null
-- when there is no pairing or p_budget candidate tries do not find one.
create function app.swiss_match(p_order int[], p_wins int[], p_met int[], p_n int,
  p_rematches boolean, p_budget int) returns int[]
language plpgsql immutable
set search_path = ''
as $$
declare
  v_len int := cardinality(p_order);
  v_paired boolean[] := array_fill(false, array[v_len]);  -- by position in p_order
  v_partner int[] := array_fill(null::int, array[p_n]);   -- by team index
  v_group_end int[] := app.swiss_group_ends(p_order, p_wins); -- last position of each position's win group
  -- per depth: the choosing team's position, the middle of its group, the phase, the cursor, the partner's position
  v_at int[] := '{}';
  v_mid int[] := '{}';
  v_phase int[] := '{}';
  v_cur int[] := '{}';
  v_with int[] := '{}';
  v_depth int := 0;
  v_steps int := 0;
  v_first int := 1;  -- no position before this one is unpaired
  v_p int;
  v_a int;
  v_b int;
  v_ge int;
  v_found boolean;
  v_met boolean;
  v_j int;
  v_width int := coalesce(array_length(p_met, 2), 0);
begin
  <<pairing>>
  loop
    while v_first <= v_len and v_paired[v_first] loop
      v_first := v_first + 1;
    end loop;
    exit pairing when v_first > v_len; -- everyone is paired

    -- a new depth: the first unpaired team chooses, from the middle of its group
    v_depth := v_depth + 1;
    v_at[v_depth] := v_first;
    v_paired[v_first] := true;
    v_mid[v_depth] := app.swiss_group_middle(v_paired, v_first, v_group_end[v_first]);
    v_phase[v_depth] := 1;
    v_cur[v_depth] := v_mid[v_depth] - 1;

    -- the depth's next candidate; backtrack while a depth has none left
    <<choosing>>
    loop
      v_a := p_order[v_at[v_depth]];
      v_ge := v_group_end[v_at[v_depth]];
      v_found := false;
      while not v_found and v_phase[v_depth] <= case when p_rematches then 6 else 3 end loop
        v_steps := v_steps + 1;
        if v_steps > p_budget then
          return null;
        end if;
        -- phases 1-3 (4-6 the same for rematches): group upward from the middle, group
        -- downward from below the middle, lower groups
        v_p := v_cur[v_depth] + case when v_phase[v_depth] in (2, 5) then -1 else 1 end;
        if (v_phase[v_depth] in (1, 4) and v_p > v_ge)
           or (v_phase[v_depth] in (2, 5) and v_p <= v_at[v_depth])
           or (v_phase[v_depth] in (3, 6) and v_p > v_len) then
          v_phase[v_depth] := v_phase[v_depth] + 1;
          v_cur[v_depth] := case v_phase[v_depth] when 2 then v_mid[v_depth] when 3 then v_ge
                                                  when 4 then v_mid[v_depth] - 1 when 5 then v_mid[v_depth]
                                                  else v_ge end;
          continue;
        end if;
        v_cur[v_depth] := v_p;
        if not v_paired[v_p] then
          v_b := p_order[v_p];
          v_met := false;
          for v_j in 1 .. v_width loop
            exit when p_met[v_a][v_j] = 0;
            if p_met[v_a][v_j] = v_b then
              v_met := true;
              exit;
            end if;
          end loop;
          v_found := v_met = (v_phase[v_depth] > 3);
        end if;
      end loop;

      if v_found then
        v_with[v_depth] := v_cur[v_depth];
        v_paired[v_cur[v_depth]] := true;
        v_b := p_order[v_cur[v_depth]];
        v_partner[v_a] := v_b;
        v_partner[v_b] := v_a;
        exit choosing;
      end if;

      -- none left: undo this depth and the choice of the one before
      v_paired[v_at[v_depth]] := false;
      v_partner[v_a] := null;
      v_first := least(v_first, v_at[v_depth]);
      v_depth := v_depth - 1;
      if v_depth = 0 then
        return null;
      end if;
      v_paired[v_with[v_depth]] := false;
      v_partner[p_order[v_with[v_depth]]] := null;
      v_partner[p_order[v_at[v_depth]]] := null;
      v_first := least(v_first, v_with[v_depth]);
    end loop;
  end loop;
  return v_partner;
end
$$;
comment on function app.swiss_match(int[], int[], int[], int, boolean, int) is
  'Swiss: pairs one round''s teams by win group, without rematches unless allowed (backtracking, bounded).';

-- The draw of one round from the results of the rounds before it: (position, team1, team2);
-- a bye has team2 null and comes last. In a match, team1 is the team drawn first (more wins,
-- then better seed). Pairing within a win group follows round 1's rule (top half against
-- bottom half, by seed; a group is the teams with the same points): of a group's g unpaired
-- teams the first meets the (floor(g/2)+1)-th,
-- else the next ones up to the group's end, else those above the middle (nearest first), else
-- the teams of the lower win groups in order (a float). The search (app.swiss_match)
-- backtracks until the whole round pairs without a rematch; only when no such draw exists (or
-- the search passes 200,000 candidate checks, which needs far more rounds than ceil(log2 N))
-- are rematches allowed, each team then taking the first opponent it has not met in that
-- order, else the first it has met.
create function app.swiss_pairings(p_t app.tournaments, p_round int)
returns table (draw_position int, draw_team1 uuid, draw_team2 uuid)
language plpgsql stable
set search_path = ''
-- Rounds are drawn right after their matches were written, before statistics know of them;
-- the planner then expects one match a tournament and nests loops over thousands. Hash joins
-- stay fast whatever the estimates.
set enable_nestloop = off
as $$
declare
  v_ids uuid[];
  v_wins int[]; -- each team's points: its score group
  v_n int;
  v_half int;
  v_bye int;
  v_order int[];
  v_met int[];
  v_count int[];
  v_partner int[];
  v_pos int := 0;
  v_a int;
begin
  -- teams by index 1..N in seed order, and the bye: the lowest-placed team (by the standings'
  -- order, app.standings_table's key, then seed) that has not had one
  select array_agg(r.team_id order by r.i), array_agg(r.points order by r.i),
         (array_agg(r.i order by r.sort_key, r.i desc) filter (where not r.had_bye))[1]
    into v_ids, v_wins, v_bye
    from (select x.*, row_number() over (order by x.seed)::int as i from app.standings_table(p_t, p_round) x) r;
  v_n := cardinality(v_ids);

  if p_round = 1 then
    v_half := v_n / 2;
    for v_a in 1 .. v_half loop
      return query select v_a, v_ids[v_a], v_ids[v_a + v_half];
    end loop;
    if v_n % 2 = 1 then
      return query select v_half + 1, v_ids[v_n], null::uuid;
    end if;
    return;
  end if;

  if v_n % 2 = 0 then
    v_bye := null;
  end if;
  select array_agg(x.i::int order by x.w desc, x.i) into v_order
    from unnest(v_wins) with ordinality x (w, i) where x.i is distinct from v_bye;

  -- row i: the teams team i has met (at most one a round before this one)
  v_met := array_fill(0, array[v_n, p_round - 1]);
  v_count := array_fill(0, array[v_n]);
  for v_a, v_pos in
    select a.i, b.i from app.matches m
      join unnest(v_ids) with ordinality a (id, i) on a.id = m.team1_id
      join unnest(v_ids) with ordinality b (id, i) on b.id = m.team2_id
     where m.tournament_id = p_t.id and m.stage = p_t.stage and m.round < p_round
  loop
    v_count[v_a] := v_count[v_a] + 1;
    v_met[v_a][v_count[v_a]] := v_pos;
    v_count[v_pos] := v_count[v_pos] + 1;
    v_met[v_pos][v_count[v_pos]] := v_a;
  end loop;

  v_partner := coalesce(app.swiss_match(v_order, v_wins, v_met, v_n, false, 200000),
                        app.swiss_match(v_order, v_wins, v_met, v_n, true, 2147483647));
  v_pos := 0;
  foreach v_a in array v_order loop
    if v_partner[v_a] > 0 then
      v_pos := v_pos + 1;
      return query select v_pos, v_ids[v_a], v_ids[v_partner[v_a]];
      v_partner[v_partner[v_a]] := 0; -- drawn already
    end if;
  end loop;
  if v_bye is not null then
    return query select v_pos + 1, v_ids[v_bye], null::uuid;
  end if;
end
$$;
comment on function app.swiss_pairings(app.tournaments, int) is
  'Swiss: the draw of a round (position, team1, team2; team2 null for the bye) from the rounds before it.';

-- Makes a round's matches from its draw: ready matches, and a bye won by its team.
create function app.swiss_draw(p_t app.tournaments, p_round int) returns void
language sql volatile
set search_path = ''
as $$
  insert into app.matches (tournament_id, account_id, stage, round, position, team1_id, team2_id, winner_id, status,
                           best_of)
  select p_t.id, p_t.account_id, p_t.stage, p_round, p.draw_position, p.draw_team1, p.draw_team2,
         case when p.draw_team2 is null then p.draw_team1 end,
         case when p.draw_team2 is null then 'bye' else 'ready' end, app.series_length(p_t, false)
    from app.swiss_pairings(p_t, p_round) p
   order by p.draw_position
$$;
comment on function app.swiss_draw(app.tournaments, int) is 'Swiss: inserts a round''s matches from its draw.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.swiss_rounds(app.tournaments) to tournament_api_owner;
grant execute on function app.swiss_group_ends(int[], int[]) to tournament_api_owner;
grant execute on function app.swiss_group_middle(boolean[], int, int) to tournament_api_owner;
grant execute on function app.swiss_match(int[], int[], int[], int, boolean, int) to tournament_api_owner;
grant execute on function app.swiss_pairings(app.tournaments, int) to tournament_api_owner;
grant execute on function app.swiss_draw(app.tournaments, int) to tournament_api_owner;
