-- Brackets, match reporting and results (contract section 5).
--
-- The bracket is made once, when a tournament goes from registration to ongoing (the caller
-- holds the tournament's row lock, so two racing starts make one bracket). Seeds follow
-- registration order; the bracket size P is the next power of two; standard seeding pairs
-- 1-P, 2-(P-1), ... so that seeds 1 and 2 can meet only in the final, and the P-N byes fall to
-- the top seeds. All P-1 matches exist from the start, each linked to the match its winner
-- goes to.

-- ============================================================================
-- types
-- ============================================================================
create domain app.match_status as text check (value in ('pending', 'ready', 'completed', 'bye'));

-- ============================================================================
-- tables
-- ============================================================================
create table app.matches (
  id uuid primary key default gen_random_uuid(),
  tournament_id uuid not null,
  account_id uuid not null,
  round int not null check (round >= 1),
  position int not null check (position >= 1),
  team1_id uuid references app.teams (id),
  team2_id uuid references app.teams (id),
  team1_score int check (team1_score >= 0),
  team2_score int check (team2_score >= 0),
  winner_id uuid references app.teams (id),
  status app.match_status not null default 'pending',
  next_match_id uuid references app.matches (id) on delete cascade,
  completed_at timestamptz(3),
  unique (tournament_id, round, position),
  foreign key (tournament_id, account_id)
    references app.tournaments (id, account_id) on delete cascade,
  check (team1_score is distinct from team2_score or team1_score is null)
);
comment on table app.matches is 'The single-elimination bracket: round 1 is the first, the match with no next_match_id the final.';
comment on column app.matches.account_id is 'The tournament''s account, copied so that RLS needs no join.';

-- ============================================================================
-- indexes
-- ============================================================================
-- (account_id, tournament_id): the RLS column first, and the tournament foreign key's columns.
create index matches_account_idx on app.matches (account_id, tournament_id);
create index matches_next_match_idx on app.matches (next_match_id);
-- The team foreign keys: deleting a team must not scan every match.
create index matches_team1_idx on app.matches (team1_id);
create index matches_team2_idx on app.matches (team2_id);
create index matches_winner_idx on app.matches (winner_id);

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.matches enable row level security;

create policy "Matches are visible to their account" on app.matches
  for select to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Matches are created in the bound account" on app.matches
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Matches are updated by their account" on app.matches
  for update to tournament_api_owner
  using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid))
  with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));

