-- Same-group separation (contract section 12): the seeds 1..K that an elimination stage gives
-- the qualifiers of a round robin with groups. app.stage_qualifiers (16_stages.sql) calls
-- app.separated_seeds with each qualifier's group, qualifiers in tier order.
--
-- The rule: a group with k qualifiers in a bracket of size P (P = K rounded up to a power of
-- two; seeds K+1..P are byes, where standard seeding puts them) has at most one of them in each
-- of k' equal sections of the bracket (k' = k rounded up to a power of two). It implies the
-- first-round rule: a first-round match lies inside one section whenever k <= P / 2, which
-- every group meets when G >= 2 groups send per_group or per_group + 1 teams each.
--
-- It can always be met. Proof, splitting the bracket in halves: standard seeding puts one of
-- every 2^d consecutive seeds in each section of depth d, so the two halves of any section hold
-- floor(c/2) and ceil(c/2) of its c real slots; a group with c qualifiers in a section holding
-- t >= c of its own sections must send between max(0, c - t/2) <= floor(c/2) and
-- min(c, t/2) >= ceil(c/2) of them to the left half; summed over the groups these bounds
-- enclose both floor(total/2) and ceil(total/2), so a split exists, and each half is the same
-- problem again (t/2 >= its share, real slots balanced).
--
-- The objective: among the placements that keep the rule, the sequence of seeds given to
-- qualifiers 1..K in tier order is the lexicographically smallest. So the tier order is kept
-- exactly when it already keeps the rule, and the first group winner always has seed 1. It
-- does not always give the group winners seeds 1..G when some placement would: groups
-- [1, 2, 3, 3, 1] (three winners, then two best seconds) get seeds [1, 4, 2, 5, 3], where
-- [2, 1, 3, 4, 5] also keeps the rule (0.6% of random events, tests/stages/separation.test.ts counts them).
--
-- How: the rule is a flow from each group (k qualifiers) through its sections (capacity 1) down
-- the bracket's tree (node n: children 2n and 2n + 1, leaves P .. 2P - 1 the slots) to the real
-- slots (capacity 1). One full flow is found first (app.separation_max_flow); then each
-- qualifier in tier order takes the smallest seed for which the flow can be repaired by one
-- augmenting path (app.separation_fix, app.separation_path, app.separation_augment).

-- ============================================================================
-- types
-- ============================================================================

-- The fixed shape of one separation problem.
create type app.separation_layout as (
  bracket_size int,     -- P
  bracket_depth int,    -- log2 P
  slot_of_seed int[],   -- seed -> its slot, 0-based (standard seeding)
  node_depth int[],     -- tree node -> its depth (the root 0, the leaves log2 P)
  group_depth int[],    -- group -> log2 of its section count
  entry_start int[],    -- group -> its sections' offset in separation_flow.entries
  depth_groups int[],   -- the groups with qualifiers, by depth
  depth_start int[]     -- depth + 1 -> its first index in depth_groups (depth + 2: one past its last)
);

-- A flow of the separation problem, and what is placed for good.
create type app.separation_flow as (
  entries int[],        -- (group, section) -> 0 open, 1 carries a qualifier, 2 closed (a group-mate placed there)
  down int[],           -- tree node -> qualifiers on the edge from its parent
  leaves int[],         -- slot + 1 -> 0 open, 1 holds a qualifier, 2 closed (a bye or a placed qualifier)
  free_below int[],     -- tree node -> its open leaves
  entered_below int[]   -- tree node -> qualifiers that enter the tree at it or below it
);

-- ============================================================================
-- functions
-- ============================================================================

-- The layout for qualifiers of groups p_groups (one entry per qualifier).
create function app.separation_layout(p_groups int[]) returns app.separation_layout
language plpgsql immutable
set search_path = ''
as $$
declare
  v_layout app.separation_layout;
  v_size int := 1;
  v_depth int := 0;
  v_group_count int := (select max(g) from unnest(p_groups) g);
  v_counts int[] := array_fill(0, array[v_group_count]);
  v_order int[];
  v_next_entry int := 0;
