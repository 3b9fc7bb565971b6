-- Formats (contract section 10), the common part: format and format_options on tournaments;
-- matches that belong to a bracket (winners, losers, grand_final, third_place) or a group, and
-- send their loser on as well as their winner; one advancement rule for every format; the
-- format's generator, standings and report hooks chosen by one dispatch each. Each format's
-- own rules live in a migration of their own (single elimination's third-place match below).
--
-- Advancement: a match's winner goes to next_match_id in slot next_slot (1 = team1, 2 = team2)
-- and its loser to loser_next_match_id in loser_next_slot. Matches made before this migration
-- have no slots: the winner of position p goes to slot 2 - p % 2, as it always did.

-- ============================================================================
-- types
-- ============================================================================
-- The formats a tournament may take, listed once for SQL (functions/api/contract.ts has the
-- API's list; a test keeps the two equal).
create function app.formats() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['single_elimination', 'double_elimination', 'round_robin', 'swiss']
$$;
comment on function app.formats() is 'Every tournament format the API offers.';

-- ============================================================================
-- tables
-- ============================================================================
alter table app.tournaments drop constraint tournaments_format_check;
alter table app.tournaments
  add constraint tournaments_format_check check (format = any (app.formats())),
  add column format_options jsonb not null default '{}';
comment on column app.tournaments.format_options is
  'The format''s options, complete with their defaults (app.format_options); locked once ongoing.';

alter table app.matches
  add column bracket text check (bracket in ('winners', 'losers', 'grand_final', 'third_place')),
  add column group_no int check (group_no >= 1),
  add column next_slot smallint check (next_slot in (1, 2)),
  add column loser_next_match_id uuid references app.matches (id) on delete cascade,
  add column loser_next_slot smallint check (loser_next_slot in (1, 2));
alter table app.matches drop constraint matches_tournament_id_round_position_key;
create unique index matches_place_key
  on app.matches (tournament_id, coalesce(bracket, ''), coalesce(group_no, 0), round, position);
create index matches_loser_next_match_idx on app.matches (loser_next_match_id);
comment on column app.matches.bracket is
  'winners, losers, grand_final or third_place in the elimination formats; null otherwise.';
comment on column app.matches.group_no is 'The group (1-based) of a round-robin match; null otherwise.';

-- Matches made before: their bracket is the winners bracket.
update app.matches set bracket = 'winners' where bracket is null;

-- Each side's bracket seed, kept on the match (app.match_seeds) so that reading a large bracket
-- looks nothing up per match: two lookups per match were 40% of a 2,016-match results read.
alter table app.matches add column team1_seed int, add column team2_seed int;
update app.matches m
   set team1_seed = (select r.bracket_seed from app.registrations r where r.tournament_id = m.tournament_id and r.team_id = m.team1_id),
       team2_seed = (select r.bracket_seed from app.registrations r where r.tournament_id = m.tournament_id and r.team_id = m.team2_id);

-- ============================================================================
-- views
-- ============================================================================
create or replace view app.tournament_documents with (security_invoker = true) as
  select t.id, t.account_id, t.status, t.game_id, t.created_at,
         json_build_object(
           'id', t.id, 'name', t.name, 'slug', t.slug, 'description', t.description,
           'game_id', t.game_id, 'status', t.status, 'format', t.format, 'format_options', t.format_options,
           'team_size', t.team_size, 'max_teams', t.max_teams,
           'entry_fee', t.entry_fee, 'prize_pool', t.prize_pool,
           'starts_at', to_char(t.starts_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'registration_closes', to_char(t.registration_closes at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'check_in_opens', to_char(t.check_in_opens at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'rules', t.rules,
           'created_at', to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'updated_at', to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.tournaments t;

-- The doc is row_to_json of one record rather than json_build_object of its pairs: a third
-- faster to build (2,047 matches of a 1,024-team double elimination: 19 ms against 30).
create or replace view app.match_documents with (security_invoker = true) as
  select m.id, m.tournament_id, m.round, m.position, row_to_json(d) as doc, m.bracket, m.group_no
    from app.matches m
   cross join lateral (
     select m.id, m.bracket, m.group_no as "group", m.round, m.position, m.team1_id, m.team2_id,
            m.team1_seed, m.team2_seed, m.team1_score, m.team2_score, m.winner_id, m.status::text as status,
            m.forfeit, m.next_match_id, m.loser_next_match_id,
            to_char(m.scheduled_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as scheduled_at,
            to_char(m.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as completed_at) d;

-- ============================================================================
-- triggers
-- ============================================================================
-- A match's team1_seed and team2_seed follow its teams, whatever format puts them there.
create function app.match_seeds() returns trigger
language plpgsql volatile
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' or new.team1_id is distinct from old.team1_id then
    new.team1_seed := (select r.bracket_seed from app.registrations r
                        where r.tournament_id = new.tournament_id and r.team_id = new.team1_id);
  end if;
  if tg_op = 'INSERT' or new.team2_id is distinct from old.team2_id then
    new.team2_seed := (select r.bracket_seed from app.registrations r
                        where r.tournament_id = new.tournament_id and r.team_id = new.team2_id);
  end if;
  return new;
end
$$;
create trigger matches_seeds before insert or update of team1_id, team2_id on app.matches
  for each row execute function app.match_seeds();

-- ============================================================================
-- functions: format options
-- ============================================================================
-- The format's options, checked strictly and completed with their defaults; a 400 naming the
-- field (format_options.<name>) otherwise.
create function app.format_options(p_format text, p_options jsonb) returns jsonb
language plpgsql immutable
set search_path = ''
as $$
declare
  v_options jsonb := coalesce(p_options, '{}');
  v_known text[];
  v_unknown text;
  v_out jsonb;
begin
  if p_format is null or p_format <> all (app.formats()) then
    perform app.raise_invalid('format', 'must be one of ' || array_to_string(app.formats(), ', '));
  end if;
  if jsonb_typeof(v_options) <> 'object' then
    perform app.raise_invalid('format_options', 'must be an object');
  end if;
  v_known := case p_format
    when 'single_elimination' then array['third_place_match']
    when 'double_elimination' then array['grand_final']
    when 'round_robin' then array['groups', 'points']
    when 'swiss' then array['rounds'] end;
  select k into v_unknown from jsonb_object_keys(v_options) k where k <> all (v_known) order by k limit 1;
  if v_unknown is not null then
    perform app.raise_invalid('format_options.' || v_unknown, format('is not an option of %s', p_format));
  end if;

  case p_format
    when 'single_elimination' then
      v_out := jsonb_build_object('third_place_match', coalesce(v_options -> 'third_place_match', 'false'));
      if jsonb_typeof(v_out -> 'third_place_match') <> 'boolean' then
        perform app.raise_invalid('format_options.third_place_match', 'must be a boolean');
      end if;
    when 'double_elimination' then
      v_out := jsonb_build_object('grand_final', coalesce(v_options -> 'grand_final', '"reset"'));
      if v_out ->> 'grand_final' is null or v_out ->> 'grand_final' not in ('single', 'reset')
         or jsonb_typeof(v_out -> 'grand_final') <> 'string' then
        perform app.raise_invalid('format_options.grand_final', 'must be "single" or "reset"');
      end if;
    when 'round_robin' then
      v_out := jsonb_build_object('groups', coalesce(v_options -> 'groups', '1'),
        'points', coalesce(v_options -> 'points', '{}'));
      if not app.is_int(v_out -> 'groups', 1, 512) then
        perform app.raise_invalid('format_options.groups', 'must be an integer from 1 to 512');
      end if;
      if jsonb_typeof(v_out -> 'points') <> 'object' then
        perform app.raise_invalid('format_options.points', 'must be an object {win, loss}');
      end if;
      select k into v_unknown from jsonb_object_keys(v_out -> 'points') k where k not in ('win', 'loss') order by k limit 1;
      if v_unknown is not null then
        perform app.raise_invalid('format_options.points.' || v_unknown, 'is not a known field (win, loss)');
      end if;
      v_out := jsonb_set(v_out, '{points}', jsonb_build_object(
        'win', coalesce(v_out #> '{points,win}', '3'), 'loss', coalesce(v_out #> '{points,loss}', '0')));
      if not app.is_int(v_out #> '{points,win}', -1000, 1000) then
        perform app.raise_invalid('format_options.points.win', 'must be an integer from -1000 to 1000');
      end if;
      if not app.is_int(v_out #> '{points,loss}', -1000, 1000) then
        perform app.raise_invalid('format_options.points.loss', 'must be an integer from -1000 to 1000');
      end if;
    when 'swiss' then
      v_out := jsonb_build_object('rounds', coalesce(v_options -> 'rounds', 'null'));
      if jsonb_typeof(v_out -> 'rounds') <> 'null' and not app.is_int(v_out -> 'rounds', 1, 1023) then
        perform app.raise_invalid('format_options.rounds', 'must be an integer from 1 to 1023, or null for ceil(log2 N)');
      end if;
  end case;
  return v_out;
end
$$;
comment on function app.format_options(text, jsonb) is
  'The options of a format, checked (400 format_options.<name>) and completed with defaults.';

create function app.is_int(p_value jsonb, p_min int, p_max int) returns boolean
language sql immutable
set search_path = ''
as $$
  select jsonb_typeof(p_value) = 'number' and p_value::text ~ '^-?\d{1,9}$'
     and (p_value::text)::int between p_min and p_max
$$;

-- ============================================================================
-- functions: tournaments (format, format_options)
-- ============================================================================
create or replace function app.create_tournament(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := p_args -> 'body';
  v_new app.tournaments;
  v_stem text;
  v_t app.tournaments;
begin
  perform app.check_input(v_body, app.tournament_input_types());
  v_new.starts_at := (v_body ->> 'starts_at')::timestamptz;
  v_new.registration_closes := coalesce((v_body ->> 'registration_closes')::timestamptz, v_new.starts_at);
  v_new.check_in_opens := (v_body ->> 'check_in_opens')::timestamptz;
  v_new.format := coalesce(v_body ->> 'format', 'single_elimination');
  v_new.format_options := app.format_options(v_new.format, v_body -> 'format_options');
  if v_new.starts_at is null or v_new.starts_at <= now() then
    perform app.raise_invalid('starts_at', 'must be in the future');
  end if;
  perform app.check_tournament_dates(v_new, v_body);

  v_stem := app.slugify(coalesce(v_body ->> 'name', ''));
  loop -- a slug collision (one in ~2 billion per stem) just draws another suffix
    insert into app.tournaments (account_id, name, slug, description, game_id, format, format_options,
                                 team_size, max_teams, entry_fee, prize_pool, starts_at,
                                 registration_closes, check_in_opens, rules)
    values (app.current_account_id(), v_body ->> 'name', v_stem || '-' || app.random_suffix(),
            coalesce(v_body ->> 'description', ''), (v_body ->> 'game_id')::uuid,
            v_new.format, v_new.format_options, (v_body ->> 'team_size')::int,
            (v_body ->> 'max_teams')::int, coalesce((v_body ->> 'entry_fee')::numeric, 0),
            coalesce((v_body ->> 'prize_pool')::numeric, 0), v_new.starts_at, v_new.registration_closes,
            v_new.check_in_opens, coalesce(v_body ->> 'rules', ''))
    on conflict (slug) do nothing
    returning * into v_t;
    exit when found;
  end loop;
  return (select d.doc from app.tournament_documents d where d.id = v_t.id);
end
$$;

create or replace function app.update_tournament(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := p_args -> 'body';
  v_old app.tournaments;
  v_new app.tournaments;
  v_cur app.tournaments;
  v_allowed text[];
  v_locked text[];
  v_held int;
begin
  perform app.check_input(p_args, '{"id": "uuid"}');
  perform app.check_input(v_body, app.tournament_input_types());

  v_old := app.lock_tournament((p_args ->> 'id')::uuid);
  v_new := jsonb_populate_record(v_old, v_body - 'format_options');
  -- The options: those sent, else the old ones while the format stays, else the new format's defaults.
  v_new.format_options := app.format_options(v_new.format,
    case when v_body ? 'format_options' then v_body -> 'format_options'
         when v_new.format = v_old.format then v_old.format_options end);

  -- Clients send back the object they read: only a starts_at that changes must be in the future.
  if v_new.starts_at is distinct from v_old.starts_at and v_new.starts_at <= now() then
    perform app.raise_invalid('starts_at', 'must be in the future');
  end if;
  perform app.check_tournament_dates(v_new, v_body);

  -- Fields lock by status; only fields whose value actually changes count.
  v_allowed := case v_old.status
    when 'registration' then null
    when 'ongoing' then array['name', 'description', 'rules', 'prize_pool']
    else array['name', 'description', 'rules'] end;
  if v_allowed is not null then
    v_locked := array(
      select e.key from jsonb_each(v_body) e
       where e.key <> 'status' and e.key <> all (v_allowed)
         and to_jsonb(v_new) -> e.key is distinct from to_jsonb(v_old) -> e.key
       order by e.key);
    if cardinality(v_locked) > 0 then
      perform app.raise_error('tournament_locked',
        format('%s cannot change while the tournament is %s.', array_to_string(v_locked, ', '), v_old.status));
    end if;
  end if;

  if v_old.status = 'registration' and v_new.max_teams < v_old.max_teams then
    select count(*) into v_held from app.registrations r where r.tournament_id = v_old.id;
    if v_new.max_teams < v_held then
      perform app.raise_error('tournament_full',
        format('max_teams cannot go below the %s registrations held.', v_held));
    end if;
  end if;

  if v_new.status is distinct from v_old.status then
    -- The bracket is made from the tournament as this request leaves it (format, options,
    -- check-in): those are written first, then the transition runs from the old status.
    update app.tournaments t
       set format = v_new.format, format_options = v_new.format_options, check_in_opens = v_new.check_in_opens
     where t.id = v_old.id;
    v_cur := v_new;
    v_cur.status := v_old.status;
    perform app.change_status(v_cur, v_new.status);
  elsif to_jsonb(v_new) = to_jsonb(v_old) then
    -- nothing changes: a no-op, updated_at included
    return (select d.doc from app.tournament_documents d where d.id = v_old.id);
  end if;

  update app.tournaments t
     set (name, description, game_id, status, format, format_options, team_size, max_teams, entry_fee,
          prize_pool, starts_at, registration_closes, check_in_opens, rules, updated_at)
       = (v_new.name, v_new.description, v_new.game_id, v_new.status, v_new.format, v_new.format_options,
          v_new.team_size, v_new.max_teams, v_new.entry_fee, v_new.prize_pool, v_new.starts_at,
          v_new.registration_closes, v_new.check_in_opens, v_new.rules, now())
   where t.id = v_old.id;
  return (select d.doc from app.tournament_documents d where d.id = v_old.id);
end
$$;

-- ============================================================================
-- functions: brackets, by format
-- ============================================================================
-- Single elimination's generator (the results migration's, seeds from the teams migration) keeps
-- its name under its format; app.generate_bracket now chooses by format.
alter function app.generate_bracket(uuid) rename to generate_single_elimination;

create function app.generate_bracket(p_tournament_id uuid) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_t app.tournaments;
begin
  if exists (select from app.matches m where m.tournament_id = p_tournament_id) then
    return; -- made already
  end if;
  select * into v_t from app.tournaments t where t.id = p_tournament_id;
  case v_t.format
    when 'single_elimination' then
      perform app.generate_single_elimination(p_tournament_id);
      update app.matches m set bracket = 'winners' where m.tournament_id = p_tournament_id;
      if (v_t.format_options ->> 'third_place_match')::boolean then
        perform app.add_third_place_match(v_t);
      end if;
    when 'round_robin' then
      perform app.generate_round_robin(v_t);
    when 'double_elimination' then
      perform app.generate_double_elimination(v_t);
    when 'swiss' then
      perform app.generate_swiss(v_t);
  end case;
end
$$;
comment on function app.generate_bracket(uuid) is
  'Makes a tournament''s matches for its format from its participants; does nothing if they exist.';

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
   where m.tournament_id = p_t.id and m.bracket = 'winners' and m.next_match_id is null;
  if v_final.round < 2 or (select count(*) from app.participants(p_t)) < 4 then
    return;
  end if;
  insert into app.matches (id, tournament_id, account_id, bracket, round, position, status)
  values (v_id, p_t.id, p_t.account_id, 'third_place', v_final.round, 1, 'pending');
  update app.matches m set loser_next_match_id = v_id, loser_next_slot = (2 - m.position % 2)::smallint
   where m.tournament_id = p_t.id and m.next_match_id = v_final.id;
end
$$;

-- Places a decided match's winner and loser in the matches they go to, and sets those
-- matches ready or pending. Works for corrections too: the slots are overwritten.
create function app.advance(p_m app.matches) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_loser uuid := case when p_m.winner_id = p_m.team1_id then p_m.team2_id else p_m.team1_id end;
begin
  if p_m.next_match_id is not null then
    update app.matches m
       set team1_id = case when coalesce(p_m.next_slot, 2 - p_m.position % 2) = 1 then p_m.winner_id else m.team1_id end,
           team2_id = case when coalesce(p_m.next_slot, 2 - p_m.position % 2) = 2 then p_m.winner_id else m.team2_id end
     where m.id = p_m.next_match_id;
  end if;
  if p_m.loser_next_match_id is not null then
    update app.matches m
       set team1_id = case when p_m.loser_next_slot = 1 then v_loser else m.team1_id end,
           team2_id = case when p_m.loser_next_slot = 2 then v_loser else m.team2_id end
     where m.id = p_m.loser_next_match_id;
  end if;
  update app.matches m
     set status = case when m.team1_id is not null and m.team2_id is not null then 'ready' else 'pending' end
   where m.id in (p_m.next_match_id, p_m.loser_next_match_id) and m.status in ('pending', 'ready');
end
$$;

-- A tournament is over when no match waits for a result.
create or replace function app.final_decided(p_tournament_id uuid) returns boolean
language plpgsql stable
set search_path = ''
as $$
declare
  v_t app.tournaments;
begin
  select * into v_t from app.tournaments t where t.id = p_tournament_id;
  if not exists (select from app.matches m where m.tournament_id = p_tournament_id)
     or exists (select from app.matches m
                 where m.tournament_id = p_tournament_id and m.status in ('pending', 'ready')) then
    return false;
  end if;
  -- (Each format's own function is called from a statement of its own: a statement is parsed
  -- when it first runs, so a format's functions are needed only once a tournament uses it.)
  if v_t.format = 'swiss' then
    return app.swiss_complete(v_t);
  end if;
  return true;
end
$$;

-- ============================================================================
-- functions: reporting
-- ============================================================================
-- The format's own rule for whether a decided match may still be corrected (null: it may; else
-- the reason, answered as 409 match_locked). Beyond the common rule (a match it feeds is
-- completed), only swiss has one: a round's results are final once the next round has one.
create function app.correction_lock(p_t app.tournaments, p_m app.matches) returns text
language plpgsql stable
set search_path = ''
as $$
begin
  if p_m.status = 'completed' and p_t.format = 'swiss' then
    return app.swiss_correction_lock(p_t, p_m);
  end if;
  return null;
end
$$;

-- What a format does once a result is in (after app.advance): double elimination settles its
-- grand final, swiss draws its next round.
create function app.after_report(p_t app.tournaments, p_m app.matches) returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  case p_t.format
    when 'double_elimination' then perform app.double_elimination_after_report(p_t, p_m);
    when 'swiss' then perform app.swiss_after_report(p_t, p_m);
    else null;
  end case;
end
$$;

-- As in the teams migration, with advancement by app.advance: the winner and, where the format
-- sends it on, the loser; a correction is locked once either match it feeds is completed.
create or replace function app.report_match(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_t app.tournaments;
  v_m app.matches;
  v_s1 int;
  v_s2 int;
  v_forfeit text := v_body ->> 'forfeit';
  v_result boolean := v_body ?| array['team1_score', 'team2_score', 'forfeit'];
  v_winner uuid;
  v_lock text;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "match_id": "uuid"}');
  perform app.check_input(v_body, '{"team1_score": "int", "team2_score": "int", "scheduled_at": "timestamptz"}');
  v_s1 := (v_body ->> 'team1_score')::int;
  v_s2 := (v_body ->> 'team2_score')::int;
  if v_forfeit is not null and v_body ?| array['team1_score', 'team2_score'] then
    perform app.raise_invalid('forfeit', 'a forfeit has no scores: send either both scores or forfeit');
  end if;
  if v_body ? 'forfeit' and v_forfeit is distinct from 'team1' and v_forfeit is distinct from 'team2' then
    perform app.raise_invalid('forfeit', 'must be "team1" or "team2"');
  end if;
  if v_result and v_forfeit is null and (v_s1 is null or v_s2 is null or v_s1 < 0 or v_s2 < 0) then
    perform app.raise_invalid(case when v_s1 is null or v_s1 < 0 then 'team1_score' else 'team2_score' end,
      'must be an integer of at least 0');
  end if;
  if not v_result and not v_body ? 'scheduled_at' then
    perform app.raise_invalid('body', 'send a result (both scores, or forfeit) and/or scheduled_at');
  end if;
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select * into v_m from app.matches m
   where m.id = (p_args ->> 'match_id')::uuid and m.tournament_id = v_t.id;
  if not found then
    perform app.raise_error('not_found', 'Match not found.');
  end if;
  if v_forfeit is null and v_result and v_s1 = v_s2 then
    perform app.raise_invalid('team2_score', 'scores cannot be equal: a match needs a winner');
  end if;
  if v_t.status <> 'ongoing' then
    perform app.raise_error('match_locked',
      format('Matches cannot be changed while the tournament is %s.', v_t.status));
  end if;

  if v_result then
    if v_m.status in ('pending', 'bye') then
      perform app.raise_error('match_not_ready',
        case v_m.status when 'bye' then 'This match is a bye; it has no result to report.'
                        else 'This match is still waiting for its teams.' end);
    end if;
    if exists (select from app.matches n where n.id in (v_m.next_match_id, v_m.loser_next_match_id)
                                         and n.status = 'completed') then
      perform app.raise_error('match_locked',
        'A match this one feeds is completed; its result can no longer change.');
    end if;
    v_lock := app.correction_lock(v_t, v_m);
    if v_lock is not null then
      perform app.raise_error('match_locked', v_lock);
    end if;

    v_winner := case when v_forfeit = 'team1' then v_m.team2_id
                     when v_forfeit = 'team2' then v_m.team1_id
                     when v_s1 > v_s2 then v_m.team1_id else v_m.team2_id end;
    update app.matches m
       set team1_score = v_s1, team2_score = v_s2, forfeit = v_forfeit, winner_id = v_winner,
           status = 'completed',
           completed_at = case when m.status = 'completed' and m.winner_id = v_winner
                               then m.completed_at else now() end
     where m.id = v_m.id
    returning * into v_m;
    perform app.advance(v_m);
    perform app.after_report(v_t, v_m);
  end if;

  if v_body ? 'scheduled_at' then
    update app.matches m set scheduled_at = (v_body ->> 'scheduled_at')::timestamptz where m.id = v_m.id;
  end if;
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$$;

-- ============================================================================
-- functions: results and standings, by format
-- ============================================================================
-- Single elimination: a loser in a round with 2^k teams left takes 2^(k-1) + 1; with a
-- third-place match its two teams take 3 and 4 once it is decided (and the semi-final losers
-- are unplaced until then).
create function app.single_elimination_standings(p_t app.tournaments) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_rounds int;
  v_third app.matches;
begin
  select max(m.round) into v_rounds from app.matches m where m.tournament_id = p_t.id and m.bracket = 'winners';
  select * into v_third from app.matches m where m.tournament_id = p_t.id and m.bracket = 'third_place';
  return (
    with placed as (
      select case when m.winner_id = m.team1_id then m.team2_id else m.team1_id end as team_id,
             (1 << (v_rounds - m.round)) + 1 as position
        from app.matches m
       where m.tournament_id = p_t.id and m.bracket = 'winners' and m.status = 'completed'
         and (v_third.id is null or m.round <> v_rounds - 1)
      union all
      select m.winner_id, 1 from app.matches m
       where m.tournament_id = p_t.id and m.bracket = 'winners' and m.next_match_id is null and m.status = 'completed'
      union all
      select v_third.winner_id, 3 where v_third.status = 'completed'
      union all
      select case when v_third.winner_id = v_third.team1_id then v_third.team2_id else v_third.team1_id end, 4
       where v_third.status = 'completed'
    )
    select coalesce(json_agg(json_build_object('position', p.position, 'team_id', p.team_id,
                                               'team_name', tm.name, 'team_tag', tm.tag)
                             order by p.position, tm.name, tm.id), '[]')
      from placed p join app.teams tm on tm.id = p.team_id);
end
$$;

create or replace function app.tournament_results(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_t app.tournaments;
  v_standings json := '[]';
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  select * into v_t from app.tournaments t where t.id = (p_args ->> 'tournament_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  -- One statement per format (see app.final_decided).
  if v_t.status <> 'registration' then
    case v_t.format
      when 'single_elimination' then v_standings := app.single_elimination_standings(v_t);
      when 'round_robin' then v_standings := app.round_robin_standings(v_t);
      when 'double_elimination' then v_standings := app.double_elimination_standings(v_t);
      when 'swiss' then v_standings := app.swiss_standings(v_t);
    end case;
  end if;
  return json_build_object(
    'tournament', json_build_object('id', v_t.id, 'format', v_t.format, 'status', v_t.status),
    'matches', (select coalesce(json_agg(d.doc order by
                          array_position(array['winners', 'losers', 'grand_final', 'third_place'], d.bracket),
                          d.group_no, d.round, d.position), '[]')
                  from app.match_documents d where d.tournament_id = v_t.id),
    'standings', v_standings);
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.formats() to tournament_api_owner;
grant execute on function app.match_seeds() to tournament_api_owner;
grant execute on function app.format_options(text, jsonb) to tournament_api_owner;
grant execute on function app.is_int(jsonb, int, int) to tournament_api_owner;
grant execute on function app.generate_bracket(uuid) to tournament_api_owner;
grant execute on function app.add_third_place_match(app.tournaments) to tournament_api_owner;
grant execute on function app.advance(app.matches) to tournament_api_owner;
grant execute on function app.correction_lock(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.after_report(app.tournaments, app.matches) to tournament_api_owner;
grant execute on function app.single_elimination_standings(app.tournaments) to tournament_api_owner;
