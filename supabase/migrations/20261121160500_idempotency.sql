-- Safe retries (contract section 7): POST routes accept an Idempotency-Key, scoped to the API
-- key and kept 24 hours. The same key and body replays the first response; another body is
-- 422 idempotency_mismatch; the same key while the first request is in flight is 409
-- idempotency_conflict. The record is written in the same transaction as the operation's
-- writes, so a request that dies leaves neither.

-- ============================================================================
-- tables
-- ============================================================================
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
create index idempotency_keys_expiry_idx on app.idempotency_keys (api_key_id, created_at);
create index idempotency_keys_account_idx on app.idempotency_keys (account_id);

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.idempotency_keys enable row level security;

create policy "Idempotency records are visible to their account" on app.idempotency_keys
  for select to tournament_api using (account_id = (select app.current_account_id()));
create policy "Idempotency records are created in the bound account" on app.idempotency_keys
  for insert to tournament_api with check (account_id = (select app.current_account_id()));
create policy "Idempotency records are updated by their account" on app.idempotency_keys
  for update to tournament_api
  using (account_id = (select app.current_account_id()))
  with check (account_id = (select app.current_account_id()));
create policy "Idempotency records are deleted by their account" on app.idempotency_keys
  for delete to tournament_api using (account_id = (select app.current_account_id()));

-- ============================================================================
-- functions
-- ============================================================================
-- Before the operation (api.call has claimed the key with a transaction-scoped advisory lock,
-- so a request in flight with it is answered 409 there): 422 when the key was used with
-- another request, the saved response when this is a retry.
create function app.idempotency_begin(p_api_key_id uuid, p_idempotency jsonb,
                                      out conflict json, out replay json)
language plpgsql volatile
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

create function app.idempotency_save(p_api_key_id uuid, p_idempotency jsonb, p_result json, p_error json)
returns void
language sql volatile
as $$
  insert into app.idempotency_keys (api_key_id, account_id, idempotency_key, request_hash, request_id,
                                    requested_at, result, error)
  values (p_api_key_id, app.current_account_id(), p_idempotency ->> 'key',
          decode(p_idempotency ->> 'hash', 'hex'), (p_idempotency ->> 'request_id')::uuid,
          (p_idempotency ->> 'timestamp')::timestamptz, p_result, p_error)
$$;

-- ============================================================================
-- grants
-- ============================================================================
revoke execute on all functions in schema app from public;
grant select, insert, update, delete on app.idempotency_keys to tournament_api;
grant execute on function app.idempotency_begin(uuid, jsonb) to tournament_api;
grant execute on function app.idempotency_save(uuid, jsonb, json, json) to tournament_api;
