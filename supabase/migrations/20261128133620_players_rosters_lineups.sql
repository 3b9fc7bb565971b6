-- Players, rosters and lineups (issue 34, contract section 16).
--
-- - app.players (private to their account), app.team_members (a team's roster: role, at most
--   one captain) and app.lineup_entries (a registration's lineup, copied from the roster at
--   registration, replaced by PUT .../lineup while the tournament is in registration). One
--   player, one team per tournament: the unique index lineup_entries_player_key (coaches exempt).
--   Each registration keeps its lineup as the API shows it (registrations.lineup).
-- - Tournaments gain substitutes_max and lineups ('off' | 'required': a full lineup to check in
--   and to start, else 409 lineup_incomplete).
-- - Row-level security: a roster member's team and player, and a lineup entry's registration
--   and player, are the row's account's (the foreign keys alone would take another account's).
-- - Games may name who played (lineups), checked against each side's lineup.
-- - A team's name and tag are frozen in a tournament from its start (registrations.team_name,
--   team_tag; standings read app.tournament_teams); a rename raises the versions of tournaments
--   still in registration only (app.team_changed), a new logo of all.
-- - Upgrade, at the end: tournaments already started keep their teams' names as they are now,
--   and the games already reported show lineups: null. Neither is a change of a tournament: the
--   tables' triggers (versions, webhooks) are off for these two statements.

SET local check_function_bodies = off;

DROP VIEW "app"."registration_documents";

DROP VIEW "app"."tournament_documents";

DROP FUNCTION "app"."team_changed"(uuid);

CREATE TABLE "app"."lineup_entries" (
  "registration_id" uuid     NOT NULL,
  "tournament_id"   uuid     NOT NULL,
  "account_id"      uuid     NOT NULL,
  "player_id"       uuid     NOT NULL,
  "role"            text     NOT NULL,
  "captain"         boolean  NOT NULL DEFAULT false,
  "position"        smallint NOT NULL,
  "handle"          text     NOT NULL,
  "country"         text,
  CONSTRAINT "lineup_entries_pkey" PRIMARY KEY (registration_id, player_id),
  CONSTRAINT "lineup_entries_position_check" CHECK (("position" >= 1)),
  CONSTRAINT "lineup_entries_role_check" CHECK ((role = ANY (ARRAY['player'::text, 'substitute'::text, 'coach'::text])))
);

ALTER TABLE "app"."lineup_entries"
  ENABLE ROW LEVEL SECURITY;

CREATE TABLE "app"."players" (
  "id"            uuid                        NOT NULL DEFAULT gen_random_uuid(),
  "account_id"    uuid                        NOT NULL,
  "handle"        text                        NOT NULL,
  "name"          text,
  "country"       text,
  "external_id"   text,
  "game_accounts" jsonb                       NOT NULL DEFAULT '{}'::jsonb,
  "created_at"    timestamp(3) with time zone NOT NULL DEFAULT now(),
  "updated_at"    timestamp(3) with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "players_country_check" CHECK ((country ~ '^[A-Z]{2}$'::text)),
  CONSTRAINT "players_external_id_check" CHECK (((length(external_id) >= 1) AND (length(external_id) <= 200))),
  CONSTRAINT "players_external_id_key" UNIQUE (account_id, external_id),
  CONSTRAINT "players_game_accounts_check" CHECK ((jsonb_typeof(game_accounts) = 'object'::text)),
  CONSTRAINT "players_handle_check" CHECK (length(handle) between 1 and 50 and handle = btrim(handle)),
  CONSTRAINT "players_name_check" CHECK ((length(name) <= 100)),
  CONSTRAINT "players_pkey" PRIMARY KEY (id)
);

ALTER TABLE "app"."players"
  ENABLE ROW LEVEL SECURITY;

CREATE TABLE "app"."team_members" (
  "team_id"    uuid    NOT NULL,
  "player_id"  uuid    NOT NULL,
  "account_id" uuid    NOT NULL,
  "role"       text    NOT NULL,
  "captain"    boolean NOT NULL DEFAULT false,
  "seq"        bigint  GENERATED ALWAYS AS IDENTITY NOT NULL,
  CONSTRAINT "team_members_pkey" PRIMARY KEY (team_id, player_id),
  CONSTRAINT "team_members_role_check" CHECK ((role = ANY (ARRAY['player'::text, 'substitute'::text, 'coach'::text])))
);

ALTER TABLE "app"."team_members"
  ENABLE ROW LEVEL SECURITY;

ALTER TABLE "app"."registrations"
  ADD COLUMN "team_name" text;

ALTER TABLE "app"."registrations"
  ADD COLUMN "team_tag" text;

ALTER TABLE "app"."registrations"
  ADD COLUMN "lineup_rev" integer NOT NULL DEFAULT 0;

ALTER TABLE "app"."registrations"
  ADD COLUMN "lineup" jsonb NOT NULL DEFAULT '[]'::jsonb;

ALTER TABLE "app"."tournaments"
  ADD COLUMN "substitutes_max" integer NOT NULL DEFAULT 0;

ALTER TABLE "app"."tournaments"
  ADD COLUMN "lineups" text NOT NULL DEFAULT 'off'::text;

