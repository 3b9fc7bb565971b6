-- Stages (contract section 12), issues 32 and 33: the same-group separation of qualifiers moves
-- to its own file (supabase/schemas/15_separation.sql) and becomes exact. The old
-- app.separated_seeds(int[], int[]) (matching within tiers, a backtracking search with a step
-- budget, swap repair) could give up and leave two of a group in one section (11 groups of 4
-- and the 3 best fifths into 64); it is dropped. app.separated_seeds(int[]) places the
-- qualifiers by a flow over the bracket's tree (app.separation_layout, _empty_flow, _path,
-- _augment, _max_flow, _fix): the rule always holds (it always can: proof in the schema file),
-- and the seeds in tier order are the lexicographically smallest that keep it, so seeds may now
-- cross tiers. app.stage_qualifiers calls it with the groups alone.
--
-- Drafted with `npm run db:diff -- group_separation` from supabase/schemas and reviewed: grants
-- as the schema files give them (the revoke/grant pairs for postgres are the default
-- privileges' result, as in a build from the schemas); no data changes.

SET local check_function_bodies = off;

DROP FUNCTION "app"."separated_seeds"(integer[], integer[]);

CREATE TYPE "app"."separation_flow" AS (
  "entries"       integer[],
  "down"          integer[],
  "leaves"        integer[],
  "free_below"    integer[],
  "entered_below" integer[]
);

CREATE TYPE "app"."separation_layout" AS (
  "bracket_size"  integer,
  "bracket_depth" integer,
  "slot_of_seed"  integer[],
  "node_depth"    integer[],
  "group_depth"   integer[],
  "entry_start"   integer[],
  "depth_groups"  integer[],
  "depth_start"   integer[]
);

CREATE OR REPLACE FUNCTION app.separated_seeds (
  p_groups integer[]
)
  RETURNS integer[]
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.separation_augment (
  p_layout app.separation_layout,
  p_flow   app.separation_flow,
  p_path   integer[]
)
  RETURNS app.separation_flow
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.separation_empty_flow (
  p_layout     app.separation_layout,
  p_qualifiers integer
)
  RETURNS app.separation_flow
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.separation_fix (
  p_layout app.separation_layout,
  p_flow   app.separation_flow,
  p_group  integer,
  p_slot   integer,
  OUT      flow app.separation_flow,
  OUT      short integer,
  OUT      extra integer
)
  RETURNS record
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.separation_layout (
  p_groups integer[]
)
  RETURNS app.separation_layout
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.separation_max_flow (
  p_layout app.separation_layout,
  p_groups integer[]
)
  RETURNS app.separation_flow
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.separation_path (
  p_layout app.separation_layout,
  p_flow   app.separation_flow,
  p_from   integer,
  p_to     integer
)
  RETURNS integer[]
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.stage_qualifiers (
  p_t      app.tournaments,
  p_number integer
)
  RETURNS TABLE (
    team_id       uuid,
    seed          integer,
    from_group    integer,
    from_position integer,
    tied          boolean
  )
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_prev app.tournaments := app.stage_of(p_t, p_number - 1);
  v_def jsonb := app.stage_list(p_t) -> (p_number - 2);
  v_next text := app.stage_list(p_t) -> (p_number - 1) ->> 'format';
  v_k int := app.advancing_count(v_def);
  v_per int := (v_def #>> '{advance,per_group}')::int;
  v_best int := (v_def #>> '{advance,best_next}')::int;
  v_groups int := (v_prev.format_options ->> 'groups')::int;
  v_ids uuid[];
  v_grp int[];
  v_place int[];
  v_seeds int[];
  v_cut int;
  v_ties int;
begin
  if v_prev.format = 'round_robin' then
    with r as (
      select x.* from app.stage_ranking(v_prev) x
    ), best as (
      select b.team_id from r b
       where b.place = v_per + 1
       order by b.points::numeric / greatest(b.played, 1) desc, b.score_diff::numeric / greatest(b.played, 1) desc,
                b.score_for::numeric / greatest(b.played, 1) desc, b.seed
       limit v_best
    ), q as (
      -- The best_next teams are ranked among themselves by their record per match (the
      -- contract's ranking for them, since groups may differ in size): that ranking both picks
      -- them and orders their tier. The other tiers follow the stage's own standings.
      select r.*, case when r.place <= v_per then r.place else v_per + 1 end as tier,
             case when r.place <= v_per then 0
                  else row_number() over (order by r.points::numeric / greatest(r.played, 1) desc,
                                                   r.score_diff::numeric / greatest(r.played, 1) desc,
                                                   r.score_for::numeric / greatest(r.played, 1) desc, r.seed) end as best_order
        from r
       where r.place <= v_per or r.team_id in (select b.team_id from best b)
    )
    select array_agg(q.team_id order by q.tier, q.best_order, q.rank, q.grp),
           array_agg(q.grp order by q.tier, q.best_order, q.rank, q.grp),
           array_agg(q.place order by q.tier, q.best_order, q.rank, q.grp)
      into v_ids, v_grp, v_place
      from q;
    if v_next in ('single_elimination', 'double_elimination') and v_groups > 1 then
      v_seeds := app.separated_seeds(v_grp);
    else
      v_seeds := array(select generate_series(1, cardinality(v_ids)));
    end if;
    return query
      select u.id, u.seed, u.grp, u.place, false
        from unnest(v_ids, v_seeds, v_grp, v_place) as u (id, seed, grp, place)
       order by u.seed;
    return;
  end if;

  select array_agg(x.team_id order by x.place, x.seed), array_agg(x.place order by x.place, x.seed)
    into v_ids, v_place
    from app.stage_ranking(v_prev) x;
  v_cut := v_place[v_k];
  v_ties := case when cardinality(v_ids) > v_k and v_place[v_k + 1] = v_cut then 1 else 0 end;
  return query
    select u.id, u.i::int, null::int, u.place, v_ties = 1 and u.place = v_cut
      from unnest(v_ids, v_place) with ordinality as u (id, place, i)
     where u.i <= v_k or (v_ties = 1 and u.place = v_cut)
     order by u.i;
end
$function$;

COMMENT ON FUNCTION "app"."separated_seeds"(integer[]) IS 'Seeds 1..K for qualifiers in tier order (their groups given) keeping each group''s qualifiers in separate bracket sections, lexicographically smallest.';

REVOKE ALL ON FUNCTION "app"."separated_seeds"(integer[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION "app"."separated_seeds"(integer[]) FROM "postgres";

GRANT EXECUTE ON FUNCTION "app"."separated_seeds"(integer[]) TO "postgres";

GRANT EXECUTE ON FUNCTION "app"."separated_seeds"(integer[]) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."separation_augment"(app.separation_layout, app.separation_flow, integer[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION "app"."separation_augment"(app.separation_layout, app.separation_flow, integer[]) FROM "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_augment"(app.separation_layout, app.separation_flow, integer[]) TO "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_augment"(app.separation_layout, app.separation_flow, integer[]) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."separation_empty_flow"(app.separation_layout, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION "app"."separation_empty_flow"(app.separation_layout, integer) FROM "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_empty_flow"(app.separation_layout, integer) TO "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_empty_flow"(app.separation_layout, integer) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."separation_fix"(app.separation_layout, app.separation_flow, integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION "app"."separation_fix"(app.separation_layout, app.separation_flow, integer, integer) FROM "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_fix"(app.separation_layout, app.separation_flow, integer, integer) TO "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_fix"(app.separation_layout, app.separation_flow, integer, integer) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."separation_layout"(integer[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION "app"."separation_layout"(integer[]) FROM "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_layout"(integer[]) TO "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_layout"(integer[]) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."separation_max_flow"(app.separation_layout, integer[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION "app"."separation_max_flow"(app.separation_layout, integer[]) FROM "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_max_flow"(app.separation_layout, integer[]) TO "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_max_flow"(app.separation_layout, integer[]) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."separation_path"(app.separation_layout, app.separation_flow, integer, integer) FROM PUBLIC;

REVOKE ALL ON FUNCTION "app"."separation_path"(app.separation_layout, app.separation_flow, integer, integer) FROM "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_path"(app.separation_layout, app.separation_flow, integer, integer) TO "postgres";

GRANT EXECUTE ON FUNCTION "app"."separation_path"(app.separation_layout, app.separation_flow, integer, integer) TO "tournament_api_owner";