-- ============================================================================
-- views
-- ============================================================================
-- A match as the API returns it (a view: see app.tournament_documents).
create view app.match_documents with (security_invoker = true) as
  select m.id, m.tournament_id, m.round, m.position,
         json_build_object('id', m.id, 'round', m.round, 'position', m.position,
           'team1_id', m.team1_id, 'team2_id', m.team2_id, 'team1_score', m.team1_score,
           'team2_score', m.team2_score, 'winner_id', m.winner_id, 'status', m.status,
           'next_match_id', m.next_match_id,
           'completed_at', to_char(m.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.matches m;
comment on view app.match_documents is 'Each match with its API representation (doc).';

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

create function app.generate_bracket(p_tournament_id uuid) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_account uuid;
  v_n int;
  v_size int := 1;
  v_rounds int := 0;
begin
  if exists (select from app.matches m where m.tournament_id = p_tournament_id) then
    return; -- made already
  end if;
  select t.account_id into v_account from app.tournaments t where t.id = p_tournament_id;
  select count(*) into v_n from app.registrations r where r.tournament_id = p_tournament_id;
  while v_size < v_n loop
    v_size := v_size * 2;
    v_rounds := v_rounds + 1;
  end loop;

  -- One insert: every match gets its id up front (slots is materialized once) so that
  -- next_match_id can be filled in; round-1 byes put their team straight into round 2.
  insert into app.matches (id, tournament_id, account_id, round, position, team1_id, team2_id,
                           status, winner_id, next_match_id)
  with seeds as (
    select row_number() over (order by r.seq)::int as seed, r.team_id
      from app.registrations r where r.tournament_id = p_tournament_id
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
  select t.id, p_tournament_id, v_account, t.round, t.position, t.team1_id, t.team2_id,
         case when t.round = 1 and t.bye_winner is not null then 'bye'
              when t.team1_id is not null and t.team2_id is not null then 'ready'
              else 'pending' end,
         t.bye_winner, nxt.id
    from teams t
    left join slots nxt on nxt.round = t.round + 1 and nxt.position = (t.position + 1) / 2
   order by t.round, t.position;
end
$$;
comment on function app.generate_bracket(uuid) is
  'Makes all P-1 matches of a tournament''s bracket from its registrations; does nothing if they exist.';

create function app.final_decided(p_tournament_id uuid) returns boolean
language plpgsql stable
set search_path = ''
as $$
begin
  return exists (select from app.matches m
                  where m.tournament_id = p_tournament_id and m.next_match_id is null
                    and m.status = 'completed');
end
$$;

create function app.report_match(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_t app.tournaments;
  v_m app.matches;
  v_next app.matches;
  v_s1 int;
  v_s2 int;
  v_winner uuid;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "match_id": "uuid"}');
  perform app.check_input(p_args -> 'body', '{"team1_score": "int", "team2_score": "int"}');
  v_s1 := (p_args #>> '{body,team1_score}')::int;
  v_s2 := (p_args #>> '{body,team2_score}')::int;
  if v_s1 is null or v_s2 is null or v_s1 < 0 or v_s2 < 0 then
    perform app.raise_invalid(case when v_s1 is null or v_s1 < 0 then 'team1_score' else 'team2_score' end,
      'must be an integer of at least 0');
  end if;
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select * into v_m from app.matches m
   where m.id = (p_args ->> 'match_id')::uuid and m.tournament_id = v_t.id;
  if not found then
    perform app.raise_error('not_found', 'Match not found.');
  end if;
  if v_s1 = v_s2 then
    perform app.raise_invalid('team2_score', 'scores cannot be equal: a match needs a winner');
  end if;
  if v_t.status <> 'ongoing' then
    perform app.raise_error('match_locked',
      format('Matches cannot be reported while the tournament is %s.', v_t.status));
  end if;
  if v_m.status in ('pending', 'bye') then
    perform app.raise_error('match_not_ready',
      case v_m.status when 'bye' then 'This match is a bye; it has no result to report.'
                      else 'This match is still waiting for its teams.' end);
  end if;
  if v_m.next_match_id is not null then
    select * into v_next from app.matches m where m.id = v_m.next_match_id;
    if v_next.status = 'completed' then
      perform app.raise_error('match_locked',
        'The match this one feeds is completed; its result can no longer change.');
    end if;
  end if;

  v_winner := case when v_s1 > v_s2 then v_m.team1_id else v_m.team2_id end;
  update app.matches m
     set team1_score = v_s1, team2_score = v_s2, winner_id = v_winner, status = 'completed',
         completed_at = case when m.status = 'completed' and m.winner_id = v_winner
                             then m.completed_at else now() end
   where m.id = v_m.id
  returning * into v_m;

  if v_m.next_match_id is not null then
    update app.matches m
       set team1_id = case when v_m.position % 2 = 1 then v_winner else m.team1_id end,
           team2_id = case when v_m.position % 2 = 0 then v_winner else m.team2_id end
     where m.id = v_m.next_match_id
    returning * into v_next;
    update app.matches m
       set status = case when m.team1_id is not null and m.team2_id is not null then 'ready' else 'pending' end
     where m.id = v_next.id;
  end if;
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$$;
comment on function app.report_match(jsonb) is
  'Records a result (or corrects one while the next match is not completed) and advances the winner.';

create function app.tournament_results(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_tid uuid;
  v_t app.tournaments;
  v_rounds int;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  v_tid := (p_args ->> 'tournament_id')::uuid;
  select * into v_t from app.tournaments t where t.id = v_tid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  select max(m.round) into v_rounds from app.matches m where m.tournament_id = v_tid;

  return json_build_object(
    'tournament', json_build_object('id', v_t.id, 'format', v_t.format, 'status', v_t.status),
    'matches', (select coalesce(json_agg(d.doc order by d.round, d.position), '[]')
                  from app.match_documents d where d.tournament_id = v_tid),
    'standings', (
      with placed as (
        -- the loser of a completed match in round r is out with 2^(rounds - r + 1) teams left
        select case when m.winner_id = m.team1_id then m.team2_id else m.team1_id end as team_id,
               (1 << (v_rounds - m.round)) + 1 as position
          from app.matches m
         where m.tournament_id = v_tid and m.status = 'completed'
        union all
        select m.winner_id, 1
          from app.matches m
         where m.tournament_id = v_tid and m.next_match_id is null and m.status = 'completed'
      )
      select coalesce(json_agg(json_build_object('position', p.position, 'team_id', p.team_id,
                                                 'team_name', tm.name, 'team_tag', tm.tag)
                               order by p.position, tm.name, tm.id), '[]')
        from placed p join app.teams tm on tm.id = p.team_id));
end
$$;
comment on function app.tournament_results(jsonb) is
  'Results: the matches by round and position, and standings by competition ranking (1, 2, 3, 3, 5, ...).';

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert, update on app.matches to tournament_api_owner;
grant select on app.match_documents to tournament_api_owner;

grant execute on function app.seed_order(int) to tournament_api_owner;
grant execute on function app.generate_bracket(uuid) to tournament_api_owner;
grant execute on function app.final_decided(uuid) to tournament_api_owner;
grant execute on function app.report_match(jsonb) to tournament_api_owner;
grant execute on function app.tournament_results(jsonb) to tournament_api_owner;