CREATE OR REPLACE FUNCTION app.change_game (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_body jsonb := p_args -> 'body';
  v_number int;
  v_t app.tournaments;
  v_m app.matches;
  v_games jsonb;
  v_count int;
  v_need int;
  v_w1 int := 0;
  v_w2 int := 0;
  v_winner uuid;
  v_game jsonb;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "match_id": "uuid", "number": "int"}');
  v_number := (p_args ->> 'number')::int;
  if v_body is not null then
    if not app.is_int(v_body -> 'team1_score', 0, 1000000) then
      perform app.raise_invalid('team1_score', 'must be an integer from 0 to 1000000');
    end if;
    if not app.is_int(v_body -> 'team2_score', 0, 1000000) then
      perform app.raise_invalid('team2_score', 'must be an integer from 0 to 1000000');
    end if;
    if jsonb_typeof(v_body -> 'map') not in ('string', 'null') or length(v_body ->> 'map') > 100 then
      perform app.raise_invalid('map', 'must be a string of at most 100 characters, or null');
    end if;
  end if;
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select * into v_m from app.matches m
   where m.id = (p_args ->> 'match_id')::uuid and m.tournament_id = v_t.id;
  if not found then
    perform app.raise_error('not_found', 'Match not found.');
  end if;
  v_count := jsonb_array_length(v_m.games);
  if v_body is null then
    if v_number not between 1 and v_count then
      perform app.raise_error('not_found', format('Game %s of this match has not been reported.', v_number));
    end if;
  elsif v_number not between 1 and v_m.best_of then
    perform app.raise_invalid('number', format('must be a game of this best of %s: 1 to %s', v_m.best_of, v_m.best_of));
  elsif v_number > v_count + 1 then
    perform app.raise_invalid('number', format('games are reported in order: the next is game %s', v_count + 1));
  end if;
  perform app.check_reportable(v_t, v_m);
  if jsonb_typeof(v_body -> 'lineups') = 'object' then
    perform app.check_game_lineups(v_t, v_m, v_body -> 'lineups');
  end if;
  if v_m.forfeit is not null then
    perform app.raise_error('series_decided',
      'This match was decided by forfeit; its games can no longer change (a result sent to the match corrects it).');
  end if;
  if v_body is null and v_number < v_count then
    perform app.raise_error('match_locked',
      format('Only the last game (%s) can be deleted; delete the games after game %s first.', v_count, v_number));
  end if;
  if v_body is not null and v_number > v_count and v_m.status = 'completed' then
    perform app.raise_error('series_decided',
      format('The series is decided (%s-%s); there is no game %s.', coalesce(v_m.team1_score, 0),
             coalesce(v_m.team2_score, 0), v_number));
  end if;

  -- The games after the change, counted game by game: the decision falls on the last one.
  if v_body is null then
    v_games := v_m.games - (v_number - 1);
  else
    v_game := jsonb_build_object('number', v_number, 'team1_score', (v_body ->> 'team1_score')::int,
      'team2_score', (v_body ->> 'team2_score')::int,
      'winner_id', case when (v_body ->> 'team1_score')::int > (v_body ->> 'team2_score')::int
                        then v_m.team1_id else v_m.team2_id end,
      'map', coalesce(v_body -> 'map', 'null'), 'reported_at', app.iso(now()),
      -- (who played, each id as the API writes UUIDs: lower case)
      'lineups', coalesce((select jsonb_object_agg(l.side, (select coalesce(jsonb_agg(to_jsonb((x #>> '{}')::uuid::text)), '[]')
                                                              from jsonb_array_elements(l.ids) x))
                             from jsonb_each(case when jsonb_typeof(v_body -> 'lineups') = 'object' then v_body -> 'lineups' end)
                                  as l (side, ids)), 'null'));
    v_games := case when v_number > v_count then v_m.games || jsonb_build_array(v_game)
                    else jsonb_set(v_m.games, array[(v_number - 1)::text], v_game) end;
  end if;
  v_need := (v_m.best_of + 1) / 2;
  for v_game in select g from jsonb_array_elements(v_games) g loop
    if v_winner is not null then
      perform app.raise_error('series_decided',
        format('This correction decides the series at game %s; delete the games after it first.', v_w1 + v_w2));
    end if;
    if (v_game ->> 'winner_id')::uuid = v_m.team1_id then v_w1 := v_w1 + 1; else v_w2 := v_w2 + 1; end if;
    if greatest(v_w1, v_w2) = v_need then
      v_winner := case when v_w1 = v_need then v_m.team1_id else v_m.team2_id end;
    end if;
  end loop;

  perform app.webhook_record(json_build_array(json_build_object('account_id', v_m.account_id,
    'tournament_id', v_t.id, 'type', 'match.game_reported', 'kind', 'match.game', 'subject_id', v_m.id)));
  v_m := app.decide_match(app.stage_of(v_t, v_m.stage), v_m, v_winner,
    case when v_games <> '[]' then v_w1 end, case when v_games <> '[]' then v_w2 end, null, v_games, false);
  return (select d.doc from app.match_documents d where d.id = v_m.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.change_status (
  p_t      app.tournaments,
  p_status text
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.check_game_lineups (
  p_t       app.tournaments,
  p_m       app.matches,
  p_lineups jsonb
)
  RETURNS void
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_side text;
  v_team uuid;
  v_ids jsonb;
  v_known int;
begin
  foreach v_side in array array['team1', 'team2'] loop
    v_team := case v_side when 'team1' then p_m.team1_id else p_m.team2_id end;
    v_ids := coalesce(p_lineups -> v_side, '[]');
    if jsonb_array_length(v_ids) <> p_t.team_size then
      perform app.raise_invalid('lineups.' || v_side,
        format('must name exactly %s players (the team_size), not %s', p_t.team_size, jsonb_array_length(v_ids)));
    end if;
    select count(distinct e.player_id) into v_known
      from app.lineup_entries e join app.registrations r on r.id = e.registration_id
     where r.tournament_id = p_t.id and r.team_id = v_team and e.role in ('player', 'substitute')
       and e.player_id in (select (x #>> '{}')::uuid from jsonb_array_elements(v_ids) x);
    if v_known <> jsonb_array_length(v_ids) then
      perform app.raise_invalid('lineups.' || v_side,
        'must name players of that side''s lineup (players or substitutes), each once');
    end if;
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION app.check_lineups (
  p_t app.tournaments
)
  RETURNS void
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_short jsonb;
begin
  if p_t.lineups <> 'required' then
    return;
  end if;
  select jsonb_agg(jsonb_build_object('registration_id', x.id, 'team_id', x.team_id, 'team_name', tm.name,
                                      'players', x.players) order by x.seq)
    into v_short
    from (select r.id, r.team_id, r.seq,
                 (select count(*) from app.lineup_entries e where e.registration_id = r.id and e.role = 'player')::int as players
            from app.participants(p_t) r) x
    join app.teams tm on tm.id = x.team_id
   where x.players < p_t.team_size;
  if v_short is not null then
    perform app.raise_error('lineup_incomplete',
      format('%s team(s) hold fewer than the %s players the tournament needs in their lineup.',
             jsonb_array_length(v_short), p_t.team_size), v_short);
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION app.copy_roster (
  p_t app.tournaments,
  p_r app.registrations
)
  RETURNS integer
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_written int;
  v_taken jsonb;
begin
  insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle, country)
  select p_r.id, p_t.id, p_t.account_id, k.player_id, k.role, k.captain, k.place, p.handle, p.country
    from app.roster_kept(p_t, p_r.team_id) k
    join app.players p on p.id = k.player_id
     for key share of p
  on conflict (tournament_id, player_id) where role <> 'coach' do nothing;
  get diagnostics v_written = row_count;
  if v_written < jsonb_array_length(p_r.lineup) then
    select jsonb_agg(jsonb_build_object('field', 'team_id', 'player_id', k.player_id, 'registration_id', e.registration_id,
                                        'message', format('player %s is in the lineup of registration %s', k.player_id, e.registration_id)))
      into v_taken
      from app.roster_kept(p_t, p_r.team_id) k
      join app.lineup_entries e on e.tournament_id = p_t.id and e.player_id = k.player_id and e.role <> 'coach'
                               and e.registration_id <> p_r.id
     where k.role <> 'coach';
    if v_taken is not null then
      perform app.raise_error('player_already_registered',
        'A player of this team''s roster is already in another team''s lineup in this tournament.', v_taken);
    end if;
  end if;
  return v_written;
end
$function$;

CREATE OR REPLACE FUNCTION app.create_player (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_id uuid;
begin
  begin
    insert into app.players (account_id, handle, name, country, external_id, game_accounts)
    values (app.current_account_id(), btrim(v_body ->> 'handle'), v_body ->> 'name', v_body ->> 'country',
            v_body ->> 'external_id', coalesce(v_body -> 'game_accounts', '{}'))
    returning id into v_id;
  exception when unique_violation then
    perform app.raise_error('external_id_taken',
      format('Another player of your account has external_id %s.', v_body ->> 'external_id'));
  end;
  return (select d.doc from app.player_documents d where d.id = v_id);
end
$function$;

CREATE OR REPLACE FUNCTION app.create_registration (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_t app.tournaments;
  v_team app.teams;
  v_reg app.registrations;
  v_held int;
  v_lineup jsonb := '[]';
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(p_args -> 'body', '{"team_id": "uuid"}');
  v_t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  v_team := app.share_team((p_args #>> '{body,team_id}')::uuid);
  if v_team.id is null then
    perform app.raise_error('not_found', 'Team not found.');
  end if;
  if v_t.status <> 'registration' or now() > v_t.registration_closes then
    perform app.raise_error('registration_closed', 'Registration for this tournament is closed.');
  end if;
  if exists (select from app.registrations r where r.tournament_id = v_t.id and r.team_id = v_team.id) then
    perform app.raise_error('already_registered', 'This team is already registered.');
  end if;
  select count(*) into v_held from app.registrations r where r.tournament_id = v_t.id;
  if v_held >= v_t.max_teams then
    perform app.raise_error('tournament_full',
      format('The tournament is full (%s of %s teams).', v_held, v_t.max_teams));
  end if;

  -- A team of the tournament's account brings its roster: the lineup is written with the row,
  -- then its entries.
  if v_team.account_id = v_t.account_id then
    v_lineup := app.roster_lineup(v_t, v_team.id);
  end if;
  insert into app.registrations (tournament_id, account_id, team_id, payment_status, lineup)
  values (v_t.id, v_t.account_id, v_team.id,
          case when v_t.entry_fee = 0 then 'complete' else 'pending' end, v_lineup)
  returning * into v_reg;
  if jsonb_array_length(v_lineup) > 0 and app.copy_roster(v_t, v_reg) < jsonb_array_length(v_lineup) then
    -- A member's player deleted in between: the lineup as written.
    update app.registrations x set lineup = app.lineup_json(x.id) where x.id = v_reg.id;
  end if;
  return (select d.doc from app.registration_documents d where d.id = v_reg.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.create_tournament (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
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
                                 registration_closes, check_in_opens, rules, visibility, substitutes_max, lineups)
    values (app.current_account_id(), v_body ->> 'name', v_stem || '-' || app.random_suffix(),
            coalesce(v_body ->> 'description', ''), (v_body ->> 'game_id')::uuid,
            v_new.format, v_new.format_options, v_new.stages, (v_body ->> 'team_size')::int,
            (v_body ->> 'max_teams')::int, coalesce((v_body ->> 'entry_fee')::numeric, 0),
            coalesce((v_body ->> 'prize_pool')::numeric, 0), v_new.starts_at, v_new.registration_closes,
            v_new.check_in_opens, coalesce(v_body ->> 'rules', ''), coalesce(v_body ->> 'visibility', 'private'),
            coalesce((v_body ->> 'substitutes_max')::int, 0), coalesce(v_body ->> 'lineups', 'off'))
    on conflict (slug) do nothing
    returning * into v_t;
    exit when found;
  end loop;
  return (select d.doc from app.tournament_documents d where d.id = v_t.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.delete_player (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_lineups uuid[];
begin
  perform app.check_input(p_args, '{"player_id": "uuid"}');
  if not app.lock_player_and_tournaments((p_args ->> 'player_id')::uuid) then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  if exists (select from app.lineup_entries e join app.tournaments t on t.id = e.tournament_id
              where e.player_id = (p_args ->> 'player_id')::uuid and t.status <> 'registration') then
    perform app.raise_error('player_in_use',
      'The player is in the lineup of a tournament that has started; they cannot be deleted.');
  end if;
  v_lineups := array(select e.registration_id from app.lineup_entries e where e.player_id = (p_args ->> 'player_id')::uuid);
  delete from app.players p where p.id = (p_args ->> 'player_id')::uuid; -- and their roster and lineup entries
  update app.registrations r set lineup = app.lineup_json(r.id), lineup_rev = r.lineup_rev + 1 where r.id = any (v_lineups);
  return json_build_object('message', 'Player deleted');
end
$function$;

CREATE OR REPLACE FUNCTION app.delete_roster_member (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_team app.teams;
begin
  perform app.check_input(p_args, '{"team_id": "uuid", "player_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  perform from app.teams t where t.id = v_team.id for no key update;
  if not found then
    perform app.raise_error('not_found', 'Team not found.'); -- deleted meanwhile
  end if;
  delete from app.team_members m where m.team_id = v_team.id and m.player_id = (p_args ->> 'player_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Player not found on this team.');
  end if;
  return json_build_object('message', 'Player removed');
end
$function$;

CREATE OR REPLACE FUNCTION app.double_elimination_standings (
  p_t app.tournaments
)
  RETURNS json
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_gf1 app.matches;
  v_gf2 app.matches;
  v_final app.matches;
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
                                               'team_name', tm.name, 'team_tag', tm.tag,
                                               'wins', coalesce(w.wins, 0), 'losses', coalesce(w.losses, 0))
                             order by p.position, tm.name, tm.id), '[]')
      from placed p
      join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = p.team_id
      left join tally w on w.team_id = p.team_id);
end
$function$;

CREATE OR REPLACE FUNCTION app.event_standings (
  p_t app.tournaments
)
  RETURNS json
  LANGUAGE sql
  STABLE
  SET search_path TO ''
  AS $function$
  with entries as (
    select e.stage, count(*)::int as n from app.stage_entries e where e.tournament_id = p_t.id group by e.stage
  ), blocks as (
    select k.k, r.team_id, r.place, r.grp, coalesce(c.n, 0) as above -- the teams placed ahead: stage k + 1's
      from generate_series(1, p_t.stage) as k (k)
      left join entries c on c.stage = k.k + 1
     cross join lateral app.stage_ranking(app.stage_of(p_t, k.k)) r
     where case when k.k = p_t.stage then r.decided
                else not exists (select from app.stage_entries e
                                  where e.tournament_id = p_t.id and e.stage = k.k + 1 and e.team_id = r.team_id) end
  ), placed as (
    -- The stage being played gives its own positions (only those decided so far: a team out in
    -- a quarter-final is 5th while the semi-finals are played); an earlier stage's teams that
    -- did not go on are ranked among themselves; after groups, one position per group place.
    select b.team_id,
           (case when b.k = p_t.stage and b.grp is null then b.place
                 else b.above + rank() over (partition by b.k order by b.place) end)::int as position
      from blocks b
  )
  select coalesce(json_agg(json_build_object('position', p.position, 'team_id', p.team_id,
                                             'team_name', tm.name, 'team_tag', tm.tag)
                           order by p.position, tm.name, tm.id), '[]')
    from placed p join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = p.team_id
$function$;

CREATE OR REPLACE FUNCTION app.freeze_team_names (
  p_t app.tournaments
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
begin
  update app.registrations r set team_name = tm.name, team_tag = tm.tag
    from app.teams tm
   where r.tournament_id = p_t.id and r.team_name is null and tm.id = r.team_id;
end
$function$;

CREATE OR REPLACE FUNCTION app.get_player (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_doc json;
begin
  perform app.check_input(p_args, '{"player_id": "uuid"}');
  select d.doc into v_doc from app.player_documents d where d.id = (p_args ->> 'player_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  return v_doc;
end
$function$;

CREATE OR REPLACE FUNCTION app.get_stage (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_t app.tournaments;
  v_n int;
  v_doc jsonb;
  v_started boolean;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "number": "smallint"}');
  select * into v_t from app.tournaments t where t.id = (p_args ->> 'tournament_id')::uuid;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  v_n := (p_args ->> 'number')::int;
  v_doc := app.stage_documents(v_t) -> (v_n - 1);
  if v_n < 1 or v_doc is null then
    perform app.raise_error('not_found', 'Stage not found.');
  end if;
  v_started := v_t.status <> 'registration' and v_n <= v_t.stage;
  return v_doc || jsonb_build_object(
    'standings', case when v_started then app.stage_standings(app.stage_of(v_t, v_n))::jsonb else '[]' end,
    'qualifiers', case when not v_started and v_n >= 2 and v_t.status <> 'registration' and v_n - 1 <= v_t.stage
                       then (select coalesce(jsonb_agg(jsonb_build_object('team_id', q.team_id, 'team_name', tm.name,
                                                'seed', q.seed, 'from_group', q.from_group,
                                                'from_position', q.from_position, 'tied', q.tied) order by q.seed), '[]')
                               from app.stage_qualifiers(v_t, v_n) q join app.tournament_teams tm on tm.tournament_id = v_t.id and tm.id = q.team_id) end);
end
$function$;

CREATE OR REPLACE FUNCTION app.lineup_json (
  p_registration_id uuid
)
  RETURNS jsonb
  LANGUAGE sql
  STABLE
  SET search_path TO ''
  AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('player_id', e.player_id, 'handle', e.handle, 'country', e.country,
                                               'role', e.role, 'captain', e.captain) order by e.position), '[]')
    from app.lineup_entries e where e.registration_id = p_registration_id
$function$;

CREATE OR REPLACE FUNCTION app.list_players (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_page int;
  v_limit int;
  v_external text := v_query ->> 'external_id';
  v_pattern text;
  v_total bigint;
  v_data json;
begin
  perform app.check_input(v_query, '{"page": "int", "limit": "int"}');
  v_page := coalesce((v_query ->> 'page')::int, 1);
  v_limit := coalesce((v_query ->> 'limit')::int, 20);
  v_pattern := '%' || replace(replace(replace(coalesce(v_query ->> 'search', ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  select count(*) into v_total from app.players p
   where (v_pattern = '%%' or p.handle ilike v_pattern or p.name ilike v_pattern or p.external_id ilike v_pattern)
     and (v_external is null or p.external_id = v_external);
  select coalesce(json_agg(d.doc order by d.handle, d.id), '[]') into v_data
    from app.player_documents d
   where d.id = any (array(
     select p.id from app.players p
      where (v_pattern = '%%' or p.handle ilike v_pattern or p.name ilike v_pattern or p.external_id ilike v_pattern)
        and (v_external is null or p.external_id = v_external)
      order by p.handle, p.id
     offset (v_page - 1)::bigint * v_limit limit v_limit));
  return json_build_object('data', v_data,
    'pagination', json_build_object('page', v_page, 'limit', v_limit, 'total', v_total, 'next_cursor', null));
end
$function$;

CREATE OR REPLACE FUNCTION app.list_roster (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_team app.teams;
begin
  perform app.check_input(p_args, '{"team_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  return (select coalesce(json_agg((d.doc::jsonb || jsonb_build_object('role', m.role, 'captain', m.captain)) order by m.seq), '[]')
            from app.team_members m join app.player_documents d on d.id = m.player_id
           where m.team_id = v_team.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.lock_player_and_tournaments (
  p_player_id uuid
)
  RETURNS boolean
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_tournaments uuid[];
begin
  for v_attempt in 1..50 loop
    begin
      v_tournaments := array(select distinct e.tournament_id from app.lineup_entries e where e.player_id = p_player_id);
      perform from app.tournaments t where t.id = any (v_tournaments) order by t.id for no key update;
      perform from app.players p where p.id = p_player_id for update;
      if not found then
        return false;
      end if;
      if not exists (select from app.lineup_entries e
                      where e.player_id = p_player_id and e.tournament_id <> all (v_tournaments)) then
        return true;
      end if;
      raise exception using errcode = 'TAREL';
    exception when sqlstate 'TAREL' then
      null;
    end;
  end loop;
  raise exception 'the player''s lineups kept changing while it was being locked' using errcode = '40001';
end
$function$;

CREATE OR REPLACE FUNCTION app.member_document (
  p_team_id   uuid,
  p_player_id uuid
)
  RETURNS json
  LANGUAGE sql
  STABLE
  SET search_path TO ''
  AS $function$
  select (d.doc::jsonb || jsonb_build_object('role', m.role, 'captain', m.captain))::json
    from app.team_members m join app.player_documents d on d.id = m.player_id
   where m.team_id = p_team_id and m.player_id = p_player_id
$function$;

CREATE OR REPLACE FUNCTION app.operation (
  p_op     text,
  p_args   jsonb,
  p_key_id uuid,
  p_run    boolean,
  OUT      scope text,
  OUT      writes boolean,
  OUT      result json,
  OUT      tournament_arg text
)
  RETURNS record
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
begin
  case p_op
    when 'tournaments.list'      then scope := 'read:tournaments';     writes := false; if p_run then result := app.list_tournaments(p_args); end if;
    when 'tournaments.get'       then scope := 'read:tournaments';     writes := false; if p_run then result := app.get_tournament(p_args); end if; tournament_arg := 'id';
    when 'tournaments.create'    then scope := 'write:tournaments';    writes := true;  if p_run then result := app.create_tournament(p_args); end if;
    when 'tournaments.update'    then scope := 'write:tournaments';    writes := true;  if p_run then result := app.update_tournament(p_args); end if; tournament_arg := 'id';
    when 'tournaments.delete'    then scope := 'write:tournaments';    writes := true;  if p_run then result := app.delete_tournament(p_args); end if; tournament_arg := 'id';
    when 'registrations.list'    then scope := 'read:registrations';   writes := false; if p_run then result := app.list_registrations(p_args); end if; tournament_arg := 'tournament_id';
    when 'registrations.get'     then scope := 'read:registrations';   writes := false; if p_run then result := app.get_registration(p_args); end if; tournament_arg := 'tournament_id';
    when 'registrations.create'  then scope := 'write:registrations';  writes := true;  if p_run then result := app.create_registration(p_args); end if; tournament_arg := 'tournament_id';
    when 'registrations.update'  then scope := 'write:registrations';  writes := true;  if p_run then result := app.update_registration(p_args); end if; tournament_arg := 'tournament_id';
    when 'registrations.delete'  then scope := 'write:registrations';  writes := true;  if p_run then result := app.delete_registration(p_args); end if; tournament_arg := 'tournament_id';
    when 'results.get'           then scope := 'read:results';         writes := false; if p_run then result := app.tournament_results(p_args); end if; tournament_arg := 'tournament_id';
    when 'matches.report'        then scope := 'write:results';        writes := true;  if p_run then result := app.report_match(p_args); end if; tournament_arg := 'tournament_id';
    when 'games.put'             then scope := 'write:results';        writes := true;  if p_run then result := app.change_game(p_args); end if; tournament_arg := 'tournament_id';
    when 'games.delete'          then scope := 'write:results';        writes := true;  if p_run then result := app.change_game(p_args - 'body'); end if; tournament_arg := 'tournament_id';
    when 'stages.list'           then scope := 'read:results';         writes := false; if p_run then result := app.list_stages(p_args); end if; tournament_arg := 'tournament_id';
    when 'stages.get'            then scope := 'read:results';         writes := false; if p_run then result := app.get_stage(p_args); end if; tournament_arg := 'tournament_id';
    when 'bracket.get'           then scope := 'read:results';         writes := false; if p_run then result := app.bracket_view(p_args); end if; tournament_arg := 'tournament_id';
    when 'stream.open'           then scope := 'read:results';         writes := false; if p_run then result := app.open_stream(p_args, p_key_id); end if; tournament_arg := 'tournament_id';
    when 'stages.update'         then scope := 'write:tournaments';    writes := true;  if p_run then result := app.update_stage(p_args); end if; tournament_arg := 'tournament_id';
    when 'teams.list'            then scope := 'read:teams';           writes := false; if p_run then result := app.list_teams(p_args); end if;
    when 'teams.get'             then scope := 'read:teams';           writes := false; if p_run then result := app.get_team(p_args); end if;
    when 'teams.create'          then scope := 'write:teams';          writes := true;  if p_run then result := app.create_team(p_args); end if;
    when 'teams.update'          then scope := 'write:teams';          writes := true;  if p_run then result := app.update_team(p_args); end if;
    when 'teams.delete'          then scope := 'write:teams';          writes := true;  if p_run then result := app.delete_team(p_args); end if;
    when 'players.list'          then scope := 'read:teams';           writes := false; if p_run then result := app.list_players(p_args); end if;
    when 'players.get'           then scope := 'read:teams';           writes := false; if p_run then result := app.get_player(p_args); end if;
    when 'players.create'        then scope := 'write:teams';          writes := true;  if p_run then result := app.create_player(p_args); end if;
    when 'players.update'        then scope := 'write:teams';          writes := true;  if p_run then result := app.update_player(p_args); end if;
    when 'players.delete'        then scope := 'write:teams';          writes := true;  if p_run then result := app.delete_player(p_args); end if;
    when 'roster.list'           then scope := 'read:teams';           writes := false; if p_run then result := app.list_roster(p_args); end if;
    when 'roster.put'            then scope := 'write:teams';          writes := true;  if p_run then result := app.put_roster_member(p_args); end if;
    when 'roster.delete'         then scope := 'write:teams';          writes := true;  if p_run then result := app.delete_roster_member(p_args); end if;
    when 'lineups.put'           then scope := 'write:registrations';  writes := true;  if p_run then result := app.put_lineup(p_args); end if; tournament_arg := 'tournament_id';
    when 'webhooks.list'         then scope := 'read:webhooks';        writes := false; if p_run then result := app.list_webhooks(p_args); end if;
    when 'webhooks.get'          then scope := 'read:webhooks';        writes := false; if p_run then result := app.get_webhook(p_args); end if;
    when 'webhooks.create'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.create_webhook(p_args); end if;
    when 'webhooks.update'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.update_webhook(p_args); end if;
    when 'webhooks.delete'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.delete_webhook(p_args); end if;
    when 'webhooks.rotate'       then scope := 'write:webhooks';       writes := true;  if p_run then result := app.rotate_webhook_secret(p_args); end if;
    when 'webhooks.test'         then scope := 'write:webhooks';       writes := true;  if p_run then result := app.test_webhook(p_args); end if;
    when 'deliveries.list'       then scope := 'read:webhooks';        writes := false; if p_run then result := app.list_webhook_deliveries(p_args); end if;
    when 'deliveries.retry'      then scope := 'write:webhooks';       writes := true;  if p_run then result := app.retry_webhook_delivery(p_args); end if;
    when 'me'                    then scope := null;                   writes := false; if p_run then result := app.me(p_key_id); end if;
    else raise exception 'unknown operation %', p_op using errcode = '22023';
  end case;
end
$function$;

CREATE OR REPLACE FUNCTION app.put_lineup (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_l record;
  v_t app.tournaments;
  v_r app.registrations;
  v_entries jsonb := coalesce(p_args #> '{body,players}', '[]');
  v_bad record;
  v_taken jsonb;
begin
  select l.t, l.r into v_l from app.lock_registration(p_args) l;
  v_t := v_l.t;
  v_r := v_l.r;
  if v_t.status <> 'registration' then
    perform app.raise_error('tournament_locked', format('The lineup cannot change while the tournament is %s.', v_t.status));
  end if;
  -- The players named, for key share: a deletion of one waits for this lineup (and then takes
  -- the player out of it), or has committed and the player is unknown here.
  perform from app.players p
   where p.id in (select (o.v ->> 'player_id')::uuid from jsonb_array_elements(v_entries) o (v)) and p.account_id = v_t.account_id
   order by p.id for key share;
  -- Each entry, numbered from 0, with its place among its role's: the first one wrong is named.
  select x.i, x.field, x.problem into v_bad
    from (select e.i,
                 case when e.known then format('players[%s]', e.i) else format('players[%s].player_id', e.i) end as field,
                 case
                   when not e.known then 'is not a player of this tournament''s account'
                   when e.role = 'player' and e.k > v_t.team_size
                     then format('is one player more than the team_size of %s', v_t.team_size)
                   when e.role = 'substitute' and e.k > v_t.substitutes_max
                     then format('is one substitute more than the substitutes_max of %s', v_t.substitutes_max)
                   when e.role = 'coach' and e.k > 2 then 'is one coach more than the 2 a lineup may hold'
                 end as problem
            from (select (o.i - 1)::int as i, o.v ->> 'role' as role,
                         exists (select from app.players p
                                  where p.id = (o.v ->> 'player_id')::uuid and p.account_id = v_t.account_id) as known,
                         row_number() over (partition by o.v ->> 'role' order by o.i) as k
                    from jsonb_array_elements(v_entries) with ordinality as o (v, i)) e) x
   where x.problem is not null
   order by x.i
   limit 1;
  if found then
    perform app.raise_invalid(v_bad.field, v_bad.problem);
  end if;

  select jsonb_agg(jsonb_build_object('field', format('players[%s].player_id', o.i - 1), 'player_id', e.player_id,
                                      'registration_id', e.registration_id,
                                      'message', format('player %s is in the lineup of registration %s', e.player_id, e.registration_id))
                   order by o.i)
    into v_taken
    from jsonb_array_elements(v_entries) with ordinality as o (v, i)
    join app.lineup_entries e on e.tournament_id = v_t.id and e.player_id = (o.v ->> 'player_id')::uuid
                             and e.role <> 'coach' and e.registration_id <> v_r.id
   where o.v ->> 'role' <> 'coach';
  if v_taken is not null then
    perform app.raise_error('player_already_registered',
      'A player of this lineup is already in another team''s lineup in this tournament.', v_taken);
  end if;

  perform app.replace_lineup(v_t, v_r, v_entries);
  return (select d.doc from app.registration_documents d where d.id = v_r.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.put_roster_member (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_team app.teams;
  v_player uuid;
  v_captain boolean := coalesce((p_args #>> '{body,captain}')::boolean, false);
begin
  perform app.check_input(p_args, '{"team_id": "uuid", "player_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  perform from app.teams t where t.id = v_team.id for no key update;
  if not found then
    perform app.raise_error('not_found', 'Team not found.'); -- deleted meanwhile
  end if;
  -- (For key share: a deletion of the player waits for this change, or this finds it gone.)
  select p.id into v_player from app.players p where p.id = (p_args ->> 'player_id')::uuid for key share;
  if v_player is null then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  if v_captain then
    update app.team_members m set captain = false where m.team_id = v_team.id and m.captain and m.player_id <> v_player;
  end if;
  insert into app.team_members (team_id, player_id, account_id, role, captain)
  values (v_team.id, v_player, v_team.account_id, p_args #>> '{body,role}', v_captain)
  on conflict (team_id, player_id) do update set role = excluded.role, captain = excluded.captain;
  return app.member_document(v_team.id, v_player);
end
$function$;

CREATE OR REPLACE FUNCTION app.replace_lineup (
  p_t       app.tournaments,
  p_r       app.registrations,
  p_entries jsonb
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_new jsonb;
  v_old jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('player_id', (o.v ->> 'player_id')::uuid, 'role', o.v ->> 'role',
                                               'captain', coalesce((o.v ->> 'captain')::boolean, false)) order by o.i), '[]')
    into v_new from jsonb_array_elements(p_entries) with ordinality as o (v, i);
  select coalesce(jsonb_agg(jsonb_build_object('player_id', e.player_id, 'role', e.role, 'captain', e.captain)
                            order by e.position), '[]')
    into v_old from app.lineup_entries e where e.registration_id = p_r.id;
  if v_new = v_old then
    return; -- the lineup sent back as it is: nothing changes
  end if;
  delete from app.lineup_entries e where e.registration_id = p_r.id;
  insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle, country)
  select p_r.id, p_t.id, p_t.account_id, p.id, o.v ->> 'role', coalesce((o.v ->> 'captain')::boolean, false), o.i, p.handle, p.country
    from jsonb_array_elements(p_entries) with ordinality as o (v, i)
    join app.players p on p.id = (o.v ->> 'player_id')::uuid;
  update app.registrations x set lineup = app.lineup_json(p_r.id), lineup_rev = x.lineup_rev + 1 where x.id = p_r.id;
end
$function$;

CREATE OR REPLACE FUNCTION app.roster_kept (
  p_t       app.tournaments,
  p_team_id uuid
)
  RETURNS TABLE (
    player_id uuid,
    role      text,
    captain   boolean,
    place     integer
  )
  LANGUAGE plpgsql
  STABLE
  ROWS 8
  SET search_path TO ''
  AS $function$
begin
  return query
    select k.player_id, k.role, k.captain, (row_number() over (order by k.seq))::int
      from (select m.player_id, m.role, m.captain, m.seq,
                   row_number() over (partition by m.role order by m.seq) as n
              from app.team_members m where m.team_id = p_team_id) k
     where k.n <= case k.role when 'player' then p_t.team_size when 'substitute' then p_t.substitutes_max else 2 end;
end
$function$;

CREATE OR REPLACE FUNCTION app.roster_lineup (
  p_t       app.tournaments,
  p_team_id uuid
)
  RETURNS jsonb
  LANGUAGE sql
  STABLE
  SET search_path TO ''
  AS $function$
  select coalesce(jsonb_agg(jsonb_build_object('player_id', k.player_id, 'handle', p.handle, 'country', p.country,
                                               'role', k.role, 'captain', k.captain) order by k.place), '[]')
    from app.roster_kept(p_t, p_team_id) k join app.players p on p.id = k.player_id
$function$;

CREATE OR REPLACE FUNCTION app.round_robin_standings (
  p_t app.tournaments
)
  RETURNS json
  LANGUAGE sql
  STABLE
  SET search_path TO ''
  AS $function$
  select coalesce(json_agg(json_build_object('position', k.overall_position, 'group', k.grp,
                                             'group_position', k.group_position, 'team_id', k.team_id,
                                             'team_name', tm.name, 'team_tag', tm.tag, 'wins', k.wins,
                                             'losses', k.losses, 'points', k.points)
                           order by k.overall_position, tm.name, tm.id), '[]')
    from app.round_robin_table(p_t) k join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = k.team_id
$function$;

CREATE OR REPLACE FUNCTION app.seed_participants (
  p_t app.tournaments
)
  RETURNS integer
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_n int;
begin
  if p_t.stage > 1 then
    return (select count(*) from app.stage_entries e where e.tournament_id = p_t.id and e.stage = p_t.stage);
  end if;
  -- (The participants' team names and tags are frozen in the same write: app.freeze_team_names.)
  update app.registrations r set bracket_seed = p.seed, team_name = tm.name, team_tag = tm.tag
    from (select x.id, x.team_id, row_number() over (order by x.seed nulls last, x.seq)::int as seed
            from app.participants(p_t) x) p
    join app.teams tm on tm.id = p.team_id
   where r.id = p.id;
  get diagnostics v_n = row_count;
  insert into app.stage_entries (tournament_id, account_id, stage, team_id, seed)
  select r.tournament_id, r.account_id, 1, r.team_id, r.bracket_seed
    from app.registrations r where r.tournament_id = p_t.id and r.bracket_seed is not null
  on conflict (tournament_id, stage, team_id) do update set seed = excluded.seed; -- (seeding again, as tests do)
  return v_n;
end
$function$;

CREATE OR REPLACE FUNCTION app.single_elimination_standings (
  p_t app.tournaments
)
  RETURNS json
  LANGUAGE plpgsql
  STABLE
  SET search_path TO ''
  AS $function$
declare
  v_rounds int;
  v_third app.matches;
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
    )
    select coalesce(json_agg(json_build_object('position', p.position, 'team_id', p.team_id,
                                               'team_name', tm.name, 'team_tag', tm.tag)
                             order by p.position, tm.name, tm.id), '[]')
      from placed p join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = p.team_id);
end
$function$;

CREATE OR REPLACE FUNCTION app.start_stage (
  p_t         app.tournaments,
  p_number    integer,
  p_advancing jsonb
)
  RETURNS void
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_k int := app.advancing_count(app.stage_list(p_t) -> (p_number - 2));
  v_prev app.stages;
  v_ties jsonb;
  v_bad uuid;
begin
  select * into v_prev from app.stages s where s.tournament_id = p_t.id and s.number = p_number - 1;
  if p_number > p_t.stage + 1 or v_prev.status is distinct from 'completed' then
    perform app.raise_error('invalid_status_transition',
      format('Stage %s can start only once stage %s is completed; stage %s is %s.', p_number, p_number - 1,
             p_number - 1, coalesce(v_prev.status, 'pending')));
  end if;

  if p_advancing is not null and jsonb_typeof(p_advancing) <> 'null' then
    perform app.check_advancing(p_advancing, v_k, p_number);
    select (a #>> '{}')::uuid into v_bad from jsonb_array_elements(p_advancing) a
     where not exists (select from app.stage_entries e
                        where e.tournament_id = p_t.id and e.stage = p_number - 1 and e.team_id = (a #>> '{}')::uuid)
     limit 1;
    if v_bad is not null then
      perform app.raise_invalid('advancing', format('team %s did not play stage %s', v_bad, p_number - 1));
    end if;
    insert into app.stage_entries (tournament_id, account_id, stage, team_id, seed)
    select p_t.id, p_t.account_id, p_number, (a.v #>> '{}')::uuid, a.i
      from jsonb_array_elements(p_advancing) with ordinality as a (v, i);
  else
    select jsonb_agg(jsonb_build_object('field', 'advancing', 'team_id', q.team_id, 'team_name', tm.name,
                                        'from_position', q.from_position,
                                        'message', format('%s shares place %s at the cut', tm.name, q.from_position))
                     order by q.seed)
      into v_ties
      from app.stage_qualifiers(p_t, p_number) q join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = q.team_id
     where q.tied;
    if v_ties is not null then
      perform app.raise_error('stage_tie',
        format('Teams share the last qualifying place of stage %s; send advancing: the %s teams that go on, in seed order.',
               p_number - 1, v_k), v_ties);
    end if;
    insert into app.stage_entries (tournament_id, account_id, stage, team_id, seed)
    select p_t.id, p_t.account_id, p_number, q.team_id, q.seed
      from app.stage_qualifiers(p_t, p_number) q;
  end if;

  update app.tournaments t set stage = p_number where t.id = p_t.id;
  p_t.stage := p_number;
  perform app.generate_bracket(app.stage_of(p_t, p_number));
  insert into app.stages (tournament_id, account_id, number, status, team_count)
  values (p_t.id, p_t.account_id, p_number, 'ongoing', v_k);
end
$function$;

CREATE OR REPLACE FUNCTION app.swiss_standings (
  p_t app.tournaments
)
  RETURNS json
  LANGUAGE sql
  STABLE
  SET search_path TO ''
  AS $function$
  with ranked as (
    select r.*, rank() over (order by r.wins desc, r.buchholz desc, r.seed) as position
      from app.swiss_records(p_t, 2147483647) r
  )
  select coalesce(json_agg(json_build_object('position', k.position, 'team_id', k.team_id,
                                             'team_name', tm.name, 'team_tag', tm.tag, 'wins', k.wins,
                                             'losses', k.losses, 'buchholz', k.buchholz)
                           order by k.position, tm.name, tm.id), '[]')
    from ranked k join app.tournament_teams tm on tm.tournament_id = p_t.id and tm.id = k.team_id
$function$;

CREATE OR REPLACE FUNCTION app.team_changed (
  p_team_id uuid,
  p_all     boolean
)
  RETURNS void
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path TO ''
  AS $function$
declare
  v_t record;
begin
  for v_t in select t.id, t.account_id from app.tournaments t
              where t.id in (select r.tournament_id from app.registrations r where r.team_id = p_team_id)
                and (p_all or t.status = 'registration')
              order by t.id for no key update loop
    perform app.bump_version(v_t.id, v_t.account_id);
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION app.team_version()
  RETURNS TRIGGER
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
begin
  perform app.team_changed(new.id, old.logo_url is distinct from new.logo_url);
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION app.tournament_input_types()
  RETURNS jsonb
  LANGUAGE plpgsql
  IMMUTABLE
  SET search_path TO ''
  AS $function$
begin
  return '{"game_id": "uuid", "team_size": "int", "substitutes_max": "int", "max_teams": "int", "entry_fee": "numeric(9,2)",
           "prize_pool": "numeric(11,2)", "starts_at": "timestamptz", "registration_closes": "timestamptz",
           "check_in_opens": "timestamptz", "status": "app.tournament_status",
           "visibility": "app.tournament_visibility"}';
end
$function$;

CREATE OR REPLACE FUNCTION app.update_player (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_old app.players;
  v_new app.players;
begin
  perform app.check_input(p_args, '{"player_id": "uuid"}');
  if not app.lock_player_and_tournaments((p_args ->> 'player_id')::uuid) then
    perform app.raise_error('not_found', 'Player not found.');
  end if;
  select * into v_old from app.players p where p.id = (p_args ->> 'player_id')::uuid;
  v_new := jsonb_populate_record(v_old, v_body - 'id' - 'account_id' - 'created_at' - 'updated_at');
  v_new.handle := btrim(v_new.handle);
  v_new.game_accounts := coalesce(v_new.game_accounts, '{}');
  if (v_new.handle, v_new.name, v_new.country, v_new.external_id, v_new.game_accounts)
     is not distinct from (v_old.handle, v_old.name, v_old.country, v_old.external_id, v_old.game_accounts) then
    return (select d.doc from app.player_documents d where d.id = v_old.id);
  end if;
  begin
    update app.players p
       set handle = v_new.handle, name = v_new.name, country = v_new.country, external_id = v_new.external_id,
           game_accounts = v_new.game_accounts, updated_at = now()
     where p.id = v_old.id;
  exception when unique_violation then
    perform app.raise_error('external_id_taken',
      format('Another player of your account has external_id %s.', v_new.external_id));
  end;
  if (v_new.handle, v_new.country) is distinct from (v_old.handle, v_old.country) then
    with changed as (
      update app.lineup_entries e set handle = v_new.handle, country = v_new.country
        from app.tournaments t
       where e.player_id = v_old.id and t.id = e.tournament_id and t.status = 'registration'
      returning e.registration_id)
    update app.registrations r set lineup = app.lineup_json(r.id), lineup_rev = r.lineup_rev + 1
     where r.id in (select c.registration_id from changed c);
  end if;
  return (select d.doc from app.player_documents d where d.id = v_old.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.update_registration (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_l record;
  v_t app.tournaments;
  v_r app.registrations;
  v_seed int;
  v_checked_in timestamptz;
  v_payment text;
  v_players int;
begin
  perform app.check_input(v_body, '{"seed": "int", "checked_in": "boolean", "payment_status": "app.payment_status"}');
  select l.t, l.r into v_l from app.lock_registration(p_args) l;
  v_t := v_l.t;
  v_r := v_l.r;
  v_seed := case when v_body ? 'seed' then (v_body ->> 'seed')::int else v_r.seed end;
  v_payment := coalesce(v_body ->> 'payment_status', v_r.payment_status);
  v_checked_in := case when not v_body ? 'checked_in' then v_r.checked_in_at
                       when (v_body ->> 'checked_in')::boolean then coalesce(v_r.checked_in_at, clock_timestamp())
                       end;
  if v_seed not between 1 and 1024 then
    perform app.raise_invalid('seed', 'must be an integer from 1 to 1024, or null');
  end if;

  -- Only values that change count: a client may send back what it read.
  if v_seed is distinct from v_r.seed and v_t.status <> 'registration' then
    perform app.raise_error('tournament_locked',
      format('seed cannot change while the tournament is %s.', v_t.status));
  end if;
  -- Check-in: once started, a tournament with check-in says its check-in is over, one without
  -- says the field is locked; before check_in_opens a team may check out, not in.
  if (v_checked_in is null) <> (v_r.checked_in_at is null) then
    if v_t.status <> 'registration' and v_t.check_in_opens is null then
      perform app.raise_error('tournament_locked',
        format('checked_in cannot change while the tournament is %s.', v_t.status));
    elsif v_t.status <> 'registration' then
      perform app.raise_error('check_in_closed', format('Check-in is over: the tournament is %s.', v_t.status));
    elsif v_checked_in is not null and now() < coalesce(v_t.check_in_opens, '-infinity') then
      perform app.raise_error('check_in_closed', format('Check-in opens at %s.', app.iso(v_t.check_in_opens)));
    end if;
  end if;
  -- With lineups required, a team checks in with a full lineup (contract section 16).
  if v_checked_in is not null and v_r.checked_in_at is null and v_t.lineups = 'required' then
    select count(*) into v_players from app.lineup_entries e where e.registration_id = v_r.id and e.role = 'player';
    if v_players < v_t.team_size then
      perform app.raise_error('lineup_incomplete',
        format('The lineup holds %s of the %s players the tournament needs to check in.', v_players, v_t.team_size),
        jsonb_build_array(jsonb_build_object('registration_id', v_r.id, 'team_id', v_r.team_id,
          'team_name', (select tm.name from app.teams tm where tm.id = v_r.team_id), 'players', v_players)));
    end if;
  end if;
  if v_seed is distinct from v_r.seed and v_seed is not null
     and exists (select from app.registrations x where x.tournament_id = v_t.id and x.seed = v_seed) then
    perform app.raise_error('seed_taken', format('Seed %s is held by another registration of this tournament.', v_seed));
  end if;

  update app.registrations x
     set seed = v_seed, checked_in_at = v_checked_in, payment_status = v_payment
   where x.id = v_r.id
     and (x.seed, x.checked_in_at, x.payment_status) is distinct from (v_seed, v_checked_in, v_payment);
  return (select d.doc from app.registration_documents d where d.id = v_r.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.update_tournament (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
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
    when 'ongoing' then array['name', 'description', 'rules', 'prize_pool', 'visibility']
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
          updated_at)
       = (v_new.name, v_new.description, v_new.game_id, v_new.status, v_new.format, v_new.format_options,
          v_new.stages, v_new.team_size, v_new.max_teams, v_new.entry_fee, v_new.prize_pool, v_new.starts_at,
          v_new.registration_closes, v_new.check_in_opens, v_new.rules, v_new.visibility, v_new.substitutes_max,
          v_new.lineups, now())
   where t.id = v_old.id;
  return (select d.doc from app.tournament_documents d where d.id = v_old.id);
end
$function$;

CREATE OR REPLACE FUNCTION app.webhook_change_events()
  RETURNS TRIGGER
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_intents json;
begin
  if not exists (select from app.webhook_endpoints w where w.enabled) then
    return null; -- no endpoint of the bound account (or anywhere, for the operator): nothing to hear
  end if;
  case tg_table_name
  when 'tournaments' then
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.id,
               'type', 'tournament.created', 'kind', 'tournament', 'subject_id', n.id)) into v_intents
        from new_rows n;
    elsif tg_op = 'DELETE' then
      select json_agg(json_build_object('account_id', o.account_id, 'tournament_id', o.id,
               'type', 'tournament.deleted', 'kind', 'tournament', 'subject_id', o.id,
               'data', json_build_object('id', o.id))) into v_intents
        from old_rows o;
    else
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.id,
               'type', case when n.status is not distinct from o.status then 'tournament.updated'
                            when n.status = 'ongoing' then 'tournament.started'
                            when n.status = 'completed' then 'tournament.completed'
                            else 'tournament.updated' end,
               'kind', 'tournament', 'subject_id', n.id)) into v_intents
        from new_rows n join old_rows o on o.id = n.id
       where (n.name, n.description, n.game_id, n.status, n.format, n.format_options, n.team_size, n.max_teams,
              n.entry_fee, n.prize_pool, n.starts_at, n.registration_closes, n.check_in_opens, n.rules, n.stages,
              n.visibility, n.substitutes_max, n.lineups)
             is distinct from
             (o.name, o.description, o.game_id, o.status, o.format, o.format_options, o.team_size, o.max_teams,
              o.entry_fee, o.prize_pool, o.starts_at, o.registration_closes, o.check_in_opens, o.rules, o.stages,
              o.visibility, o.substitutes_max, o.lineups);
    end if;
  when 'registrations' then
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'registration.created', 'kind', 'registration', 'subject_id', n.id)) into v_intents
        from new_rows n;
    else
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'registration.updated', 'kind', 'registration', 'subject_id', n.id)) into v_intents
        from new_rows n join old_rows o on o.id = n.id
       where (n.seed, n.payment_status, n.checked_in_at, n.lineup_rev)
             is distinct from (o.seed, o.payment_status, o.checked_in_at, o.lineup_rev);
    end if;
  when 'matches' then
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'match.ready', 'kind', 'match.ready', 'subject_id', n.id)) into v_intents
        from new_rows n
       where n.status = 'ready';
    else
      select json_agg(e) into v_intents
        from new_rows n
        join old_rows o on o.id = n.id
       cross join lateral (
         -- A match gets both teams (again, when a correction changes who plays it).
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', 'match.ready', 'kind', 'match.ready', 'subject_id', n.id) as e
          where n.status = 'ready'
            and (o.status not in ('ready', 'completed') or (n.team1_id, n.team2_id) is distinct from (o.team1_id, o.team2_id))
         union all
         -- A result, or a change of one (a series' decision undone by a game included).
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', case when o.status = 'completed' then 'match.corrected' else 'match.completed' end,
                  'kind', 'match.result', 'subject_id', n.id)
          where n.team1_id is not null and n.team2_id is not null
            and ((n.status = 'completed' and o.status = 'ready')
                 or (o.status = 'completed' and n.status = 'ready')
                 or (n.status = 'completed' and o.status = 'completed'
                     and (n.winner_id, n.team1_score, n.team2_score, n.forfeit)
                         is distinct from (o.winner_id, o.team1_score, o.team2_score, o.forfeit)))
         union all
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', 'match.scheduled', 'kind', 'match.scheduled', 'subject_id', n.id)
          where n.scheduled_at is distinct from o.scheduled_at
       ) x;
    end if;
  when 'stages' then
    -- A stage starts (its row is made) and completes (or reopens, which says nothing).
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'stage.started', 'kind', 'stage', 'subject_id', n.id)) into v_intents
        from new_rows n;
    else
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'stage.completed', 'kind', 'stage', 'subject_id', n.id)) into v_intents
        from new_rows n join old_rows o on o.id = n.id
       where n.status = 'completed' and o.status <> 'completed';
    end if;
  end case;
  if v_intents is not null then
    perform app.webhook_record(v_intents);
  end if;
  return null;
end
$function$;

ALTER TABLE "app"."lineup_entries"
  ADD CONSTRAINT "lineup_entries_registration_id_fkey" FOREIGN KEY (registration_id) REFERENCES app.registrations(id) ON DELETE CASCADE;

ALTER TABLE "app"."players"
  ADD CONSTRAINT "players_account_id_fkey" FOREIGN KEY (account_id) REFERENCES app.accounts(id) ON DELETE CASCADE;

ALTER TABLE "app"."lineup_entries"
  ADD CONSTRAINT "lineup_entries_player_id_fkey" FOREIGN KEY (player_id) REFERENCES app.players(id) ON DELETE CASCADE;

ALTER TABLE "app"."team_members"
  ADD CONSTRAINT "team_members_player_id_fkey" FOREIGN KEY (player_id) REFERENCES app.players(id) ON DELETE CASCADE;

ALTER TABLE "app"."team_members"
  ADD CONSTRAINT "team_members_team_id_fkey" FOREIGN KEY (team_id) REFERENCES app.teams(id) ON DELETE CASCADE;

ALTER TABLE "app"."tournaments"
  ADD CONSTRAINT "tournaments_lineups_check" CHECK ((lineups = ANY (ARRAY['off'::text, 'required'::text])));

ALTER TABLE "app"."tournaments"
  ADD CONSTRAINT "tournaments_substitutes_max_check" CHECK (((substitutes_max >= 0) AND (substitutes_max <= 50)));

CREATE VIEW "app"."player_documents" WITH (security_invoker=true) AS  SELECT id,
    account_id,
    handle,
    json_build_object('id', id, 'handle', handle, 'name', name, 'country', country, 'external_id', external_id, 'game_accounts', game_accounts, 'created_at', to_char((created_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'updated_at', to_char((updated_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text)) AS doc
   FROM app.players p;

CREATE VIEW "app"."registration_documents" WITH (security_invoker=true) AS  SELECT r.id,
    r.tournament_id,
    r.payment_status,
    r.seq,
    json_build_object('id', r.id, 'tournament_id', r.tournament_id, 'team_id', r.team_id, 'payment_status', r.payment_status, 'registered_at', to_char((r.registered_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'seed', r.seed, 'checked_in_at', to_char((r.checked_in_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'teams', json_build_object('id', tm.id, 'name', COALESCE(r.team_name, tm.name), 'tag', COALESCE(r.team_tag, tm.tag), 'logo_url', tm.logo_url), 'lineup', r.lineup) AS doc
   FROM (app.registrations r
     JOIN app.teams tm ON ((tm.id = r.team_id)));

CREATE VIEW "app"."tournament_documents" WITH (security_invoker=true) AS  SELECT id,
    account_id,
    status,
    game_id,
    created_at,
    json_build_object('id', id, 'name', name, 'slug', slug, 'description', description, 'game_id', game_id, 'status', status, 'format', format, 'format_options', format_options, 'stages', app.stage_list(t.*), 'team_size', team_size, 'substitutes_max', substitutes_max, 'lineups', lineups, 'max_teams', max_teams, 'entry_fee', entry_fee, 'prize_pool', prize_pool, 'starts_at', to_char((starts_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'registration_closes', to_char((registration_closes AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'check_in_opens', to_char((check_in_opens AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'rules', rules, 'visibility', visibility, 'created_at', to_char((created_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'updated_at', to_char((updated_at AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'::text), 'version', COALESCE(( SELECT v.version
           FROM app.tournament_versions v
          WHERE (v.tournament_id = t.id)), (1)::bigint)) AS doc
   FROM app.tournaments t;

CREATE VIEW "app"."tournament_teams" WITH (security_invoker=true) AS  SELECT r.tournament_id,
    r.team_id AS id,
    COALESCE(r.team_name, tm.name) AS name,
    COALESCE(r.team_tag, tm.tag) AS tag
   FROM (app.registrations r
     JOIN app.teams tm ON ((tm.id = r.team_id)));

CREATE INDEX lineup_entries_account_idx ON app.lineup_entries USING btree (account_id, tournament_id);

CREATE INDEX lineup_entries_player_idx ON app.lineup_entries USING btree (player_id);

CREATE UNIQUE INDEX lineup_entries_player_key ON app.lineup_entries USING btree (tournament_id, player_id)
  WHERE (ROLE <> 'coach'::text);

CREATE INDEX players_account_handle_idx ON app.players USING btree (account_id, handle, id);

CREATE INDEX team_members_account_idx ON app.team_members USING btree (account_id);

CREATE UNIQUE INDEX team_members_captain_key ON app.team_members USING btree (team_id)
  WHERE captain;

CREATE INDEX team_members_player_idx ON app.team_members USING btree (player_id);

CREATE POLICY "Lineup entries are created in the bound account" ON "app"."lineup_entries"
  FOR INSERT
  TO "tournament_api_owner"
  WITH CHECK (((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))) AND (EXISTS ( SELECT
   FROM app.registrations r
  WHERE ((r.id = lineup_entries.registration_id) AND (r.tournament_id = lineup_entries.tournament_id) AND (r.account_id = lineup_entries.account_id)))) AND (EXISTS ( SELECT
   FROM app.players p
  WHERE ((p.id = lineup_entries.player_id) AND (p.account_id = lineup_entries.account_id))))));

CREATE POLICY "Lineup entries are removed by their account" ON "app"."lineup_entries"
  FOR DELETE
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Lineup entries are updated by their account" ON "app"."lineup_entries"
  FOR UPDATE
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))))
  WITH CHECK ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Lineup entries are visible to their account" ON "app"."lineup_entries"
  FOR SELECT
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Players are created in the bound account" ON "app"."players"
  FOR INSERT
  TO "tournament_api_owner"
  WITH CHECK ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Players are deleted by their account" ON "app"."players"
  FOR DELETE
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Players are updated by their account" ON "app"."players"
  FOR UPDATE
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))))
  WITH CHECK ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Players are visible to their account" ON "app"."players"
  FOR SELECT
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Team members are added in the bound account" ON "app"."team_members"
  FOR INSERT
  TO "tournament_api_owner"
  WITH CHECK (((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))) AND (EXISTS ( SELECT
   FROM app.teams t
  WHERE ((t.id = team_members.team_id) AND (t.account_id = team_members.account_id)))) AND (EXISTS ( SELECT
   FROM app.players p
  WHERE ((p.id = team_members.player_id) AND (p.account_id = team_members.account_id))))));

CREATE POLICY "Team members are removed by their account" ON "app"."team_members"
  FOR DELETE
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Team members are updated by their account" ON "app"."team_members"
  FOR UPDATE
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))))
  WITH CHECK ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

CREATE POLICY "Team members are visible to their account" ON "app"."team_members"
  FOR SELECT
  TO "tournament_api_owner"
  USING ((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))));

COMMENT ON COLUMN "app"."lineup_entries"."handle" IS 'The player''s handle as the lineup shows it (updated with the player''s while the tournament is in registration).';

COMMENT ON COLUMN "app"."players"."external_id" IS 'The organiser''s own id for the player; unique in the account.';

COMMENT ON COLUMN "app"."players"."game_accounts" IS 'The player''s game accounts: {provider: id}.';

COMMENT ON COLUMN "app"."registrations"."team_name" IS 'The team''s name frozen at the tournament''s start; null before.';

COMMENT ON COLUMN "app"."team_members"."account_id" IS 'The team''s (and player''s) account, copied so that RLS needs no join.';

COMMENT ON FUNCTION "app"."create_registration"(jsonb) IS 'Registers a team. Checks in order: tournament, team, open, not yet registered, capacity; then copies its roster.';

COMMENT ON FUNCTION "app"."put_lineup"(jsonb) IS 'PUT a registration''s lineup: the account''s players, the tournament''s caps, one team per tournament; while in registration.';

COMMENT ON FUNCTION "app"."team_changed"(uuid, boolean) IS 'Raises the version of the tournaments showing a team''s change: those in registration for a name or tag, all for a logo.';

COMMENT ON TABLE "app"."lineup_entries" IS 'A registration''s lineup: one player, one team per tournament (coaches exempt), kept by lineup_entries_player_key.';

COMMENT ON TABLE "app"."players" IS 'A player of one account (contract section 16): never visible to another account.';

COMMENT ON TABLE "app"."team_members" IS 'A team''s roster: the owning account''s players with a role and at most one captain.';

COMMENT ON VIEW "app"."player_documents" IS 'Each player with its API representation (doc).';

COMMENT ON VIEW "app"."registration_documents" IS 'Each registration with its API representation (doc).';

COMMENT ON VIEW "app"."tournament_documents" IS 'Each tournament with its API representation (doc).';

COMMENT ON VIEW "app"."tournament_teams" IS 'Each registered team''s name and tag as its tournament shows them.';

REVOKE ALL ON FUNCTION "app"."check_game_lineups"(app.tournaments, app.matches, jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."check_game_lineups"(app.tournaments, app.matches, jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."check_lineups"(app.tournaments) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."check_lineups"(app.tournaments) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."copy_roster"(app.tournaments, app.registrations) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."copy_roster"(app.tournaments, app.registrations) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."create_player"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."create_player"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."delete_player"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."delete_player"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."delete_roster_member"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."delete_roster_member"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."freeze_team_names"(app.tournaments) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."freeze_team_names"(app.tournaments) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."get_player"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."get_player"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."lineup_json"(uuid) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."lineup_json"(uuid) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."list_players"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."list_players"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."list_roster"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."list_roster"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."lock_player_and_tournaments"(uuid) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."lock_player_and_tournaments"(uuid) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."member_document"(uuid, uuid) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."member_document"(uuid, uuid) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."put_lineup"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."put_lineup"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."put_roster_member"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."put_roster_member"(jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."replace_lineup"(app.tournaments, app.registrations, jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."replace_lineup"(app.tournaments, app.registrations, jsonb) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."roster_kept"(app.tournaments, uuid) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."roster_kept"(app.tournaments, uuid) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."roster_lineup"(app.tournaments, uuid) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."roster_lineup"(app.tournaments, uuid) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."team_changed"(uuid, boolean) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."team_changed"(uuid, boolean) TO "tournament_api_owner";

REVOKE ALL ON FUNCTION "app"."update_player"(jsonb) FROM PUBLIC;

GRANT EXECUTE ON FUNCTION "app"."update_player"(jsonb) TO "tournament_api_owner";

GRANT UPDATE ("country") ON TABLE "app"."lineup_entries" TO "tournament_api_owner";

GRANT UPDATE ("handle") ON TABLE "app"."lineup_entries" TO "tournament_api_owner";

GRANT DELETE, INSERT, SELECT ON TABLE "app"."lineup_entries" TO "tournament_api_owner";

GRANT UPDATE ("country") ON TABLE "app"."players" TO "tournament_api_owner";

GRANT UPDATE ("external_id") ON TABLE "app"."players" TO "tournament_api_owner";

GRANT UPDATE ("game_accounts") ON TABLE "app"."players" TO "tournament_api_owner";

GRANT UPDATE ("handle") ON TABLE "app"."players" TO "tournament_api_owner";

GRANT UPDATE ("name") ON TABLE "app"."players" TO "tournament_api_owner";

GRANT UPDATE ("updated_at") ON TABLE "app"."players" TO "tournament_api_owner";

GRANT DELETE, INSERT, SELECT ON TABLE "app"."players" TO "tournament_api_owner";

REVOKE ALL ("lineup_rev") ON TABLE "app"."registrations" FROM "tournament_api_owner";

GRANT UPDATE ("lineup_rev") ON TABLE "app"."registrations" TO "tournament_api_owner";

REVOKE ALL ("lineup") ON TABLE "app"."registrations" FROM "tournament_api_owner";

GRANT UPDATE ("lineup") ON TABLE "app"."registrations" TO "tournament_api_owner";

REVOKE ALL ("team_name") ON TABLE "app"."registrations" FROM "tournament_api_owner";

GRANT UPDATE ("team_name") ON TABLE "app"."registrations" TO "tournament_api_owner";

REVOKE ALL ("team_tag") ON TABLE "app"."registrations" FROM "tournament_api_owner";

GRANT UPDATE ("team_tag") ON TABLE "app"."registrations" TO "tournament_api_owner";

GRANT UPDATE ("captain") ON TABLE "app"."team_members" TO "tournament_api_owner";

GRANT UPDATE ("role") ON TABLE "app"."team_members" TO "tournament_api_owner";

GRANT DELETE, INSERT, SELECT ON TABLE "app"."team_members" TO "tournament_api_owner";

GRANT SELECT ON TABLE "app"."player_documents" TO "tournament_api_owner";

GRANT SELECT ON TABLE "app"."registration_documents" TO "tournament_api_owner";

GRANT SELECT ON TABLE "app"."tournament_documents" TO "tournament_api_owner";

GRANT SELECT ON TABLE "app"."tournament_teams" TO "tournament_api_owner";

-- The upgrade (see the header).
ALTER TABLE "app"."registrations" DISABLE TRIGGER USER;
UPDATE app.registrations r SET team_name = tm.name, team_tag = tm.tag
  FROM app.teams tm, app.tournaments t
 WHERE tm.id = r.team_id AND t.id = r.tournament_id AND t.status <> 'registration';
ALTER TABLE "app"."registrations" ENABLE TRIGGER USER;

ALTER TABLE "app"."matches" DISABLE TRIGGER USER;
UPDATE app.matches m
   SET games = (SELECT jsonb_agg(CASE WHEN g ? 'lineups' THEN g ELSE g || '{"lineups": null}' END ORDER BY n)
                  FROM jsonb_array_elements(m.games) WITH ORDINALITY AS x (g, n))
 WHERE m.games <> '[]';
ALTER TABLE "app"."matches" ENABLE TRIGGER USER;
