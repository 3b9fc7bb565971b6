-- Stages (contract section 12): app.separated_seeds' backtracking search, which keeps a group's
-- qualifiers in separate sections of an elimination bracket, gave up within its 200,000 steps on
-- about 6% of tier orders when many groups each send one team per tier (10 groups of 4 and a
-- best next-placed team into 64, found by tests/stages-properties.test.ts on a clean clone): it
-- now searches in a second order too (group by group, the largest groups first), which places
-- those in a few hundred steps. Behaviour is otherwise the same.
--
-- Drafted with `npm run db:diff` from supabase/schemas and reviewed.

SET local check_function_bodies = off;

CREATE OR REPLACE FUNCTION app.separated_seeds (
  p_groups integer[],
  p_tiers  integer[]
)
  RETURNS integer[]
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
declare
  v_k int := cardinality(p_groups);
  v_size int := 1;
  v_order int[];   -- slot (0-based) + 1 -> the seed placed there
  v_slot int[];    -- seed -> its slot, 0-based
  v_width int[];   -- group -> the width of its sections, in slots
  v_count int[];   -- group -> its qualifiers
  v_lo int[];      -- team -> the first seed of its tier
  v_hi int[];      -- team -> the last seed of its tier
  v_seed int[];    -- team -> its seed
  v_team int[];    -- seed -> its team (0: a bye)
  v_occ int[];     -- (group, section) -> its teams there
  v_sections int := 1;
  v_groups int;
  v_moved boolean := true;
  v_rounds int := 0;
  v_a int;
  v_s int;
  v_best int;
  v_best_seed int;
  v_delta int;
  v_g int;
  v_h int;
  v_b int;
  v_s2 int;
  v_p1 int;
  v_p2 int;
  v_tiers int;
  v_match int[];   -- seed -> the team matched to it in the tier being placed (0: none yet)
  v_at int[];      -- team -> its seed in the tier being placed
  v_queue int[];
  v_qi int;
  v_seen boolean[];
  v_prev int[];
  v_found int;
  v_x int;
  v_old int;
  v_placed boolean;
  v_ord int[];     -- the search's order of teams: the last tier first
  v_cur int[];     -- position in v_ord -> the seed its team holds (0: none yet)
  v_pos int;
  v_ok boolean;
  v_steps int;
