-- Participants act for themselves (contract section 17). A participant token (`tpt_`) is a row
-- of app.api_keys (02_api_keys.sql) with a tournament: api.call (25_api.sql) looks it up, limits
-- it (its own ring of 100 per 60 s) and binds its account as it does a key's, and refuses each
-- kind on the other's routes (401). A registration token acts for one registration; a sign-up
-- token (`participant:register`, at most max_uses) creates registrations. The organiser mints,
-- lists and revokes them (write:registrations / read:registrations). The participant
-- operations (participant.*) get the token's tournament_id, registration_id and token_id from
-- api.call, never from the request, and reuse the organiser's operations for the rest.

-- ============================================================================
-- constraints
-- ============================================================================
-- A participant token goes with its tournament or registration (declared here: api_keys comes
-- first in the load order). Referential actions run as api_keys' owner: no privilege needed.
alter table app.api_keys add constraint api_keys_tournament_fkey
  foreign key (tournament_id) references app.tournaments (id) on delete cascade;

alter table app.api_keys add constraint api_keys_registration_fkey
  foreign key (registration_id) references app.registrations (id) on delete cascade;

-- ============================================================================
-- indexes
-- ============================================================================
create index api_keys_tournament_idx on app.api_keys (tournament_id) where tournament_id is not null;

create index api_keys_registration_idx on app.api_keys (registration_id) where registration_id is not null;

-- ============================================================================
-- functions
-- ============================================================================
-- A participant token as the organiser's list shows it (never its secret).
create function app.token_document(p_k app.api_keys) returns jsonb
language plpgsql stable
set search_path = ''
as $$
begin
  return jsonb_build_object('id', p_k.id, 'tournament_id', p_k.tournament_id, 'kind', case when p_k.registration_id is null then 'signup' else 'registration' end,
    'name', p_k.name, 'prefix', p_k.prefix, 'scopes', p_k.scopes, 'registration_id', p_k.registration_id,
    'uses', case when p_k.registration_id is null then p_k.uses end, 'max_uses', p_k.max_uses,
    'expires_at', app.iso(p_k.expires_at), 'created_at', app.iso(p_k.created_at),
    'last_used_at', app.iso(p_k.last_used_at));
end
$$;

-- Mints a participant token of a tournament of the bound account (p_registration_id null: a
-- sign-up token) and returns it with its plaintext, the only time it is shown. Security definer
-- (owned by the migration role, which owns api_keys); it checks the tournament's and the
-- registration's account itself, since the definer reads past row-level security.
create function app.mint_token(p_tournament_id uuid, p_registration_id uuid, p_name text, p_scopes text[],
                               p_expires_at timestamptz, p_max_uses int) returns jsonb
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_account uuid := app.current_account_id();
  v_token text := app.new_api_key('tpt_');
  v_k app.api_keys;
begin
  if p_expires_at <= now() then
    perform app.raise_invalid('expires_at', 'must be in the future');
  end if;
  -- For key share: a deletion of the tournament or registration racing this waits for it (and
  -- then takes the token with it), or has committed and this finds nothing (404).
  perform from app.tournaments t where t.id = p_tournament_id and t.account_id = v_account for key share;
  if not found then
    perform app.raise_error('not_found', case when p_registration_id is null then 'Tournament not found.' else 'Registration not found.' end);
  end if;
  if p_registration_id is not null then
    perform from app.registrations r where r.id = p_registration_id and r.tournament_id = p_tournament_id for key share;
    if not found then
      perform app.raise_error('not_found', 'Registration not found.');
    end if;
  end if;
  insert into app.api_keys (account_id, name, prefix, key_hash, scopes, expires_at, tournament_id, registration_id, max_uses)
  values (v_account, coalesce(btrim(p_name), case when p_registration_id is null then 'Sign-up token' else 'Registration token' end),
          left(v_token, 12), sha256(convert_to(v_token, 'UTF8')),
          array(select distinct s from unnest(p_scopes) s order by s)::app.scope[], p_expires_at, p_tournament_id,
          p_registration_id, p_max_uses)
  returning * into v_k;
  return jsonb_build_object('token', v_token) || app.token_document(v_k);
end
$$;
comment on function app.mint_token(uuid, uuid, text, text[], timestamptz, int) is
  'Mints a participant token of a tournament of the bound account; returns its plaintext once.';

