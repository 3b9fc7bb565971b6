-- Tournament changes: create, update (PATCH, including the status transitions) and delete,
-- with every field and status rule of the contract (section 3). Shapes and types are validated
-- by the function (zod) first and again, before any cast, by app.check_input; the rules that
-- need the clock or the stored row live here. The table, its document and reading are in
-- 05_tournaments.sql; starting makes the matches (app.generate_bracket, 09_formats.sql).

-- ============================================================================
-- functions
-- ============================================================================
-- The types of a tournament's fields as the caller sends them (for app.check_input).
create function app.tournament_input_types() returns jsonb
language plpgsql immutable
set search_path = ''
as $$
begin
  return '{"game_id": "uuid", "team_size": "int", "substitutes_max": "int", "max_teams": "int", "entry_fee": "numeric(9,2)",
           "prize_pool": "numeric(11,2)", "starts_at": "timestamptz", "registration_closes": "timestamptz",
           "check_in_opens": "timestamptz", "status": "app.tournament_status",
           "visibility": "app.tournament_visibility", "approval": "boolean", "waitlist": "boolean",
           "report_confirm_minutes": "int"}';
end
$$;

-- The date rules of a tournament's new state; p_body names the field to blame.
create function app.check_tournament_dates(p_new app.tournaments, p_body jsonb) returns void
language plpgsql stable
set search_path = ''
as $$
begin
  if p_new.registration_closes > p_new.starts_at then
    perform app.raise_invalid(case when p_body ? 'registration_closes' then 'registration_closes' else 'starts_at' end,
      format('registration_closes (%s) must not be after starts_at (%s)',
             app.iso(p_new.registration_closes), app.iso(p_new.starts_at)));
  end if;
  if p_new.check_in_opens > p_new.starts_at then
    perform app.raise_invalid(case when p_body ? 'check_in_opens' then 'check_in_opens' else 'starts_at' end,
      format('check_in_opens (%s) must not be after starts_at (%s)',
             app.iso(p_new.check_in_opens), app.iso(p_new.starts_at)));
  end if;
end
$$;

-- The tournament with the body's `stages` (checked, defaults filled in), and format and
-- format_options as stage 1's (the door refuses `stages` together with either: a rule of the
-- body's shape, the function's CreateTournament and UpdateTournament).
create function app.with_stages(p_t app.tournaments, p_body jsonb) returns app.tournaments
language plpgsql immutable
set search_path = ''
as $$
begin
  p_t.stages := app.stage_definitions(p_body -> 'stages');
  p_t.format := p_t.stages #>> '{0,format}';
  p_t.format_options := p_t.stages #> '{0,format_options}';
  return p_t;
end
$$;

-- POST: the dates checked against the clock, the format's options (or the stages) completed
-- with their defaults, and a slug from the name with a random suffix.
create function app.create_tournament(p_args jsonb) returns json
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
  if v_body ? 'stages' then
    v_new := app.with_stages(v_new, v_body);
  else
    v_new.format := coalesce(v_body ->> 'format', 'single_elimination');
    v_new.format_options := app.format_options(v_new.format, v_body -> 'format_options');
  end if;
  if v_new.starts_at is null or v_new.starts_at <= now() then
    perform app.raise_invalid('starts_at', 'must be in the future');
  end if;
  perform app.check_tournament_dates(v_new, v_body);

  v_stem := app.slugify(coalesce(v_body ->> 'name', ''));
  loop -- a slug collision (one in ~2 billion per stem) just draws another suffix
    insert into app.tournaments (account_id, name, slug, description, game_id, format, format_options, stages,
                                 team_size, max_teams, entry_fee, prize_pool, starts_at,
                                 registration_closes, check_in_opens, rules, visibility, substitutes_max, lineups,
                                 approval, waitlist, participant_reporting, report_confirm_minutes)
    values (app.current_account_id(), v_body ->> 'name', v_stem || '-' || app.random_suffix(),
            coalesce(v_body ->> 'description', ''), (v_body ->> 'game_id')::uuid,
            v_new.format, v_new.format_options, v_new.stages, (v_body ->> 'team_size')::int,
            (v_body ->> 'max_teams')::int, coalesce((v_body ->> 'entry_fee')::numeric, 0),
            coalesce((v_body ->> 'prize_pool')::numeric, 0), v_new.starts_at, v_new.registration_closes,
            v_new.check_in_opens, coalesce(v_body ->> 'rules', ''), coalesce(v_body ->> 'visibility', 'private'),
            coalesce((v_body ->> 'substitutes_max')::int, 0), coalesce(v_body ->> 'lineups', 'off'),
            coalesce((v_body ->> 'approval')::boolean, false), coalesce((v_body ->> 'waitlist')::boolean, false),
            coalesce(v_body ->> 'participant_reporting', 'off'), coalesce((v_body ->> 'report_confirm_minutes')::int, 15))
    on conflict (slug) do nothing
    returning * into v_t;
    exit when found;
  end loop;
  return (select d.doc from app.tournament_documents d where d.id = v_t.id);