begin
  while v_size < cardinality(p_groups) loop
    v_size := v_size * 2;
    v_depth := v_depth + 1;
  end loop;
  foreach v_next_entry in array p_groups loop
    v_counts[v_next_entry] := v_counts[v_next_entry] + 1;
  end loop;
  v_order := app.seed_order(v_size);
  v_layout.bracket_size := v_size;
  v_layout.bracket_depth := v_depth;
  v_layout.slot_of_seed := array(select s.slot - 1 from unnest(v_order) with ordinality s (seed, slot) order by s.seed);
  v_layout.node_depth := array(
    select d from generate_series(0, v_depth) d, generate_series(1 << d, (2 << d) - 1) n order by n);
  v_layout.group_depth := array( -- log2 of c rounded up to a power of two
    select (select count(*) from generate_series(0, 30) b where (1 << b) < c)::int from unnest(v_counts) c);
  v_next_entry := 0;
  v_layout.entry_start := array_fill(0, array[v_group_count]);
  for g in 1 .. v_group_count loop
    v_layout.entry_start[g] := v_next_entry;
    v_next_entry := v_next_entry + (1 << v_layout.group_depth[g]);
  end loop;
  v_layout.depth_groups := array(
    select g from generate_series(1, v_group_count) g where v_counts[g] > 0 order by v_layout.group_depth[g], g);
  v_layout.depth_start := array(
    select 1 + count(*) filter (where v_counts[g] > 0 and v_layout.group_depth[g] < d)
      from generate_series(0, v_depth + 1) d cross join generate_series(1, v_group_count) g
     group by d order by d);
  return v_layout;
end
$$;

-- An empty flow: every real slot open, the byes (seeds past p_qualifiers) closed.
create function app.separation_empty_flow(p_layout app.separation_layout, p_qualifiers int)
returns app.separation_flow
language plpgsql immutable
set search_path = ''
as $$
declare
  v_flow app.separation_flow;
  v_size int := p_layout.bracket_size;
  v_free int[] := array_fill(0, array[2 * v_size - 1]);
  v_leaves int[] := array_fill(2, array[v_size]);
  v_node int;
begin
  for v_seed in 1 .. p_qualifiers loop
    v_leaves[p_layout.slot_of_seed[v_seed] + 1] := 0;
    v_node := v_size + p_layout.slot_of_seed[v_seed];
    while v_node >= 1 loop
      v_free[v_node] := v_free[v_node] + 1;
      v_node := v_node / 2;
    end loop;
  end loop;
  v_flow.entries := array_fill(0, array[greatest(p_layout.entry_start[cardinality(p_layout.entry_start)]
    + (1 << p_layout.group_depth[cardinality(p_layout.group_depth)]), 1)]);
  v_flow.down := array_fill(0, array[2 * v_size - 1]);
  v_flow.leaves := v_leaves;
  v_flow.free_below := v_free;
  v_flow.entered_below := array_fill(0, array[2 * v_size - 1]);
  return v_flow;
end
$$;

-- An augmenting path in the residual graph, breadth first: from group p_from (one qualifier
-- short) to an open slot (p_to = 0) or to group p_to (one qualifier too many). Nodes: group g is
-- g, tree node n is G + n; the path ends at the target group or at a tree node above an open
-- slot. Null when there is none.
create function app.separation_path(p_layout app.separation_layout, p_flow app.separation_flow, p_from int, p_to int)
returns int[]
language plpgsql immutable
set search_path = ''
as $$
declare
  v_groups int := cardinality(p_layout.group_depth);
  v_size int := p_layout.bracket_size;
  v_entries int[] := p_flow.entries;
  v_down int[] := p_flow.down;
  v_free int[] := p_flow.free_below;
  v_entered int[] := p_flow.entered_below;
  v_came_from int[] := array_fill(0, array[v_groups + 2 * v_size]);
  v_queue int[] := array_fill(0, array[v_groups + 2 * v_size]);
  v_head int := 1;
  v_tail int := 1;
  v_current int;
  v_node int;
  v_depth int;
  v_group int;
  v_end int := 0;
  v_path int[];