-- POST /tournaments/{id}/registrations/{registration_id}/tokens: a registration token. The
-- body's shape (name, scopes of the registration kind, expires_at) is the function's.
create function app.create_registration_token(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_scopes text[];
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "registration_id": "uuid"}');
  perform app.check_input(v_body, '{"expires_at": "timestamptz"}');
  v_scopes := case when jsonb_typeof(v_body -> 'scopes') = 'array' then array(select jsonb_array_elements_text(v_body -> 'scopes'))
                   else array['participant:lineup', 'participant:check_in', 'participant:withdraw', 'participant:report'] end;
  if cardinality(v_scopes) = 0 or not v_scopes <@ array['participant:lineup', 'participant:check_in', 'participant:withdraw', 'participant:report'] then
    perform app.raise_invalid('scopes', 'must be one or more of participant:lineup, participant:check_in, participant:withdraw, participant:report');
  end if;
  if (v_body ->> 'expires_at')::timestamptz <= now() then -- input before existence
    perform app.raise_invalid('expires_at', 'must be in the future');
  end if;
  return app.mint_token((p_args ->> 'tournament_id')::uuid, (p_args ->> 'registration_id')::uuid, v_body ->> 'name',
                        v_scopes, (v_body ->> 'expires_at')::timestamptz, null)::json;
end
$$;

