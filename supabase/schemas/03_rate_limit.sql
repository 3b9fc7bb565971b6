-- The per-key state of requests, both kept by api.call (25_api.sql):
-- - Rate limit: at most 100 accepted requests per key in any rolling 60 s, exact under
--   concurrency. Each key has a ring of 100 slots holding the times of its last 100 counted
--   requests; `next_slot` points at the oldest. The ring has a table of its own, so counting
--   locks neither the key's row nor anything the operations read.
-- - Safe retries (contract section 7): the first response to each (API key, Idempotency-Key),
--   written in the same transaction as the operation's writes, replayed for 24 hours.

-- ============================================================================
-- tables
-- ============================================================================
create table app.rate_limits (
  api_key_id uuid primary key references app.api_keys (id) on delete cascade,
  account_id uuid not null,
  next_slot int not null check (next_slot between 1 and 100),
  slots timestamptz[] not null check (cardinality(slots) = 100)
) with (fillfactor = 50); -- room on the page for HOT updates: one new row version per request

comment on table app.rate_limits is
  'Per key, the times of its last 100 counted requests (a ring; next_slot is the oldest). Made on first use.';

comment on column app.rate_limits.account_id is 'The key''s account, copied so that RLS needs no join.';

create table app.idempotency_keys (
  api_key_id uuid not null references app.api_keys (id) on delete cascade,
  account_id uuid not null references app.accounts (id) on delete cascade,
  idempotency_key text not null check (length(idempotency_key) between 1 and 255),
  request_hash bytea not null,
  request_id uuid not null,
  requested_at timestamptz(3) not null,
  result json,
  error json,
  created_at timestamptz not null default now(),
  primary key (api_key_id, idempotency_key)
);

comment on table app.idempotency_keys is
  'The first response to each (API key, Idempotency-Key), replayed to retries for 24 hours.';

comment on column app.idempotency_keys.request_hash is 'SHA-256 of method, path and canonical JSON body.';

-- ============================================================================
-- indexes
-- ============================================================================
create index rate_limits_account_idx on app.rate_limits (account_id);

create index idempotency_keys_expiry_idx on app.idempotency_keys (api_key_id, created_at);

create index idempotency_keys_account_idx on app.idempotency_keys (account_id);

-- ============================================================================
-- policies
-- ============================================================================
alter table app.rate_limits enable row level security;

alter table app.idempotency_keys enable row level security;

create policy "Rate limits are visible to their account" on app.rate_limits
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Rate limits are created in the bound account" on app.rate_limits
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Rate limits are counted by their account" on app.rate_limits
  for update to tournament_api_owner
  using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)))
  with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Idempotency records are visible to their account" on app.idempotency_keys
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Idempotency records are created in the bound account" on app.idempotency_keys
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Idempotency records are deleted by their account" on app.idempotency_keys
  for delete to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
-- ============================================================================
-- Before the operation (api.call holds the key's claim, a transaction-scoped advisory lock):
-- 422 when the key was used with another request, the saved response when this is a retry.
create function app.idempotency_begin(p_api_key_id uuid, p_idempotency jsonb,
                                      out conflict json, out replay json)
language plpgsql volatile
set search_path = ''
as $$
declare
  v_key text := p_idempotency ->> 'key';
  v_saved app.idempotency_keys;
begin
  select * into v_saved from app.idempotency_keys i
   where i.api_key_id = p_api_key_id and i.idempotency_key = v_key;
  if found and v_saved.created_at > now() - interval '24 hours' then
    if v_saved.request_hash <> decode(p_idempotency ->> 'hash', 'hex') then
      conflict := json_build_object('sqlstate', 'P0001', 'code', 'idempotency_mismatch',
        'message', 'This Idempotency-Key was used with a different request; use a new key for a new request.');
    else
      replay := json_build_object('request_id', v_saved.request_id, 'timestamp', app.iso(v_saved.requested_at),
                                  'result', v_saved.result, 'error', v_saved.error);
    end if;
    return;
  end if;
  -- Past 24 hours a key is forgotten; clear this API key's expired records while here.
  delete from app.idempotency_keys i
   where i.api_key_id = p_api_key_id and i.created_at <= now() - interval '24 hours';
end
$$;

-- Saves the response, in the operation's transaction, for retries with the same key to replay.
create function app.idempotency_save(p_api_key_id uuid, p_idempotency jsonb, p_result json, p_error json)
returns void
language plpgsql volatile
set search_path = ''
as $$
begin
  insert into app.idempotency_keys (api_key_id, account_id, idempotency_key, request_hash, request_id,
                                    requested_at, result, error)
  values (p_api_key_id, app.current_account_id(), p_idempotency ->> 'key',
          decode(p_idempotency ->> 'hash', 'hex'), (p_idempotency ->> 'request_id')::uuid,
          (p_idempotency ->> 'timestamp')::timestamptz, p_result, p_error);
end
$$;

-- The rate-limit state of a key from a plain read (no lock, no count): for a request that is
-- answered without being counted (409 idempotency_conflict) or refused after its count failed.
create function app.rate_limit_state(p_api_key_id uuid, p_limit int) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_used int;
  v_oldest timestamptz;
begin
  select count(*)::int, min(s) into v_used, v_oldest
    from app.rate_limits r, unnest(r.slots) s
   where r.api_key_id = p_api_key_id and s > v_now - interval '60 seconds';
  return json_build_object('error', case when v_used >= p_limit then 'rate_limited' end,
    'key_id', p_api_key_id, 'limit', p_limit, 'remaining', greatest(0, p_limit - v_used),
    'reset', greatest(1, ceil(extract(epoch from coalesce(v_oldest, v_now) + interval '60 seconds' - v_now)))::int,
    'window', 60);
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert, update on app.rate_limits to tournament_api_owner;
grant select, insert, delete on app.idempotency_keys to tournament_api_owner;
grant execute on function app.idempotency_begin(uuid, jsonb) to tournament_api_owner;
grant execute on function app.idempotency_save(uuid, jsonb, json, json) to tournament_api_owner;
grant execute on function app.rate_limit_state(uuid, int) to tournament_api_owner;