begin
  v_came_from[p_from] := -1;
  v_queue[1] := p_from;
  while v_head <= v_tail and v_end = 0 loop
    v_current := v_queue[v_head];
    v_head := v_head + 1;
    if v_current <= v_groups then
      -- a group: into any of its open sections
      v_depth := p_layout.group_depth[v_current];
      for v_node in (1 << v_depth) .. (2 << v_depth) - 1 loop
        continue when v_entries[p_layout.entry_start[v_current] + v_node - (1 << v_depth) + 1] <> 0
          or v_came_from[v_groups + v_node] <> 0;
        v_came_from[v_groups + v_node] := v_current;
        v_tail := v_tail + 1;
        v_queue[v_tail] := v_groups + v_node;
        if p_to = 0 and v_free[v_node] > 0 then
          v_end := v_groups + v_node;
          exit;
        end if;
      end loop;
      continue;
    end if;
    v_node := v_current - v_groups;
    v_depth := p_layout.node_depth[v_node];
    -- back along a section that carries a group's qualifier: that group places one less there
    for v_index in p_layout.depth_start[v_depth + 1] .. p_layout.depth_start[v_depth + 2] - 1 loop
      v_group := p_layout.depth_groups[v_index];
      continue when v_came_from[v_group] <> 0
        or v_entries[p_layout.entry_start[v_group] + v_node - (1 << v_depth) + 1] <> 1;
      v_came_from[v_group] := v_current;
      v_tail := v_tail + 1;
      v_queue[v_tail] := v_group;
      if v_group = p_to then
        v_end := v_group;
        exit;
      end if;
    end loop;
    exit when v_end > 0;
    -- up, against the flow from the parent
    if v_node > 1 and v_down[v_node] > 0 and v_came_from[v_groups + v_node / 2] = 0 then
      v_came_from[v_groups + v_node / 2] := v_current;
      v_tail := v_tail + 1;
      v_queue[v_tail] := v_groups + v_node / 2;
      if p_to = 0 and v_free[v_node / 2] > 0 then
        v_end := v_groups + v_node / 2;
      end if;
    end if;
    -- down, where a section below carries qualifiers or a slot is open
    if v_end = 0 and v_node < v_size then
      for v_child in 2 * v_node .. 2 * v_node + 1 loop
        continue when v_came_from[v_groups + v_child] <> 0
          or not (v_entered[v_child] > 0 or (p_to = 0 and v_free[v_child] > 0));
        v_came_from[v_groups + v_child] := v_current;
        v_tail := v_tail + 1;
        v_queue[v_tail] := v_groups + v_child;
        if p_to = 0 and v_free[v_child] > 0 then
          v_end := v_groups + v_child;
          exit;
        end if;
      end loop;
    end if;
  end loop;
  if v_end = 0 then
    return null;
  end if;
  v_path := array[v_end];
  while v_came_from[v_path[1]] <> -1 loop
    v_path := v_came_from[v_path[1]] || v_path;
  end loop;
  return v_path;
end
$$;

-- The flow after one more qualifier along p_path (app.separation_path): the path's edges
-- turned, then, when it ends at a tree node, down to an open slot below it.
create function app.separation_augment(p_layout app.separation_layout, p_flow app.separation_flow, p_path int[])
returns app.separation_flow
language plpgsql immutable
set search_path = ''
as $$
declare
  v_groups int := cardinality(p_layout.group_depth);
  v_size int := p_layout.bracket_size;
  v_entries int[] := p_flow.entries;
  v_down int[] := p_flow.down;
  v_leaves int[] := p_flow.leaves;
  v_free int[] := p_flow.free_below;
  v_entered int[] := p_flow.entered_below;
  v_from int;
  v_to int;
  v_node int;
  v_group int;
  v_change int;
