-- The API's door: api.call, the one function the `api` edge function's role (tournament_api)
-- may execute. One request is one statement: the key (401), the account (403), the rate limit
-- (429), the scope (403), the operation with its Idempotency-Key, and the count, in one
-- transaction. It runs as tournament_api_owner (security definer), which holds exactly the
-- privileges the operations need and no BYPASSRLS, after binding the key's account. The
-- operations are listed once, in app.operation; each lives in its area's file (02 to 23).

-- ============================================================================
-- functions
-- ============================================================================
-- The operations, listed once: each one's name, the scope it needs (null: any valid key),
-- whether it writes (then its commit waits for the WAL flush), the function that runs it, and
-- for those about one tournament, the argument naming it (tournament_arg: its version is the
-- ETag, If-None-Match and If-Match compare with it; contract section 14).
-- api.call asks twice: for the scope and the write flag before the key's checks (p_run false),
-- then to run it (p_run true). Dispatch stays a static `case` over named functions, which
-- plpgsql_check and readers can follow.
create function app.operation(p_op text, p_args jsonb, p_key_id uuid, p_run boolean,
                              out scope text, out writes boolean, out result json, out tournament_arg text)
language plpgsql volatile
set search_path = ''
as $$
begin
  -- A participant token's operations (contract section 17) first, by their prefix: p_args carry
  -- its tournament_id, registration_id and token_id, put there by api.call. (One case of their
  -- own, so that neither kind walks the other's list: each WHEN costs about a microsecond.)
  if p_op like 'participant.%' then
    case p_op
      when 'participant.get'       then scope := null;                   writes := false; if p_run then result := app.participant_me(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.matches'   then scope := null;                   writes := false; if p_run then result := app.participant_matches(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.signup'    then scope := 'participant:register'; writes := true;  if p_run then result := app.participant_signup(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.lineup'    then scope := 'participant:lineup';   writes := true;  if p_run then result := app.participant_lineup(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.check_in'  then scope := 'participant:check_in'; writes := true;  if p_run then result := app.update_registration(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.report'    then scope := 'participant:report';   writes := true;  if p_run then result := app.participant_report(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.confirm'   then scope := 'participant:report';   writes := true;  if p_run then result := app.participant_confirm(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.dispute'   then scope := 'participant:report';   writes := true;  if p_run then result := app.participant_dispute(p_args); end if; tournament_arg := 'tournament_id';
      when 'participant.withdraw'  then scope := 'participant:withdraw'; writes := true;  if p_run then result := app.delete_registration(p_args); end if; tournament_arg := 'tournament_id';
      else raise exception 'unknown operation %', p_op using errcode = '22023';
    end case;
    return;
  end if;
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
    when 'tokens.list'           then scope := 'read:registrations';   writes := false; if p_run then result := app.list_participant_tokens(p_args); end if;
    when 'tokens.create'         then scope := 'write:registrations';  writes := true;  if p_run then result := app.create_registration_token(p_args); end if; tournament_arg := 'tournament_id';
    when 'signup_tokens.create'  then scope := 'write:registrations';  writes := true;  if p_run then result := app.create_signup_token(p_args); end if;
    when 'tokens.delete'         then scope := 'write:registrations';  writes := true;  if p_run then result := app.revoke_participant_token(p_args); end if;
    else raise exception 'unknown operation %', p_op using errcode = '22023';
  end case;
end
$$;
comment on function app.operation(text, jsonb, uuid, boolean) is
  'Every operation api.call runs: its scope, whether it writes, and (p_run) running it.';

-- One API request is one statement, `select ... from api.call(...)`, so one transaction:
-- behind Supavisor's transaction mode any pooled connection serves any request. api.call runs
-- as its owner, tournament_api_owner (security definer; no BYPASSRLS, so row-level security
-- applies to every operation), and reads top to bottom in the contract's order of checks:
--
--   key (401) -> account enabled (403) -> rate limit (429) -> scope (403) -> operation -> count
--
-- The key is an API key (`tmk_`) for the organiser's operations, or a participant token (`tpt_`,
-- a row of api_keys with a tournament: contract section 17) for the participant.* operations;
-- either kind on the other's operations is 401, as an unknown key. A participant operation's
-- arguments gain the token's tournament_id, registration_id and token_id. Who made the request
-- (app.actor, transaction-local) goes into every webhook event it causes.
--
-- The account is bound by api.call itself (app.account_id, transaction-local) after the key
-- check; it first clears whatever the caller set, so a caller who runs
-- `select set_config('app.account_id', X, true)` before api.call in the same transaction binds
-- nothing.
--
-- The rate limit (app.rate_limits, a ring of 100 slots per key):
-- - An unlocked read up front answers 429 when the oldest of the last 100 counted requests is
--   younger than 60 s: slots only ever get newer, so a window full in any snapshot is full for
--   certain. That 429 takes no lock and writes nothing.
-- - The request is counted last, after the operation, by one conditional upsert
--   (app.count_request) that overwrites the oldest slot only if it is older than 60 s. The ring
--   row's lock is held from there to commit, a few microseconds, so one key's slow request
--   never queues its other requests. ON
--   CONFLICT DO UPDATE locks the row before it evaluates its WHERE and SET, so the clock is read
--   after any wait for the lock: exact under concurrency, and RateLimit-Reset is at most 60.
-- - If the window filled up while the operation ran, the upsert changes nothing and api.call
--   raises SQLSTATE TA429 (hint rate_limited, the limit's state as JSON in the detail): the
--   whole transaction, the operation's writes included, rolls back, and the function answers
--   429. So a 429 never counts and never writes.
-- - The operation runs in a subtransaction (app.run_operation's BEGIN ... EXCEPTION block),
--   the one way in a single statement that a failed operation's partial writes are undone
--   while its request is still counted (contract 6: every request past the key check counts). Measured: entering
--   and leaving one costs ~1.5 µs (200,000 in 0.31 s more than plain PERFORM), under 0.5% of
--   a GET's time in Postgres.
-- - Conditional requests (contract section 14; p_conditions {if_match, if_none_match}, each a
--   list of versions, or null: `*`): a read of a tournament or what hangs off it with
--   If-None-Match reads the version first and, when it is named, answers not_modified without
--   running the operation; otherwise the read's version (the ETag) is read before and after
--   it, and the read is taken again if a write committed in between. A write with If-Match compares under the tournament's row
--   lock inside the operation's subtransaction (412 precondition_failed, nothing changed), and
--   answers the version it leaves.
-- - Reads commit without waiting for the WAL flush (synchronous_commit off, transaction-local):
--   a crash could forget a few counted requests, never a write. Writing operations switch it
--   back on.
-- Runs one operation in a subtransaction (a BEGIN ... EXCEPTION block), so that a failed
-- operation's partial writes are undone while its request is still counted: its result and
-- version (the ETag), or its error as the API answers it. A write with If-Match compares first,
-- under the tournament's row lock; a read's version is the same before and after it. Serialization failures, deadlocks and timeouts are raised again (503), and a
-- refusal of the rate-limit kind becomes SQLSTATE TA429 (429). For api.call.
create function app.run_operation(p_op text, p_args jsonb, p_key_id uuid, p_writes boolean, p_arg text,
                                  p_conditions jsonb, p_limit int,
                                  out result json, out error json, out version bigint)
language plpgsql volatile
set search_path = ''
as $$
declare
  v_sqlstate text;
  v_message text;
  v_hint text;
  v_detail text;
  v_before bigint;
begin
  if p_writes and p_arg is not null and p_conditions ? 'if_match'
     and jsonb_typeof(p_conditions -> 'if_match') = 'array' then
    perform app.check_if_match(p_op, p_args, p_arg, p_conditions -> 'if_match');
  end if;
  if not p_writes and p_arg is not null and pg_input_is_valid(p_args ->> p_arg, 'uuid') then
    -- A read and its version (the ETag) must agree (the function keeps whole results by it).
    -- app.operation is volatile, so each query in it takes a snapshot of its own, later than
    -- its caller's: the version is read before and after the read, and the read is the
    -- version's when both agree (every change raises the version in its own transaction, so
    -- none committed in between). A write committed in between: read again.
    for v_try in 1..10 loop
      v_before := app.version_of((p_args ->> p_arg)::uuid);
      result := (app.operation(p_op, p_args, p_key_id, true)).result;
      version := app.version_of((p_args ->> p_arg)::uuid);
      exit when version is not distinct from v_before;
      if v_try = 10 then
        raise exception 'the tournament kept changing while it was being read' using errcode = '40001';
      end if;
    end loop;
  else
    result := (app.operation(p_op, p_args, p_key_id, true)).result;
    if p_writes and p_arg is not null and pg_input_is_valid(p_args ->> p_arg, 'uuid') then
      version := app.version_of((p_args ->> p_arg)::uuid); -- the ETag the write leaves
    end if;
  end if;
exception when others then
  get stacked diagnostics v_sqlstate = returned_sqlstate, v_message = message_text,
                          v_hint = pg_exception_hint, v_detail = pg_exception_detail;
  -- Serialization failures, deadlocks and timeouts abort the request (503: it did nothing).
  if v_sqlstate in ('40001', '40P01', '55P03', '57014') then
    raise;
  end if;
  -- A refusal of the rate-limit kind (a key's open streams): a 429, so nothing counts.
  if v_sqlstate = 'P0001' and v_hint = 'rate_limited' then
    raise exception 'rate limited' using errcode = 'TA429', hint = 'rate_limited',
      detail = (app.rate_limit_state(p_key_id, p_limit)::jsonb
                || jsonb_build_object('error', 'rate_limited', 'message', v_message,
                     'retry_after', (v_detail::jsonb -> 0 ->> 'message')::int))::text;
  end if;
  version := null;
  error := json_build_object('sqlstate', v_sqlstate, 'code', v_hint, 'message', v_message,
    'details', case when v_sqlstate = 'P0001' and v_detail like '[%' then v_detail::json end);
end
$$;
comment on function app.run_operation(text, jsonb, uuid, boolean, text, jsonb, int) is
  'One operation in a subtransaction: its result and version (the ETag), or its error as the API answers it.';

-- Counts a request in its key's ring of p_limit slots: one conditional upsert that overwrites
-- the oldest slot only if it has left the 60 s window; when the window filled up meanwhile,
-- raises SQLSTATE TA429 (everything the request did rolls back). Records the key's use (to the
-- minute) and answers api.call's auth: p_error (null, or the 403 that was counted), the key,
-- the account and the limit's state. For api.call.
create function app.count_request(p_key_id uuid, p_account_id uuid, p_last_used_at timestamptz, p_limit int,
                                  p_error text) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_count record;
begin
  insert into app.rate_limits as r (api_key_id, account_id, next_slot, slots)
  values (p_key_id, p_account_id, 2,
          array[clock_timestamp()] || array_fill('-infinity'::timestamptz, array[p_limit - 1]))
  on conflict (api_key_id) do update
     set slots[r.next_slot] = clock_timestamp(), next_slot = r.next_slot % p_limit + 1
   where r.slots[r.next_slot] <= clock_timestamp() - interval '60 seconds'
  returning (select count(*)::int from unnest(r.slots) s where s > clock_timestamp() - interval '60 seconds') as used,
            (select min(s) from unnest(r.slots) s where s > clock_timestamp() - interval '60 seconds') as oldest,
            clock_timestamp() as now
  into v_count;
  if not found then -- the window filled up meanwhile: undo everything, answer 429
    raise exception 'rate limited' using errcode = 'TA429', hint = 'rate_limited',
      detail = app.rate_limit_state(p_key_id, p_limit)::text;
  end if;
  if p_last_used_at is null or p_last_used_at < v_count.now - interval '1 minute' then
    perform app.touch_api_key(p_key_id);
  end if;
  return json_build_object('error', p_error, 'key_id', p_key_id, 'account_id', p_account_id,
    'limit', p_limit, 'remaining', p_limit - v_count.used,
    'reset', greatest(1, ceil(extract(epoch from v_count.oldest + interval '60 seconds' - v_count.now)))::int,
    'window', 60,
    -- events were recorded: the function nudges the hosted dispatcher after answering
    'webhooks', coalesce(current_setting('app.webhooks_recorded', true), '') = 'on');
end
$$;
comment on function app.count_request(uuid, uuid, timestamptz, int, text) is
  'Counts one request in its key''s rate-limit ring (TA429 when the window filled meanwhile) and answers api.call''s auth.';

-- A participant token's count: app.count_request, but a token revoked or deleted with its
-- registration (a withdrawal by another token) while its request ran cannot be counted (its
-- ring's foreign key): SQLSTATE TA401 undoes everything the request did, and the function answers
-- 401 as for an unknown token. (API keys are revoked, never deleted, so theirs takes no
-- subtransaction.)
create function api.call(p_key_hash bytea, p_scope text, p_op text, p_args jsonb,
                         p_idempotency jsonb default null, p_conditions jsonb default null,
                         out auth json, out error json, out result json, out replay json,
                         out version bigint, out not_modified boolean)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  c_limit constant int := 100;
  v_scope text;          -- the scope the operation needs (null: any valid key)
  v_writes boolean;      -- whether the operation writes (then its commit waits for the WAL flush)
  v_op record;
  v_key record;
  v_run record;
  v_arg text;            -- the argument naming the operation's tournament (null: not about one)
  v_participant boolean := p_op like 'participant.%'; -- the route is a participant token's
begin
  perform set_config('app.account_id', '', true), set_config('synchronous_commit', 'off', true);

  -- The operation's scope and write flag. 'none' checks the key, counts the request and runs
  -- nothing (the function found the input invalid; p_scope is the route's scope, so a 403 still
  -- comes before the 400).
  if coalesce(p_op, 'none') in ('none', 'participant.none') then
    v_scope := p_scope;
    v_writes := false;
  else
    v_op := app.operation(p_op, null, null, false);
    v_scope := v_op.scope;
    v_writes := v_op.writes;
    v_arg := v_op.tournament_arg;
  end if;

  -- 1. The key (401): one message for unknown, revoked and expired.
  select f.id, f.account_id, f.scopes, f.last_used_at, f.enabled, f.oldest, f.now, f.tournament_id, f.registration_id
    into v_key from app.find_api_key(p_key_hash) f;
  if v_key.id is null or (v_key.tournament_id is not null) <> v_participant then
    auth := json_build_object('error', 'unauthorized');
    return;
  end if;
  perform set_config('app.account_id', v_key.account_id::text, true),
          set_config('app.actor', json_build_object('type', case when v_participant then 'participant' else 'key' end,
                                                    'id', v_key.id)::text, true);
  if v_participant then
    p_args := coalesce(p_args, '{}') || jsonb_build_object('tournament_id', v_key.tournament_id,
      'registration_id', v_key.registration_id, 'token_id', v_key.id);
  end if;

  -- 2. The account (403), and the rate limit as of the key's read (429 without a lock).
  if not coalesce(v_key.enabled, false) then
    auth := json_build_object('error', 'api_access_disabled', 'key_id', v_key.id);
    return;
  end if;
  if v_key.oldest > v_key.now - interval '60 seconds' then
    auth := json_build_object('error', 'rate_limited', 'key_id', v_key.id, 'limit', c_limit, 'remaining', 0,
      'reset', greatest(1, ceil(extract(epoch from v_key.oldest + interval '60 seconds' - v_key.now)))::int,
      'window', 60);
    return;
  end if;

  -- 3. The scope (403, counted), then the operation.
  if v_scope is not null and not coalesce(v_scope = any (v_key.scopes), false) then
    auth := json_build_object('error', 'insufficient_scope');
  elsif p_op is not null and p_op not in ('none', 'participant.none') then
    if v_writes then
      perform set_config('synchronous_commit', 'on', true);
    end if;
    -- A retry of a request still in flight with the same Idempotency-Key: 409 at once, not counted.
    if p_idempotency is not null
       and not pg_try_advisory_xact_lock(hashtextextended(v_key.id::text || ':' || (p_idempotency ->> 'key'), 0)) then
      error := json_build_object('sqlstate', 'P0001', 'code', 'idempotency_conflict',
        'message', 'A request with this Idempotency-Key is still in progress; retry once it has finished.');
      auth := app.rate_limit_state(v_key.id, c_limit);
      return;
    end if;
    if p_idempotency is not null then
      select i.conflict, i.replay into error, replay from app.idempotency_begin(v_key.id, p_idempotency) i;
    end if;
    if replay is not null then -- a retry: the first response's result or error, as saved
      result := case when json_typeof(replay -> 'result') <> 'null' then replay -> 'result' end;
      error := case when json_typeof(replay -> 'error') <> 'null' then replay -> 'error' end;
      if p_op in ('participant.signup', 'tokens.create', 'signup_tokens.create') and result is not null then
        result := app.token_replayed(p_op, result); -- a token's secret is never kept: another one
      end if;
    elsif error is null then
      -- With If-None-Match, a read's version first: 304 without running the operation.
      if not v_writes and v_arg is not null and p_conditions ? 'if_none_match' then
        version := app.current_version(p_op, p_args, v_arg);
        not_modified := version is not null and p_conditions ? 'if_none_match'
          and (jsonb_typeof(p_conditions -> 'if_none_match') = 'null'
               or p_conditions -> 'if_none_match' @> to_jsonb(version));
      end if;
    end if;
    if replay is null and error is null and not coalesce(not_modified, false) then
      v_run := app.run_operation(p_op, p_args, v_key.id, v_writes, v_arg, p_conditions, c_limit);
      result := v_run.result;
      error := v_run.error;
      version := v_run.version;
      -- Saved in the same transaction as the operation's writes: both or neither. Validation
      -- errors are not saved, so a corrected request may reuse the key.
      if p_idempotency is not null
         and (error is null or ((error ->> 'sqlstate') = 'P0001' and (error ->> 'code') <> 'validation_error')) then
        perform app.idempotency_save(v_key.id, p_idempotency,
          case when p_op in ('participant.signup', 'tokens.create', 'signup_tokens.create') and result is not null
               then app.token_kept(p_op, result) else result end, error);
      end if;
    end if;
  end if;

  -- 4. Count the request (429 when the window filled up meanwhile), then the answer's auth. A
  -- token that has just withdrawn its registration went with it: nothing is left to count.
  if p_op = 'participant.withdraw' and error is null and auth is null then
    auth := json_build_object('error', null, 'key_id', v_key.id, 'account_id', v_key.account_id,
      'webhooks', coalesce(current_setting('app.webhooks_recorded', true), '') = 'on');
    return;
  end if;
  -- (A participant token revoked or deleted with its registration while its request ran has no
  -- ring left to count in: the insert fails its foreign key (23503), the whole request rolls
  -- back, and the function answers 401 as for an unknown token. No subtransaction is spent on
  -- catching it here: nothing else in api.call outside app.run_operation can fail that way.)
  auth := app.count_request(v_key.id, v_key.account_id, v_key.last_used_at, c_limit, auth ->> 'error');
end
$$;
comment on function api.call(bytea, text, text, jsonb, jsonb, jsonb) is
  'One API request in one statement: key, account, rate limit, scope, the operation (conditional: section 14), the count.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.operation(text, jsonb, uuid, boolean) to tournament_api_owner;
grant execute on function app.run_operation(text, jsonb, uuid, boolean, text, jsonb, int) to tournament_api_owner;
grant execute on function app.count_request(uuid, uuid, timestamptz, int, text) to tournament_api_owner;
-- api.call runs as tournament_api_owner, which holds exactly the privileges of the operations
-- (granted in each area's file); tournament_api can execute api.call and nothing else.
grant execute on function api.call(bytea, text, text, jsonb, jsonb, jsonb) to tournament_api;
-- A role that is not a superuser (`postgres` on hosted Supabase) may hand a function to another
-- owner only if that owner may create in the function's schema: granted for the hand-over only.
grant create on schema api to tournament_api_owner;
alter function api.call(bytea, text, text, jsonb, jsonb, jsonb) owner to tournament_api_owner;
revoke create on schema api from tournament_api_owner;