-- POST /tournaments/{id}/signup-tokens: a sign-up token (participant:register), for max_uses
-- registrations (null: unlimited).
create function app.create_signup_token(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_body jsonb := coalesce(p_args -> 'body', '{}');
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(v_body, '{"expires_at": "timestamptz", "max_uses": "int"}');
  if (v_body ->> 'max_uses')::int not between 1 and 10000 then
    perform app.raise_invalid('max_uses', 'must be an integer from 1 to 10000, or null');
  end if;
  if (v_body ->> 'expires_at')::timestamptz <= now() then -- input before existence
    perform app.raise_invalid('expires_at', 'must be in the future');
  end if;
  return app.mint_token((p_args ->> 'tournament_id')::uuid, null, v_body ->> 'name', array['participant:register'],
                        (v_body ->> 'expires_at')::timestamptz, (v_body ->> 'max_uses')::int)::json;
end
$$;

-- GET /tournaments/{id}/tokens: the tournament's participant tokens, newest first. Security
-- definer (api_keys); the tournament must be the bound account's.
create function app.list_participant_tokens(p_args jsonb) returns json
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  if not exists (select from app.tournaments t
                  where t.id = (p_args ->> 'tournament_id')::uuid and t.account_id = app.current_account_id()) then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  return (select coalesce(json_agg(app.token_document(k) order by k.created_at desc, k.id), '[]')
            from app.api_keys k
           where k.tournament_id = (p_args ->> 'tournament_id')::uuid and k.revoked_at is null);
end
$$;

-- DELETE /tournaments/{id}/tokens/{token_id}: revokes (deletes) one; effective on its next
-- request. Security definer (api_keys); the tournament must be the bound account's.
create function app.revoke_participant_token(p_args jsonb) returns json
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid", "token_id": "uuid"}');
  delete from app.api_keys k
   using app.tournaments t
   where k.id = (p_args ->> 'token_id')::uuid and k.tournament_id = (p_args ->> 'tournament_id')::uuid
     and t.id = k.tournament_id and t.account_id = app.current_account_id();
  if not found then
    perform app.raise_error('not_found', 'Token not found.');
  end if;
  return json_build_object('message', 'Token revoked');
end
$$;

-- The calling token as GET /participant shows it. Security definer (api_keys): api.call passes
-- the id of the token it has just checked.
create function app.token_summary(p_token_id uuid) returns json
language plpgsql stable security definer
set search_path = ''
as $$
begin
  return (select json_build_object('id', k.id, 'name', k.name, 'scopes', k.scopes, 'expires_at', app.iso(k.expires_at))
            from app.api_keys k
           where k.id = p_token_id and k.account_id = app.current_account_id());
end
$$;

-- Takes one use of a sign-up token (409 token_exhausted past max_uses). The row's lock orders
-- the token's sign-ups; a sign-up that fails gives its use back (its subtransaction rolls back).
-- Security definer (api_keys).
create function app.use_signup_token(p_token_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  update app.api_keys k set uses = k.uses + 1
   where k.id = p_token_id and k.account_id = app.current_account_id()
     and (k.max_uses is null or k.uses < k.max_uses);
  if not found then
    perform app.check_signup_token(p_token_id);
  end if;
end
$$;

-- 409 token_exhausted when the sign-up token has no use left, read only: a sign-up asks it
-- first, in its place among the checks, and takes its use (app.use_signup_token) under the
-- tournament's lock, which comes before the token's row in every transaction that takes both.
-- Security definer (api_keys).
create function app.check_signup_token(p_token_id uuid) returns void
language plpgsql stable security definer
set search_path = ''
as $$
begin
  perform from app.api_keys k
   where k.id = p_token_id and k.account_id = app.current_account_id()
     and (k.max_uses is null or k.uses < k.max_uses);
  if not found then
    perform app.raise_error('token_exhausted', 'This sign-up token has been used as many times as it may be.');
  end if;
end
$$;

-- GET /participant: the token, its tournament as the public view shows it (whatever its
-- visibility), and its registration (null for a sign-up token).
create function app.participant_me(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
begin
  return json_build_object(
    'token', app.token_summary((p_args ->> 'token_id')::uuid),
    'tournament', (select d.doc from app.tournament_documents d where d.id = (p_args ->> 'tournament_id')::uuid),
    'registration', (select d.doc from app.registration_documents d where d.id = (p_args ->> 'registration_id')::uuid));
end
$$;

-- A player of the tournament's account named by a participant: by {handle, country?,
-- external_id?}, the account's player with that external_id (its handle and country updated, as
-- PATCH /players does) or a new one. Shapes are the function's.
create function app.participant_player(p_entry jsonb) returns uuid
language plpgsql volatile
set search_path = ''
as $$
declare
  v_id uuid;
begin
  if p_entry ? 'external_id' then
    insert into app.players (account_id, handle, country, external_id)
    values (app.current_account_id(), btrim(p_entry ->> 'handle'), p_entry ->> 'country', p_entry ->> 'external_id')
    on conflict (account_id, external_id) do nothing
    returning id into v_id;
    if v_id is null then -- that player: updated (its open lineups follow)
      select p.id into v_id from app.players p
       where p.account_id = app.current_account_id() and p.external_id = p_entry ->> 'external_id';
      perform app.update_player(jsonb_build_object('player_id', v_id,
        'body', jsonb_build_object('handle', p_entry ->> 'handle') || (p_entry - 'handle' - 'external_id' - 'role' - 'captain')));
    end if;
  else
    insert into app.players (account_id, handle, country)
    values (app.current_account_id(), btrim(p_entry ->> 'handle'), p_entry ->> 'country')
    returning id into v_id;
  end if;
  return v_id;
end
$$;

-- A participant's lineup entries with each player resolved: [{player_id, role, captain}]. An
-- entry by player_id must name a player of the registration's lineup or of its team's roster
-- (400 naming it); one by handle is app.participant_player's.
create function app.participant_entries(p_r app.registrations, p_entries jsonb, p_field text) returns jsonb
language plpgsql volatile
set search_path = ''
as $$
declare
  v_out jsonb := '[]';
  v_player uuid;
begin
  for v_i in 0 .. coalesce(jsonb_array_length(p_entries), 0) - 1 loop
    if p_entries -> v_i ? 'player_id' then
      v_player := (p_entries -> v_i ->> 'player_id')::uuid;
      if not exists (select from app.lineup_entries e where e.registration_id = p_r.id and e.player_id = v_player)
         and not exists (select from app.team_members m where m.team_id = p_r.team_id and m.player_id = v_player) then
        perform app.raise_invalid(format('%s[%s].player_id', p_field, v_i), 'is not a player of this registration''s lineup or roster');
      end if;
    else
      v_player := app.participant_player(p_entries -> v_i);
    end if;
    if v_out @> jsonb_build_array(jsonb_build_object('player_id', v_player)) then
      perform app.raise_invalid(format('%s[%s]', p_field, v_i), 'names the same player as an earlier entry');
    end if;
    v_out := v_out || jsonb_build_array(jsonb_build_object('player_id', v_player, 'role', p_entries -> v_i ->> 'role',
      'captain', coalesce((p_entries -> v_i ->> 'captain')::boolean, false)));
  end loop;
  return v_out;
end
$$;

-- POST /participant/registrations (participant:register): the team, its players (its roster,
-- in lineup order) and the registration, in the tournament's account, in one transaction, under
-- section 4's checks in order (app.entry_state: a sign-up is pending when the tournament asks for
-- approval) and section 16's lineup rules; then a registration token for the team, shown once.
-- The team, its players and their checks come before the tournament's row lock, which is held to
-- the commit: under the lock, only the slot and the registration (its lineup the roster's copy,
-- app.register), so that a rush of sign-ups waits on each other for no more than that. A lineup
-- naming a player by external_id may update that player and with it the lineups of its
-- tournaments (their versions): that sign-up takes the lock first, in the order an organiser's
-- lineup PUT takes them.
create function app.participant_signup(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_id uuid := (p_args ->> 'tournament_id')::uuid;
  v_body jsonb := coalesce(p_args -> 'body', '{}');
  v_lineup jsonb := coalesce(v_body -> 'lineup', '[]');
  v_early boolean := not jsonb_path_exists(v_lineup, '$[*].external_id');
  v_t app.tournaments;
  v_f record;
  v_team app.teams;
  v_r app.registrations;
  v_entries jsonb;
begin
  if v_early then
    select * into v_t from app.tournaments where id = v_id;
    if not found then
      perform app.raise_error('not_found', 'Tournament not found.');
    end if;
  else
    v_t := app.lock_tournament(v_id);
  end if;
  perform app.check_signup_token((p_args ->> 'token_id')::uuid);
  select * into v_f from app.team_fields(coalesce(v_body -> 'team', '{}'));
  insert into app.teams (name, tag, logo_url, account_id)
  values (v_f.name, v_f.tag, v_f.logo_url, v_t.account_id)
  returning * into v_team;
  perform app.entry_state(v_t, v_team, true);
  v_r.team_id := v_team.id; -- the registration to come: no lineup and no roster yet
  v_entries := app.participant_entries(v_r, v_lineup, 'lineup');
  perform app.check_lineup(v_t, null, v_entries, 'lineup');
  insert into app.team_members (team_id, player_id, account_id, role, captain)
  select v_team.id, (o.v ->> 'player_id')::uuid, v_t.account_id, o.v ->> 'role', (o.v ->> 'captain')::boolean
    from jsonb_array_elements(v_entries) with ordinality as o (v, i)
   order by o.i;
  if v_early then
    v_t := app.lock_tournament(v_id);
  end if;
  perform app.use_signup_token((p_args ->> 'token_id')::uuid);
  v_r := app.register(v_t, v_team, true);
  return json_build_object(
    'registration', (select d.doc from app.registration_documents d where d.id = v_r.id),
    'token', app.mint_token(v_t.id, v_r.id, null,
                            array['participant:lineup', 'participant:check_in', 'participant:withdraw', 'participant:report'],
                            null, null));
end
$$;
comment on function app.participant_signup(jsonb) is
  'A sign-up: team, players, roster and registration in one transaction, and a registration token for the team.';

-- A response holding a new token's secret (a sign-up's, a minted token's) as its Idempotency-Key
-- keeps it (app.idempotency_save): without the secret, since only a token's SHA-256 is ever stored.
create function app.token_kept(p_op text, p_result json) returns json
language plpgsql immutable
set search_path = ''
as $$
begin
  return case p_op when 'participant.signup' then jsonb_set(p_result::jsonb, '{token,token}', 'null')
                   else jsonb_set(p_result::jsonb, '{token}', 'null') end::json;
end
$$;

-- Such a response replayed (the same Idempotency-Key and body: its first answer was lost, and
-- its secret with it): a sign-up's registration, or the registration a token was minted for, gets
-- another registration token (the first one still works and is in the organiser's list); a
-- sign-up token is replaced by one with the same name, uses, max_uses and expiry (the first one
-- is revoked: two would double its uses). Nothing new when what it was for is gone.
create function app.token_replayed(p_op text, p_result json) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_token jsonb := case p_op when 'participant.signup' then p_result::jsonb -> 'token' else p_result::jsonb end;
  v_new jsonb;
begin
  if not exists (select from app.tournaments t where t.id = (v_token ->> 'tournament_id')::uuid)
     or (v_token ->> 'registration_id' is not null
         and not exists (select from app.registrations r where r.id = (v_token ->> 'registration_id')::uuid)) then
    return p_result;
  end if;
  if v_token ->> 'registration_id' is null then
    v_new := app.replace_signup_token((v_token ->> 'id')::uuid);
  else
    v_new := app.mint_token((v_token ->> 'tournament_id')::uuid, (v_token ->> 'registration_id')::uuid, v_token ->> 'name',
                            array(select jsonb_array_elements_text(v_token -> 'scopes')), (v_token ->> 'expires_at')::timestamptz, null);
  end if;
  if v_new is null then
    return p_result;
  end if;
  return case p_op when 'participant.signup' then jsonb_set(p_result::jsonb, '{token}', v_new) else v_new end::json;
end
$$;

-- A sign-up token replaced (app.token_replayed): the same fields and uses under a new secret,
-- the old one deleted; null when it is gone (revoked meanwhile). Security definer (api_keys).
create function app.replace_signup_token(p_id uuid) returns jsonb
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_old app.api_keys;
  v_new jsonb;
begin
  delete from app.api_keys k where k.id = p_id and k.account_id = app.current_account_id() and k.registration_id is null
  returning * into v_old;
  if not found then
    return null;
  end if;
  v_new := app.mint_token(v_old.tournament_id, null, v_old.name, v_old.scopes::text[],
                          case when v_old.expires_at > now() then v_old.expires_at end, v_old.max_uses);
  update app.api_keys k set uses = v_old.uses where k.id = (v_new ->> 'id')::uuid;
  return v_new || jsonb_build_object('uses', v_old.uses);
end
$$;

-- PUT /participant/lineup (participant:lineup): section 16's lineup PUT for the token's
-- registration, players named by id (of its lineup or roster) or by handle.
create function app.participant_lineup(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_l record;
begin
  select l.t, l.r into v_l from app.lock_registration(p_args) l;
  if (v_l.t).status <> 'registration' then
    perform app.raise_error('tournament_locked', format('The lineup cannot change while the tournament is %s.', (v_l.t).status));
  end if;
  perform app.set_lineup(v_l.t, v_l.r, app.participant_entries(v_l.r, coalesce(p_args #> '{body,players}', '[]'), 'players'),
                         'players');
  return (select d.doc from app.registration_documents d where d.id = (v_l.r).id);
end
$$;

-- GET /participant/matches: the registration's matches as the results show them (none for a
-- sign-up token, or before the start).
create function app.participant_matches(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_team text := (select r.team_id::text from app.registrations r where r.id = (p_args ->> 'registration_id')::uuid);
begin
  if v_team is null then
    return '[]';
  end if;
  return (select coalesce(json_agg(m.v order by m.i), '[]')
            from json_array_elements(app.tournament_results(jsonb_build_object('tournament_id', p_args ->> 'tournament_id')) -> 'matches')
                 with ordinality as m (v, i)
           where m.v ->> 'team1_id' = v_team or m.v ->> 'team2_id' = v_team
              or (json_typeof(m.v -> 'opponents') = 'array' -- a free-for-all lobby it plays in (contract section 20)
                  and exists (select from json_array_elements(m.v -> 'opponents') o where o ->> 'team_id' = v_team)));
end
$$;

-- ----------------------------------------------------------------------------
-- reported results (contract section 18): a registration token reports its team's ready
-- match, the opponent confirms or disputes; the agreed result is applied by the organiser's own
-- functions (app.report_match, app.change_game), with every rule of the moment.
-- ----------------------------------------------------------------------------
-- The match a token reports on, under the tournament's row lock: a match of its tournament
-- that its team plays (404 otherwise) and its side (1 or 2); then, in this order, 409
-- reporting_closed for a free-for-all lobby (contract section 20: the organiser reports it), 409
-- match_not_ready (not ready) and 409 reporting_closed (the tournament's reporting is off).
create function app.reporting_match(p_args jsonb, out t app.tournaments, out m app.matches, out side int)
language plpgsql volatile
set search_path = ''
as $$
declare
  v_team uuid;
begin
  perform app.check_input(p_args, '{"match_id": "uuid"}');
  t := app.lock_tournament((p_args ->> 'tournament_id')::uuid);
  select r.team_id into v_team from app.registrations r where r.id = (p_args ->> 'registration_id')::uuid;
  select * into m from app.matches x
   where x.id = (p_args ->> 'match_id')::uuid and x.tournament_id = t.id
     and (v_team in (x.team1_id, x.team2_id) or x.opponents @> jsonb_build_array(jsonb_build_object('team_id', v_team)));
  if not found then
    perform app.raise_error('not_found', 'Match not found.');
  end if;
  if m.opponents is not null then
    perform app.raise_error('reporting_closed',
      'A free-for-all lobby is reported by the organiser; participants report two-sided matches only.');
  end if;
  side := case when m.team1_id = v_team then 1 else 2 end;
  if m.status <> 'ready' then
    perform app.raise_error('match_not_ready', format('This match is %s: it takes no report.', m.status));
  end if;
  if t.participant_reporting <> 'confirm' then
    perform app.raise_error('reporting_closed', 'Participants do not report results in this tournament.');
  end if;
end
$$;

-- A side's report entry from the body it sent: {result, evidence_url, note, reported_at,
-- dispute}. The body's shape is the function's; here, what needs the match: a forfeit is the
-- side's own (400 naming forfeit), a best-of-n result is a series score, and games are a whole
-- decided series (400 naming games).
create function app.report_entry(p_m app.matches, p_side int, p_body jsonb, p_at timestamptz) returns jsonb
language plpgsql stable
set search_path = ''
as $$
declare
  v_result jsonb := p_body - 'evidence_url' - 'note';
  v_need int := p_m.best_of / 2 + 1;
  -- (contract section 19: a draw only where the match's stage allows draws)
  v_draws boolean := app.stage_draws(app.stage_of((select t from app.tournaments t where t.id = p_m.tournament_id), p_m.stage));
  v_problem text;
  v_w1 int := 0;
  v_w2 int := 0;
  v_n int := 0;
  v_game jsonb;
begin
  if v_result ? 'forfeit' and v_result ->> 'forfeit' <> 'team' || p_side then
    perform app.raise_invalid('forfeit', format('must be "team%s": a side reports its own forfeit only', p_side));
  end if;
  if v_result ? 'team1_score' then
    v_problem := app.series_result_problem(p_m.best_of, v_draws, (v_result ->> 'team1_score')::int,
                                           (v_result ->> 'team2_score')::int);
    if v_problem is not null then
      perform app.raise_invalid(case when v_result -> 'team1_score' = v_result -> 'team2_score' then 'team2_score'
                                     else 'team1_score' end, v_problem);
    end if;
  end if;
  if v_result ? 'games' then
    for v_game in select g from jsonb_array_elements(v_result -> 'games') g loop
      if greatest(v_w1, v_w2) = v_need or v_n = p_m.best_of then
        perform app.raise_invalid('games', format('the series is decided after game %s: no game %s', v_n, v_n + 1));
      end if;
      v_n := v_n + 1;
      if (v_game ->> 'team1_score')::int > (v_game ->> 'team2_score')::int then v_w1 := v_w1 + 1; else v_w2 := v_w2 + 1; end if;
    end loop;
    if greatest(v_w1, v_w2) < v_need and not (v_n = p_m.best_of and v_w1 = v_w2 and v_draws) then
      perform app.raise_invalid('games', format('must be a whole decided series: a best of %s is won at %s games%s', p_m.best_of,
        v_need, case when v_draws and p_m.best_of % 2 = 0 then ' or drawn after all of them' else '' end));
    end if;
    v_result := jsonb_build_object('games', (select jsonb_agg(jsonb_build_object('team1_score', g -> 'team1_score',
      'team2_score', g -> 'team2_score', 'map', coalesce(g -> 'map', 'null')) order by i)
      from jsonb_array_elements(v_result -> 'games') with ordinality as x (g, i)));
  end if;
  return jsonb_build_object('result', v_result, 'evidence_url', coalesce(p_body -> 'evidence_url', 'null'),
    'note', coalesce(p_body -> 'note', 'null'), 'reported_at', app.iso(p_at), 'dispute', null);
end
$$;

-- Applies an agreed report (p_report, its state still open) as the organiser's own result would
-- be, by the same functions, then marks it confirmed (p_by: opponent or timeout). A rule of the
-- moment that refuses it (a locked match, a decided series) leaves the match as it was and the
-- report disputed, with the rule's message as its note: the organiser decides.
create function app.apply_report(p_t app.tournaments, p_m app.matches, p_report jsonb, p_by text) returns void
language plpgsql volatile
set search_path = ''
as $$
declare
  v_result jsonb := coalesce(p_report #> '{team1,result}', p_report #> '{team2,result}');
  v_note text;
  v_detail text;
begin
  if jsonb_typeof(p_report #> '{team1,result}') is distinct from 'object' then
    v_result := p_report #> '{team2,result}';
  end if;
  perform set_config('app.applying_report', 'on', true);
  begin
    if v_result ? 'games' then
      for v_i in 0 .. jsonb_array_length(v_result -> 'games') - 1 loop
        perform app.change_game(jsonb_build_object('tournament_id', p_t.id, 'match_id', p_m.id, 'number', v_i + 1,
                                                   'body', v_result -> 'games' -> v_i));
      end loop;
    else
      perform app.report_match(jsonb_build_object('tournament_id', p_t.id, 'match_id', p_m.id, 'body', v_result));
    end if;
  exception when sqlstate 'P0001' then
    -- (an API error: its message, and its fields' when it names any, say why)
    get stacked diagnostics v_note = message_text, v_detail = pg_exception_detail;
    if v_detail like '[%' then
      v_note := v_note || ' ' || (select string_agg(d ->> 'field' || ': ' || (d ->> 'message'), '; ')
                                    from jsonb_array_elements(v_detail::jsonb) d);
    end if;
  end;
  perform set_config('app.applying_report', '', true);
  perform app.set_report(p_m.id, p_report || case when v_note is null
    then jsonb_build_object('state', 'confirmed', 'resolved_by', p_by)
    else jsonb_build_object('state', 'disputed', 'note', 'The report could not be applied: ' || v_note) end);
end
$$;

-- POST /participant/matches/{match_id}/report (participant:report): a first report (awaiting
-- confirmation until report_confirm_minutes from now), the reporter's replacement (a new
-- deadline), or the opponent's own report: the same result confirms (applied), another disputes.
-- A confirmed, disputed or resolved report is closed to participants (409 reporting_closed); a
-- void one gives way to a new first report.
create function app.participant_report(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v record;
  v_me text;
  v_them text;
  v_entry jsonb;
  v_r jsonb;
  v_now timestamptz := clock_timestamp();
  v_deadline text;
begin
  select * into v from app.reporting_match(p_args);
  v_me := 'team' || v.side;
  v_them := 'team' || (3 - v.side);
  v_entry := app.report_entry(v.m, v.side, coalesce(p_args -> 'body', '{}'), v_now);
  v_r := (v.m).report;
  v_deadline := app.iso(v_now + make_interval(mins => (v.t).report_confirm_minutes));
  if (v.m).report_state is null or (v.m).report_state = 'void' then
    perform app.set_report((v.m).id, jsonb_build_object('state', 'awaiting_confirmation', v_me, v_entry, v_them, null,
      'confirm_by', v_deadline, 'resolved_by', null, 'note', null));
  elsif (v.m).report_state = 'awaiting_confirmation' and jsonb_typeof(v_r #> array[v_me, 'result']) = 'object' then
    perform app.set_report((v.m).id, v_r || jsonb_build_object(v_me, v_entry, 'confirm_by', v_deadline));
  elsif (v.m).report_state = 'awaiting_confirmation' and v_entry -> 'result' = v_r #> array[v_them, 'result'] then
    perform app.apply_report(v.t, v.m, v_r || jsonb_build_object(v_me, v_entry), 'opponent');
  elsif (v.m).report_state = 'awaiting_confirmation' then
    perform app.set_report((v.m).id, v_r || jsonb_build_object(v_me, v_entry, 'state', 'disputed'));
  else
    perform app.raise_error('reporting_closed', format('This match''s report is %s: only the organiser decides it now.', (v.m).report_state));
  end if;
  return (select d.doc from app.match_documents d where d.id = (v.m).id);
end
$$;

-- POST .../report/confirm (participant:report): the opponent of the side that reported agrees;
-- the report is applied. Anything else (no report, one's own, a closed one) is 409
-- reporting_closed.
create function app.participant_confirm(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v record;
begin
  select * into v from app.reporting_match(p_args);
  if (v.m).report_state is distinct from 'awaiting_confirmation'
     or jsonb_typeof((v.m).report #> array['team' || (3 - v.side), 'result']) is distinct from 'object' then
    perform app.raise_error('reporting_closed', case when (v.m).report_state = 'awaiting_confirmation'
      then 'A side cannot confirm its own report; the other side confirms it.'
      else format('There is no report awaiting your confirmation (the report is %s).', coalesce((v.m).report_state, 'not made')) end);
  end if;
  perform app.apply_report(v.t, v.m, (v.m).report, 'opponent');
  return (select d.doc from app.match_documents d where d.id = (v.m).id);
end
$$;

-- POST .../report/dispute (participant:report) {note?, evidence_url?}: the opponent of the side
-- that reported disagrees, or a side disputes before anyone reported (its entry then has
-- result null); nothing is applied and only the organiser decides the match from then on.
create function app.participant_dispute(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v record;
  v_me text;
  v_dispute jsonb;
  v_blank jsonb := jsonb_build_object('result', null, 'evidence_url', null, 'note', null, 'reported_at', null, 'dispute', null);
begin
  select * into v from app.reporting_match(p_args);
  v_me := 'team' || v.side;
  v_dispute := jsonb_build_object('note', coalesce(p_args #> '{body,note}', 'null'),
    'evidence_url', coalesce(p_args #> '{body,evidence_url}', 'null'), 'at', app.iso(clock_timestamp()));
  if (v.m).report_state is null or (v.m).report_state = 'void' then
    perform app.set_report((v.m).id, jsonb_build_object('state', 'disputed', v_me, v_blank || jsonb_build_object('dispute', v_dispute),
      'team' || (3 - v.side), null, 'confirm_by', null, 'resolved_by', null, 'note', null));
  elsif (v.m).report_state = 'awaiting_confirmation' and jsonb_typeof((v.m).report #> array[v_me, 'result']) is distinct from 'object' then
    perform app.set_report((v.m).id, (v.m).report || jsonb_build_object('state', 'disputed',
      v_me, coalesce(nullif((v.m).report -> v_me, 'null'), v_blank) || jsonb_build_object('dispute', v_dispute)));
  else
    perform app.raise_error('reporting_closed', case when (v.m).report_state = 'awaiting_confirmation'
      then 'A side cannot dispute its own report; replace it instead.'
      else format('This match''s report is %s: only the organiser decides it now.', (v.m).report_state) end);
  end if;
  return (select d.doc from app.match_documents d where d.id = (v.m).id);
end
$$;

-- The reports past their deadline, oldest first, of every account (the worker's sweep).
-- Security definer (the migration role reads every account's matches).
create function app.due_reports(p_limit int)
returns table (match_id uuid, tournament_id uuid, account_id uuid)
language sql stable security definer
set search_path = ''
as $$
  select m.id, m.tournament_id, m.account_id from app.matches m
   where m.report_state = 'awaiting_confirmation' and m.report_confirm_by <= clock_timestamp()
   order by m.report_confirm_by
   limit p_limit
$$;

-- The worker's sweep (locally the dispatcher, hosted its Cron job): every report past its
-- deadline is applied as confirmed (resolved_by timeout), up to p_limit, each in its account and
-- under its tournament's row lock, checked again there. A tournament another worker (or a
-- request) holds is skipped (SKIP LOCKED): its reports are due again at the next sweep. Exactly
-- once however many workers sweep. Runs as tournament_api_owner (no BYPASSRLS); returns how many
-- were applied.
create function webhooks.confirm_due_reports(p_limit int default 100) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_due record;
  v_t app.tournaments;
  v_m app.matches;
  v_n int := 0;
begin
  for v_due in select * from app.due_reports(p_limit) loop
    perform set_config('app.account_id', v_due.account_id::text, true);
    select * into v_t from app.tournaments t where t.id = v_due.tournament_id for no key update skip locked;
    continue when not found;
    select * into v_m from app.matches m where m.id = v_due.match_id;
    if v_m.report_state = 'awaiting_confirmation' and v_m.report_confirm_by <= clock_timestamp() and v_m.status = 'ready' then
      begin
        perform app.apply_report(v_t, v_m, v_m.report, 'timeout');
      exception when others then
        -- Not an API rule (app.apply_report answers those): a fault. The report is left
        -- disputed for the organiser rather than blocking every later one at each sweep.
        raise warning 'report of match % could not be applied: %', v_m.id, sqlerrm;
        perform app.set_report(v_m.id, v_m.report || jsonb_build_object('state', 'disputed',
          'note', 'The report could not be applied automatically; the organiser decides.'));
      end;
      v_n := v_n + 1;
    end if;
  end loop;
  perform set_config('app.account_id', '', true);
  return v_n;
end
$$;
comment on function webhooks.confirm_due_reports(int) is
  'The worker''s sweep: reports past their confirm_by applied as confirmed (timeout), exactly once.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.mint_token(uuid, uuid, text, text[], timestamptz, int) to tournament_api_owner;
grant execute on function app.create_registration_token(jsonb) to tournament_api_owner;
grant execute on function app.create_signup_token(jsonb) to tournament_api_owner;
grant execute on function app.list_participant_tokens(jsonb) to tournament_api_owner;
grant execute on function app.revoke_participant_token(jsonb) to tournament_api_owner;
grant execute on function app.token_summary(uuid) to tournament_api_owner;
grant execute on function app.use_signup_token(uuid) to tournament_api_owner;
grant execute on function app.check_signup_token(uuid) to tournament_api_owner;
grant execute on function app.participant_me(jsonb) to tournament_api_owner;
grant execute on function app.participant_player(jsonb) to tournament_api_owner;
grant execute on function app.participant_entries(app.registrations, jsonb, text) to tournament_api_owner;
grant execute on function app.participant_signup(jsonb) to tournament_api_owner;
grant execute on function app.participant_lineup(jsonb) to tournament_api_owner;
grant execute on function app.participant_matches(jsonb) to tournament_api_owner;
grant execute on function app.token_kept(text, json) to tournament_api_owner;
grant execute on function app.token_replayed(text, json) to tournament_api_owner;
grant execute on function app.replace_signup_token(uuid) to tournament_api_owner;
grant execute on function app.reporting_match(jsonb) to tournament_api_owner;
grant execute on function app.report_entry(app.matches, int, jsonb, timestamptz) to tournament_api_owner;
grant execute on function app.apply_report(app.tournaments, app.matches, jsonb, text) to tournament_api_owner;
grant execute on function app.participant_report(jsonb) to tournament_api_owner;
grant execute on function app.participant_confirm(jsonb) to tournament_api_owner;
grant execute on function app.participant_dispute(jsonb) to tournament_api_owner;
grant execute on function app.due_reports(int) to tournament_api_owner;
-- The sweep runs as tournament_api_owner, which holds the operations' privileges; the worker's
-- role (tournament_webhooks) may execute it and nothing more of the API's.
grant execute on function webhooks.confirm_due_reports(int) to tournament_webhooks;
grant create on schema webhooks to tournament_api_owner;
alter function webhooks.confirm_due_reports(int) owner to tournament_api_owner;
revoke create on schema webhooks from tournament_api_owner;