begin
  for v_step in 1 .. cardinality(p_path) - 1 loop
    v_from := p_path[v_step];
    v_to := p_path[v_step + 1];
    if v_from <= v_groups or v_to <= v_groups then
      -- a group enters a section (1), or leaves one (0)
      v_group := least(v_from, v_to);
      v_node := greatest(v_from, v_to) - v_groups;
      v_change := case when v_from <= v_groups then 1 else -1 end;
      v_entries[p_layout.entry_start[v_group] + v_node - (1 << p_layout.group_depth[v_group]) + 1] :=
        case when v_change = 1 then 1 else 0 end;
      while v_node >= 1 loop
        v_entered[v_node] := v_entered[v_node] + v_change;
        v_node := v_node / 2;
      end loop;
    elsif v_to - v_groups = (v_from - v_groups) / 2 then
      v_down[v_from - v_groups] := v_down[v_from - v_groups] - 1;
    else
      v_down[v_to - v_groups] := v_down[v_to - v_groups] + 1;
    end if;
  end loop;
  v_node := p_path[cardinality(p_path)] - v_groups;
  if v_node >= 1 then
    while v_node < v_size loop
      v_node := case when v_free[2 * v_node] > 0 then 2 * v_node else 2 * v_node + 1 end;
      v_down[v_node] := v_down[v_node] + 1;
    end loop;
    v_leaves[v_node - v_size + 1] := 1;
    while v_node >= 1 loop
      v_free[v_node] := v_free[v_node] - 1;
      v_node := v_node / 2;
    end loop;
  end if;
  return row(v_entries, v_down, v_leaves, v_free, v_entered)::app.separation_flow;
end
$$;