begin
  while v_size < v_k loop
    v_size := v_size * 2;
  end loop;
  v_order := app.seed_order(v_size);
  v_slot := array_fill(0, array[v_size]);
  for i in 1 .. v_size loop
    v_slot[v_order[i]] := i - 1;
  end loop;
  select max(g) into v_groups from unnest(p_groups) g;
  v_count := array_fill(0, array[v_groups]);
  for i in 1 .. v_k loop
    v_count[p_groups[i]] := v_count[p_groups[i]] + 1;
  end loop;
  v_width := array_fill(v_size, array[v_groups]);
  for g in 1 .. v_groups loop
    v_s := 1;
    while v_s < v_count[g] loop
      v_s := v_s * 2;
    end loop;
    v_width[g] := greatest(v_size / v_s, 1);
    v_sections := greatest(v_sections, v_size / v_width[g]);
  end loop;
  v_lo := array_fill(0, array[v_k]);
  v_hi := v_lo;
  for i in 1 .. v_k loop
    v_lo[i] := case when i > 1 and p_tiers[i] = p_tiers[i - 1] then v_lo[i - 1] else i end;
  end loop;
  for i in reverse v_k .. 1 loop
    v_hi[i] := case when i < v_k and p_tiers[i] = p_tiers[i + 1] then v_hi[i + 1] else i end;
  end loop;
  -- First the section rule alone, tier by tier: each tier's teams matched to its seeds (a
  -- bipartite matching by augmenting paths, teams in tier order, seeds in order, so the tier
  -- order stands where it can) among the sections their groups do not hold yet; the tiers
  -- first to last, else last to first (the fewest teams first); else a backtracking search,
  -- the last tier first, that looks ahead at the teams each placing constrains; else the tier
  -- order as it is.
  v_tiers := p_tiers[v_k];
  for v_try in 1 .. 2 loop
    v_seed := array(select generate_series(1, v_k));
    v_occ := array_fill(0, array[v_groups * v_sections]);
    v_placed := v_try < 3;
    for v_t in 1 .. v_tiers loop
      exit when not v_placed;
      v_match := array_fill(0, array[v_size]);
      v_at := array_fill(0, array[v_k]);
      for v_a in 1 .. v_k loop
        continue when p_tiers[v_a] <> case when v_try = 1 then v_t else v_tiers + 1 - v_t end;
        v_queue := array[v_a];
        v_qi := 1;
        v_seen := array_fill(false, array[v_size]);
        v_prev := array_fill(0, array[v_size]);
        v_found := 0;
        while v_qi <= cardinality(v_queue) and v_found = 0 loop
          v_x := v_queue[v_qi];
          v_qi := v_qi + 1;
          v_g := p_groups[v_x];
          for v_s in v_lo[v_x] .. v_hi[v_x] loop
            continue when v_seen[v_s] or v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] > 0;
            v_seen[v_s] := true;
            v_prev[v_s] := v_x;
            if v_match[v_s] = 0 then
              v_found := v_s;
              exit;
            end if;
            v_queue := v_queue || v_match[v_s];
          end loop;
        end loop;
        if v_found = 0 then
          v_placed := false;
          exit;
        end if;
        v_s := v_found;
        loop -- along the augmenting path
          v_x := v_prev[v_s];
          v_old := v_at[v_x];
          v_match[v_s] := v_x;
          v_at[v_x] := v_s;
          exit when v_x = v_a;
          v_s := v_old;
        end loop;
      end loop;
      exit when not v_placed;
      for v_a in 1 .. v_k loop
        if v_at[v_a] > 0 then
          v_seed[v_a] := v_at[v_a];
          v_g := p_groups[v_a];
          v_occ[(v_g - 1) * v_sections + v_slot[v_seed[v_a]] / v_width[v_g] + 1] :=
            v_occ[(v_g - 1) * v_sections + v_slot[v_seed[v_a]] / v_width[v_g] + 1] + 1;
        end if;
      end loop;
    end loop;
    exit when v_placed;
  end loop;
  if not v_placed then
    -- (two orders, each within its budget: the last tier first, then group by group, the
    -- largest groups first, which finds in a few hundred steps what the first order cannot
    -- when many groups each send one team per tier)
    for v_try in 1 .. 2 loop
      v_ord := case v_try
        when 1 then array(select x from generate_series(1, v_k) x order by p_tiers[x] desc, x)
        else array(select x from generate_series(1, v_k) x
                    order by v_count[p_groups[x]] desc, p_groups[x], p_tiers[x] desc, x) end;
      v_cur := array_fill(0, array[v_k]);
      v_team := array_fill(0, array[v_size]);
      v_occ := array_fill(0, array[v_groups * v_sections]);
      v_pos := 1;
      v_steps := 0;
      while v_pos between 1 and v_k and v_steps < 200000 loop
        v_a := v_ord[v_pos];
        v_g := p_groups[v_a];
        if v_cur[v_pos] > 0 then -- let go of the seed tried last
          v_team[v_cur[v_pos]] := 0;
          v_occ[(v_g - 1) * v_sections + v_slot[v_cur[v_pos]] / v_width[v_g] + 1] := 0;
        end if;
        v_s := greatest(v_cur[v_pos], v_lo[v_a] - 1) + 1;
        v_cur[v_pos] := 0;
        while v_s <= v_hi[v_a] loop
          v_steps := v_steps + 1;
          if v_team[v_s] = 0 and v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] = 0 then
            v_team[v_s] := v_a;
            v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] := 1;
            v_ok := true;
            for v_qi in v_pos + 1 .. v_k loop -- every team this one constrains still has a seed
              v_b := v_ord[v_qi];
              v_h := p_groups[v_b];
              continue when v_h <> v_g and p_tiers[v_b] <> p_tiers[v_a];
              v_ok := false;
              for v_s2 in v_lo[v_b] .. v_hi[v_b] loop
                if v_team[v_s2] = 0 and v_occ[(v_h - 1) * v_sections + v_slot[v_s2] / v_width[v_h] + 1] = 0 then
                  v_ok := true;
                  exit;
                end if;
              end loop;
              exit when not v_ok;
            end loop;
            if v_ok then
              v_cur[v_pos] := v_s;
              exit;
            end if;
            v_team[v_s] := 0;
            v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] := 0;
          end if;
          v_s := v_s + 1;
        end loop;
        if v_cur[v_pos] = 0 then
          v_pos := v_pos - 1; -- back to the team before, to try its next seed
        else
          v_pos := v_pos + 1;
          if v_pos <= v_k then
            v_cur[v_pos] := 0;
          end if;
        end if;
      end loop;
      exit when v_pos > v_k;
    end loop;
    v_seed := array(select generate_series(1, v_k));
    if v_pos > v_k then
      for i in 1 .. v_k loop
        v_seed[v_ord[i]] := v_cur[i];
      end loop;
    end if;
  end if;
  v_team := array_fill(0, array[v_size]);
  v_occ := array_fill(0, array[v_groups * v_sections]);
  for i in 1 .. v_k loop
    v_team[v_seed[i]] := i;
    v_occ[(p_groups[i] - 1) * v_sections + v_slot[v_seed[i]] / v_width[p_groups[i]] + 1] :=
      v_occ[(p_groups[i] - 1) * v_sections + v_slot[v_seed[i]] / v_width[p_groups[i]] + 1] + 1;
  end loop;

  -- Then the first-round rule, and the section rule wherever the matching could not keep it.

  while v_moved and v_rounds < 4 * v_k loop
    v_moved := false;
    v_rounds := v_rounds + 1;
    -- the breaking teams, the lowest-placed first (the better seeds keep theirs)
    for v_s in reverse v_k .. 1 loop
      v_a := v_team[v_s];
      v_g := p_groups[v_a];
      v_p1 := v_order[(v_slot[v_s] # 1) + 1]; -- the seed it meets first
      continue when not (
        v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] >= 2 -- a group-mate in its section
        or (v_p1 <= v_k and v_team[v_p1] > 0 and p_groups[v_team[v_p1]] = v_g)); -- or in its first match
      -- the swap within its tier that mends the most
      v_best := 0;
      v_best_seed := null;
      for v_s2 in v_lo[v_a] .. v_hi[v_a] loop
        v_b := v_team[v_s2];
        continue when v_s2 = v_s or v_b = 0;
        v_h := p_groups[v_b];
        continue when v_h = v_g;
        v_delta := 0;
        if v_slot[v_s] / v_width[v_g] <> v_slot[v_s2] / v_width[v_g] then
          v_delta := v_delta + 1000 * (
            (case when v_occ[(v_g - 1) * v_sections + v_slot[v_s2] / v_width[v_g] + 1] >= 1 then 1 else 0 end)
            - (case when v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] >= 2 then 1 else 0 end));
        end if;
        if v_slot[v_s] / v_width[v_h] <> v_slot[v_s2] / v_width[v_h] then
          v_delta := v_delta + 1000 * (
            (case when v_occ[(v_h - 1) * v_sections + v_slot[v_s] / v_width[v_h] + 1] >= 1 then 1 else 0 end)
            - (case when v_occ[(v_h - 1) * v_sections + v_slot[v_s2] / v_width[v_h] + 1] >= 2 then 1 else 0 end));
        end if;
        v_p2 := v_order[(v_slot[v_s2] # 1) + 1];
        if v_p1 <> v_s2 then -- (two opponents swapping still meet each other)
          v_delta := v_delta
            + (case when v_p1 <= v_k and v_team[v_p1] > 0 and p_groups[v_team[v_p1]] = v_h then 1 else 0 end)
            + (case when v_p2 <= v_k and v_team[v_p2] > 0 and p_groups[v_team[v_p2]] = v_g then 1 else 0 end)
            - (case when v_p1 <= v_k and v_team[v_p1] > 0 and p_groups[v_team[v_p1]] = v_g then 1 else 0 end)
            - (case when v_p2 <= v_k and v_team[v_p2] > 0 and p_groups[v_team[v_p2]] = v_h then 1 else 0 end);
        end if;
        if v_delta < v_best or (v_delta = v_best and v_delta < 0 and abs(v_s2 - v_s) < abs(v_best_seed - v_s)) then
          v_best := v_delta;
          v_best_seed := v_s2;
        end if;
      end loop;
      continue when v_best >= 0;
      -- swap seeds v_s (team v_a, group v_g) and v_best_seed (team v_b, group v_h)
      v_b := v_team[v_best_seed];
      v_h := p_groups[v_b];
      v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] := v_occ[(v_g - 1) * v_sections + v_slot[v_s] / v_width[v_g] + 1] - 1;
      v_occ[(v_g - 1) * v_sections + v_slot[v_best_seed] / v_width[v_g] + 1] := v_occ[(v_g - 1) * v_sections + v_slot[v_best_seed] / v_width[v_g] + 1] + 1;
      v_occ[(v_h - 1) * v_sections + v_slot[v_best_seed] / v_width[v_h] + 1] := v_occ[(v_h - 1) * v_sections + v_slot[v_best_seed] / v_width[v_h] + 1] - 1;
      v_occ[(v_h - 1) * v_sections + v_slot[v_s] / v_width[v_h] + 1] := v_occ[(v_h - 1) * v_sections + v_slot[v_s] / v_width[v_h] + 1] + 1;
      v_team[v_s] := v_b;
      v_team[v_best_seed] := v_a;
      v_seed[v_a] := v_best_seed;
      v_seed[v_b] := v_s;
      v_moved := true;
    end loop;
  end loop;

  return v_seed;
end
$function$;