end
$$;

create function app.update_tournament(p_args jsonb) returns json
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
  v_new := jsonb_populate_record(v_old, v_body - 'format_options' - 'stages');
  if v_body ? 'stages' then
    v_new := app.with_stages(v_new, v_body);
    if v_new.stages = app.stage_list(v_old) then
      v_new.stages := v_old.stages; -- the stages as GET shows them, sent back: no change
    end if;
  else
    -- The options: those sent, else the old ones while the format stays, else the new format's
    -- defaults. format and format_options are stage 1's: with stages, stage 1 changes.
    v_new.format_options := app.format_options(v_new.format,
      case when v_body ? 'format_options' then v_body -> 'format_options'
           when v_new.format = v_old.format then v_old.format_options end);
    -- (Once ongoing the stages stay as they are: a change of format is 409 tournament_locked below.)
    if v_old.stages is not null and v_old.status = 'registration'
       and (v_new.format, v_new.format_options) is distinct from (v_old.format, v_old.format_options) then
      if jsonb_array_length(v_old.stages) > 1
         and (v_new.format = 'round_robin') <> (v_old.format = 'round_robin') then
        perform app.raise_invalid('format', format(
          'stage 1 sends teams on with an advance made for %s (%s), which %s cannot take: send stages to change both',
          v_old.format, v_old.stages #>> '{0,advance}', v_new.format));
      end if;
      v_new.stages := app.stage_definitions(jsonb_set(jsonb_set(v_old.stages, '{0,format}', to_jsonb(v_new.format)),
                                                      '{0,format_options}', v_new.format_options));
    end if;
  end if;

  -- Clients send back the object they read: only a starts_at that changes must be in the future.
  if v_new.starts_at is distinct from v_old.starts_at and v_new.starts_at <= now() then
    perform app.raise_invalid('starts_at', 'must be in the future');
  end if;
  perform app.check_tournament_dates(v_new, v_body);

  -- Fields lock by status; only fields whose value actually changes count.
  v_allowed := case v_old.status
    when 'registration' then null
    when 'ongoing' then array['name', 'description', 'rules', 'prize_pool', 'visibility', 'participant_reporting',
                              'report_confirm_minutes']
    else array['name', 'description', 'rules', 'visibility'] end;
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
    select count(*) into v_held from app.registrations r where r.tournament_id = v_old.id and r.state = 'accepted';
    if v_new.max_teams < v_held then
      perform app.raise_error('tournament_full',
        format('max_teams cannot go below the %s accepted registrations held.', v_held));
    end if;
  end if;

  if v_new.status is distinct from v_old.status then
    -- The bracket is made from the tournament as this request leaves it (format, options,
    -- check-in): those are written first, then the transition runs from the old status.
    update app.tournaments t
       set format = v_new.format, format_options = v_new.format_options, stages = v_new.stages,
           check_in_opens = v_new.check_in_opens
     where t.id = v_old.id;
    v_cur := v_new;
    v_cur.status := v_old.status;
    perform app.change_status(v_cur, v_new.status);
  elsif to_jsonb(v_new) = to_jsonb(v_old) then
    -- nothing changes: a no-op, updated_at included
    return (select d.doc from app.tournament_documents d where d.id = v_old.id);
  end if;

  update app.tournaments t
     set (name, description, game_id, status, format, format_options, stages, team_size, max_teams, entry_fee,
          prize_pool, starts_at, registration_closes, check_in_opens, rules, visibility, substitutes_max, lineups,
          approval, waitlist, participant_reporting, report_confirm_minutes, updated_at)
       = (v_new.name, v_new.description, v_new.game_id, v_new.status, v_new.format, v_new.format_options,
          v_new.stages, v_new.team_size, v_new.max_teams, v_new.entry_fee, v_new.prize_pool, v_new.starts_at,
          v_new.registration_closes, v_new.check_in_opens, v_new.rules, v_new.visibility, v_new.substitutes_max,
          v_new.lineups, v_new.approval, v_new.waitlist, v_new.participant_reporting, v_new.report_confirm_minutes, now())
   where t.id = v_old.id;
  if v_new.participant_reporting = 'off' and v_old.participant_reporting <> 'off' then
    -- Reporting switched off: the open reports are void (contract section 18).
    update app.matches m
       set report = jsonb_set(m.report, '{state}', '"void"'), report_state = 'void', report_confirm_by = null
     where m.tournament_id = v_old.id and m.report_state in ('awaiting_confirmation', 'disputed');
  end if;
  if v_new.max_teams > v_old.max_teams and v_new.status = 'registration' then
    perform app.fill_slots(v_new); -- the slots raised take the oldest waitlisted registrations
  end if;
  return (select d.doc from app.tournament_documents d where d.id = v_old.id);
end
$$;
comment on function app.update_tournament(jsonb) is
  'PATCH: field rules by status, max_teams against registrations held, then the status transition.';

-- The status machine: registration -> ongoing (at least 2 teams taking part: every
-- registration, or only the checked-in ones with check-in, and enough for every stage's
-- advance; with lineups required, each a full lineup; freezes the teams' names and tags,
-- starts stage 1 and makes its matches) -> completed (the last stage decided). The
-- caller holds the tournament's row lock.
create function app.change_status(p_t app.tournaments, p_status text) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_taking_part int;
begin
  if p_t.status = 'registration' and p_status = 'ongoing' then
    select count(*) into v_taking_part from app.participants(p_t);
    if v_taking_part < 2 then
      perform app.raise_error('invalid_status_transition',
        case when p_t.check_in_opens is null
             then format('A tournament needs at least 2 registrations to start; it has %s.', v_taking_part)
             else format('A tournament with check-in needs at least 2 checked-in teams to start; it has %s.', v_taking_part) end);
    end if;
    perform app.check_stage_chain(p_t, v_taking_part);
    perform app.check_lineups(p_t);
    perform app.start_first_stage(p_t);
    perform app.freeze_team_names(p_t);
  elsif p_t.status = 'ongoing' and p_status = 'completed' then
    if p_t.stage < jsonb_array_length(app.stage_list(p_t)) then
      perform app.raise_error('invalid_status_transition',
        format('A tournament can be completed only once its last stage is; it is playing stage %s of %s.',
               p_t.stage, jsonb_array_length(app.stage_list(p_t))));
    end if;
    if not app.stage_decided(app.stage_of(p_t, p_t.stage)) then
      perform app.raise_error('invalid_status_transition',
        'A tournament can be completed only once its final is decided.');
    end if;
  else
    perform app.raise_error('invalid_status_transition',
      format('A tournament cannot go from %s to %s.', p_t.status, p_status));
  end if;
end
$$;

create function app.delete_tournament(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
begin
  perform app.check_input(p_args, '{"id": "uuid"}');
  delete from app.tournaments where id = (p_args ->> 'id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  return json_build_object('message', 'Tournament deleted');
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.tournament_input_types() to tournament_api_owner;
grant execute on function app.check_tournament_dates(app.tournaments, jsonb) to tournament_api_owner;
grant execute on function app.with_stages(app.tournaments, jsonb) to tournament_api_owner;
grant execute on function app.create_tournament(jsonb) to tournament_api_owner;
grant execute on function app.update_tournament(jsonb) to tournament_api_owner;
grant execute on function app.change_status(app.tournaments, text) to tournament_api_owner;
grant execute on function app.delete_tournament(jsonb) to tournament_api_owner;