-- One full flow: every qualifier of every group routed to a slot, one augmenting path each.
-- Null if the rule cannot be kept (never, by the proof in this file's header).
create function app.separation_max_flow(p_layout app.separation_layout, p_groups int[])
returns app.separation_flow
language plpgsql immutable
set search_path = ''
as $$
declare
  v_flow app.separation_flow := app.separation_empty_flow(p_layout, cardinality(p_groups));
  v_path int[];
begin
  for v_qualifier in 1 .. cardinality(p_groups) loop
    v_path := app.separation_path(p_layout, v_flow, p_groups[v_qualifier], 0);
    if v_path is null then
      return null;
    end if;
    v_flow := app.separation_augment(p_layout, v_flow, v_path);
  end loop;
  return v_flow;
end
$$;

-- Places a qualifier of group p_group at slot p_slot for good, in a full flow: the qualifier
-- that flowed to that slot is taken off (its group becomes `short`), and the group's section
-- there is closed (a qualifier of the group that flowed through it is taken off too, freeing a
-- slot; if none did, the group has one qualifier `extra`). Balanced again by one augmenting
-- path from `short` to `extra` (0: to the freed slot); short = 0 when already balanced.
create function app.separation_fix(p_layout app.separation_layout, p_flow app.separation_flow, p_group int, p_slot int,
  out flow app.separation_flow, out short int, out extra int)
language plpgsql immutable
set search_path = ''
as $$
declare
  v_size int := p_layout.bracket_size;
  v_entries int[] := p_flow.entries;
  v_down int[] := p_flow.down;
  v_leaves int[] := p_flow.leaves;
  v_free int[] := p_flow.free_below;
  v_entered int[] := p_flow.entered_below;
  v_depth int := p_layout.group_depth[p_group];
  v_section int := (v_size + p_slot) >> (p_layout.bracket_depth - v_depth);
  v_section_entry int := p_layout.entry_start[p_group] + v_section - (1 << v_depth) + 1;
  v_node int := v_size + p_slot;
  v_entry int;
  v_index int;
begin
  v_leaves[p_slot + 1] := 2;
  short := 0;
  -- up from the slot to where its qualifier entered the tree (its own group's section first)
  while short = 0 loop
    v_depth := p_layout.node_depth[v_node];
    if v_node = v_section and v_entries[v_section_entry] = 1 then
      short := p_group;
      v_entry := v_section_entry;
    end if;
    v_index := p_layout.depth_start[v_depth + 1];
    while v_index < p_layout.depth_start[v_depth + 2] and short = 0 loop
      v_entry := p_layout.entry_start[p_layout.depth_groups[v_index]] + v_node - (1 << v_depth) + 1;
      if v_entries[v_entry] = 1 then
        short := p_layout.depth_groups[v_index];
      end if;
      v_index := v_index + 1;
    end loop;
    if short > 0 then
      v_entries[v_entry] := 0;
      for v_above in 0 .. v_depth loop
        v_entered[v_node >> v_above] := v_entered[v_node >> v_above] - 1;
      end loop;
    end if;
    exit when short > 0;
    v_down[v_node] := v_down[v_node] - 1;
    v_node := v_node / 2;
  end loop;
  -- close the group's section; a group-mate flowing through it gives up its slot
  extra := 0;
  if v_entries[v_section_entry] = 1 then
    for v_above in 0 .. p_layout.node_depth[v_section] loop
      v_entered[v_section >> v_above] := v_entered[v_section >> v_above] - 1;
    end loop;
    v_node := v_section;
    while v_node < v_size loop
      v_node := case when v_down[2 * v_node] > 0 then 2 * v_node else 2 * v_node + 1 end;
      v_down[v_node] := v_down[v_node] - 1;
    end loop;
    v_leaves[v_node - v_size + 1] := 0;
    while v_node >= 1 loop
      v_free[v_node] := v_free[v_node] + 1;
      v_node := v_node / 2;
    end loop;
  elsif short = p_group then
    short := 0;
  else
    extra := p_group;
  end if;
  v_entries[v_section_entry] := 2;
  flow := row(v_entries, v_down, v_leaves, v_free, v_entered)::app.separation_flow;
end
$$;

-- The seeds (1..K) of qualifiers 1..K in tier order, p_groups[i] the group of qualifier i:
-- among the placements that keep every group's qualifiers in separate sections (this file's
-- header), the one whose sequence of seeds is lexicographically smallest.
create function app.separated_seeds(p_groups int[]) returns int[]
language plpgsql immutable
set search_path = ''
as $$
declare
  v_layout app.separation_layout := app.separation_layout(p_groups);
  v_flow app.separation_flow := app.separation_max_flow(v_layout, p_groups);
  v_tried record;
  v_path int[];
  v_seeds int[] := array_fill(0, array[cardinality(p_groups)]);
  v_group int;
  v_slot int;
  v_section int;
begin
  if v_flow is null then
    return array(select generate_series(1, cardinality(p_groups))); -- unreachable (see the header)
  end if;
  for v_qualifier in 1 .. cardinality(p_groups) loop
    v_group := p_groups[v_qualifier];
    for v_seed in 1 .. cardinality(p_groups) loop
      v_slot := v_layout.slot_of_seed[v_seed];
      continue when v_flow.leaves[v_slot + 1] = 2;
      v_section := (v_layout.bracket_size + v_slot) >> (v_layout.bracket_depth - v_layout.group_depth[v_group]);
      continue when v_flow.entries[v_layout.entry_start[v_group] + v_section - (1 << v_layout.group_depth[v_group]) + 1] = 2;
      v_tried := app.separation_fix(v_layout, v_flow, v_group, v_slot);
      if v_tried.short = 0 then
        v_flow := v_tried.flow;
      else
        v_path := app.separation_path(v_layout, v_tried.flow, v_tried.short, v_tried.extra);
        continue when v_path is null;
        v_flow := app.separation_augment(v_layout, v_tried.flow, v_path);
      end if;
      v_seeds[v_qualifier] := v_seed;
      exit;
    end loop;
  end loop;
  return v_seeds;
end
$$;
comment on function app.separated_seeds(int[]) is
  'Seeds 1..K for qualifiers in tier order (their groups given) keeping each group''s qualifiers in separate bracket sections, lexicographically smallest.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.separation_layout(int[]) to tournament_api_owner;
grant execute on function app.separation_empty_flow(app.separation_layout, int) to tournament_api_owner;
grant execute on function app.separation_path(app.separation_layout, app.separation_flow, int, int) to tournament_api_owner;
grant execute on function app.separation_augment(app.separation_layout, app.separation_flow, int[]) to tournament_api_owner;
grant execute on function app.separation_max_flow(app.separation_layout, int[]) to tournament_api_owner;
grant execute on function app.separation_fix(app.separation_layout, app.separation_flow, int, int) to tournament_api_owner;
grant execute on function app.separated_seeds(int[]) to tournament_api_owner;
