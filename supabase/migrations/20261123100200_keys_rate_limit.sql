-- API keys, the rate limit and safe retries: the per-key state of requests.
--
-- Keys (contract section 6): `tmk_` + 32 random bytes in base62 + a 6-character CRC32
-- checksum; only the SHA-256 is stored. Operators make them with admin.create_api_key, account
-- members with public.create_account_api_key (supabase.rpc).
--
-- Rate limit: at most 100 accepted requests per key in any rolling 60 s, exact under
-- concurrency. Each key has a ring of 100 slots holding the times of its last 100 counted
-- requests; `next_slot` points at the oldest. A request is counted by one conditional upsert
-- that overwrites the oldest slot only if it is older than 60 s (api.call). The ring has a
-- table of its own, so counting locks neither the key's row nor anything the operations read.
--
-- Safe retries (contract section 7): the first response to each (API key, Idempotency-Key),
-- written in the same transaction as the operation's writes, replayed for 24 hours.

-- ============================================================================
-- tables
-- ============================================================================
create table app.api_keys (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references app.accounts (id) on delete cascade,
  name text not null check (length(btrim(name)) between 1 and 200),
  prefix text not null,
  key_hash bytea not null unique check (length(key_hash) = 32),
  scopes app.scope[] not null check (array_position(scopes, null) is null),
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
comment on table app.api_keys is 'API keys: only the SHA-256 of a key is stored, with a short visible prefix.';
comment on column app.api_keys.prefix is 'The first 12 characters of the key, to recognise it in lists.';
comment on column app.api_keys.last_used_at is 'When the key last made a counted request, to the minute.';

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
create index api_keys_account_id_idx on app.api_keys (account_id);
create index rate_limits_account_idx on app.rate_limits (account_id);
create index idempotency_keys_expiry_idx on app.idempotency_keys (api_key_id, created_at);
create index idempotency_keys_account_idx on app.idempotency_keys (account_id);

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.api_keys enable row level security;
alter table app.rate_limits enable row level security;
alter table app.idempotency_keys enable row level security;

-- api_keys: no policy for tournament_api_owner, which has no privilege on it either; api.call
-- finds keys through app.find_api_key, so no operation can read a key hash.
-- "Members see their accounts' keys" follows app.is_member's account check (accounts migration).
create policy "Members see their accounts' keys" on app.api_keys
  for select to authenticated using (app.is_member(account_id));

create policy "Rate limits are visible to their account" on app.rate_limits
  for select to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Rate limits are created in the bound account" on app.rate_limits
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Rate limits are counted by their account" on app.rate_limits
  for update to tournament_api_owner
  using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid))
  with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));

create policy "Idempotency records are visible to their account" on app.idempotency_keys
  for select to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Idempotency records are created in the bound account" on app.idempotency_keys
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Idempotency records are deleted by their account" on app.idempotency_keys
  for delete to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));

-- ============================================================================
-- functions: key format
-- ============================================================================
-- Base62 with the alphabet 0-9A-Za-z, big-endian, left-padded with '0' to p_width.
create function app.base62(p_value numeric, p_width int) returns text
language plpgsql immutable strict
set search_path = ''
as $$
declare
  v_alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  v_out text := '';
  v_n numeric := p_value;
begin
  while v_n > 0 loop
    v_out := substr(v_alphabet, (mod(v_n, 62))::int + 1, 1) || v_out;
    v_n := div(v_n, 62);
  end loop;
  return lpad(v_out, p_width, '0');
end
$$;

create function app.crc32(p_data bytea) returns bigint
language plpgsql immutable strict
set search_path = ''
as $$
declare
  v_crc bigint := 4294967295;
begin
  for i in 0 .. length(p_data) - 1 loop
    v_crc := v_crc # get_byte(p_data, i);
    for j in 1 .. 8 loop
      if (v_crc & 1) = 1 then
        v_crc := (v_crc >> 1) # 3988292384; -- 0xEDB88320
      else
        v_crc := v_crc >> 1;
      end if;
    end loop;
  end loop;
  return v_crc # 4294967295;
end
$$;

create function app.new_api_key() returns text
language plpgsql volatile
set search_path = ''
as $$
declare
  v_bytes bytea := extensions.gen_random_bytes(32);
  v_n numeric := 0;
  v_body text;
begin
  for i in 0 .. 31 loop
    v_n := v_n * 256 + get_byte(v_bytes, i);
  end loop;
  v_body := 'tmk_' || app.base62(v_n, 43);
  return v_body || app.base62(app.crc32(convert_to(v_body, 'UTF8')), 6);
end
$$;
comment on function app.new_api_key() is
  'A new key: tmk_, 32 random bytes in base62 (43 chars), then a 6-char base62 CRC32 checksum of what precedes it.';

-- ============================================================================
-- functions: finding keys (for api.call)
-- ============================================================================
-- Security definer (owned by the migration role, which owns api_keys): the operations run as
-- tournament_api_owner, which cannot read api_keys at all.
create function app.find_api_key(p_key_hash bytea,
                                 out id uuid, out account_id uuid, out scopes text[], out last_used_at timestamptz)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  select k.id, k.account_id, k.scopes::text[], k.last_used_at
    into find_api_key.id, find_api_key.account_id, find_api_key.scopes, find_api_key.last_used_at
    from app.api_keys k
   where k.key_hash = p_key_hash and k.revoked_at is null
     and (k.expires_at is null or k.expires_at > clock_timestamp());
end
$$;
comment on function app.find_api_key(bytea) is
  'The usable (not revoked, not expired) key with this SHA-256, or nulls; for api.call.';

-- Records a key's use, to the minute: at most one write per key per minute.
create function app.touch_api_key(p_api_key_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  update app.api_keys k set last_used_at = now()
   where k.id = p_api_key_id and (k.last_used_at is null or k.last_used_at < now() - interval '1 minute');
end
$$;

-- ============================================================================
-- functions: making and revoking keys
-- ============================================================================
-- Every rule of a new key is checked here, before the insert, and raised with SQLSTATE 22023
-- and a stable hint (invalid_name, invalid_scopes, invalid_expiry): a constraint violation's
-- message would print the failing row.
create function app.insert_api_key(p_account_id uuid, p_name text, p_scopes text[], p_expires_at timestamptz)
returns table (id uuid, key text)
language plpgsql volatile
set search_path = ''
as $$
declare
  v_key text;
  v_unknown text[];
begin
  if p_name is null or length(btrim(p_name)) not between 1 and 200 then
    raise exception 'name must be 1 to 200 characters' using errcode = '22023', hint = 'invalid_name';
  end if;
  if coalesce(cardinality(p_scopes), 0) = 0 then
    raise exception 'a key needs at least one scope' using errcode = '22023', hint = 'invalid_scopes';
  end if;
  -- A null scope would read as "not refused" in a scope check: refused like an unknown one.
  v_unknown := array(select coalesce(s, 'null') from unnest(p_scopes) s
    where s is null or s <> all (app.scopes()));
  if cardinality(v_unknown) > 0 then
    raise exception 'unknown scope(s): %', array_to_string(v_unknown, ', ') using errcode = '22023',
      hint = 'invalid_scopes',
      detail = 'Scopes: ' || array_to_string(app.scopes(), ', ');
  end if;
  if p_expires_at is not null and p_expires_at <= now() then
    raise exception 'expires_at must be in the future' using errcode = '22023', hint = 'invalid_expiry';
  end if;

  v_key := app.new_api_key();
  return query
  insert into app.api_keys as k (account_id, name, prefix, key_hash, scopes, expires_at)
  values (p_account_id, btrim(p_name), left(v_key, 12), sha256(convert_to(v_key, 'UTF8')),
          array(select distinct s from unnest(p_scopes) s order by s)::app.scope[], p_expires_at)
  returning k.id, v_key;
end
$$;
comment on function app.insert_api_key(uuid, text, text[], timestamptz) is
  'Checks and stores a new key; returns its plaintext, the only time it is ever shown.';

create function admin.create_api_key(account_id uuid, name text, scopes text[],
                                     expires_at timestamptz default null)
returns table (id uuid, key text)
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if not exists (select from app.accounts a where a.id = create_api_key.account_id) then
    raise exception 'account % not found', create_api_key.account_id using errcode = 'P0002';
  end if;
  return query select k.id, k.key
    from app.insert_api_key(create_api_key.account_id, create_api_key.name, create_api_key.scopes,
                            create_api_key.expires_at) k;
end
$$;
comment on function admin.create_api_key(uuid, text, text[], timestamptz) is
  'Creates a key and returns its plaintext, the only time it is ever shown.';

create function admin.revoke_api_key(key_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  update app.api_keys set revoked_at = coalesce(revoked_at, now()) where id = revoke_api_key.key_id;
  if not found then
    raise exception 'API key % not found', revoke_api_key.key_id using errcode = 'P0002';
  end if;
end
$$;

-- Self-service (supabase.rpc), documented in the README's "Self-service keys": 42501
-- not_a_member, 22023 invalid_name / invalid_scopes / invalid_expiry, P0002 key_not_found.
create function public.create_account_api_key(p_account_id uuid, p_name text, p_scopes text[],
                                              p_expires_at timestamptz default null)
returns table (id uuid, key text)
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  -- Membership first: a non-member learns nothing, not even whether the input was valid.
  if (select auth.uid()) is null or not app.is_member(p_account_id) then
    raise exception 'not a member of account %', p_account_id using errcode = '42501', hint = 'not_a_member';
  end if;
  return query select k.id, k.key from app.insert_api_key(p_account_id, p_name, p_scopes, p_expires_at) k;
end
$$;
comment on function public.create_account_api_key(uuid, text, text[], timestamptz) is
  'For account members (supabase.rpc): creates a key and returns its plaintext once.';

create function public.revoke_account_api_key(p_key_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_account uuid;
begin
  select k.account_id into v_account from app.api_keys k where k.id = p_key_id;
  if v_account is null or (select auth.uid()) is null or not app.is_member(v_account) then
    -- one answer for "no such key" and "not yours": no oracle
    raise exception 'API key % not found', p_key_id using errcode = 'P0002', hint = 'key_not_found';
  end if;
  update app.api_keys set revoked_at = coalesce(revoked_at, now()) where id = p_key_id;
end
$$;
comment on function public.revoke_account_api_key(uuid) is
  'For account members (supabase.rpc): revokes one of their account''s keys.';

-- ============================================================================
-- functions: safe retries
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

-- ============================================================================
-- views (what supabase-js reads)
-- ============================================================================
create view public.my_api_keys with (security_invoker = true) as
  select k.id, k.account_id, k.name, k.prefix, k.scopes::text[] as scopes, k.expires_at, k.revoked_at,
         k.created_at, k.last_used_at
    from app.api_keys k;
comment on view public.my_api_keys is 'The keys of the signed-in user''s accounts (RLS); never the hashes.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.find_api_key(bytea) to tournament_api_owner;
grant execute on function app.touch_api_key(uuid) to tournament_api_owner;
grant select, insert, update on app.rate_limits to tournament_api_owner;
grant select, insert, delete on app.idempotency_keys to tournament_api_owner;
grant execute on function app.idempotency_begin(uuid, jsonb) to tournament_api_owner;
grant execute on function app.idempotency_save(uuid, jsonb, json, json) to tournament_api_owner;

-- Column grants: the hash is not readable by members, even through RLS.
grant select (id, account_id, name, prefix, scopes, expires_at, revoked_at, created_at, last_used_at)
  on app.api_keys to authenticated;
revoke all on public.my_api_keys from public, anon, authenticated, service_role;
grant select on public.my_api_keys to authenticated;
grant execute on function public.create_account_api_key(uuid, text, text[], timestamptz) to authenticated;
grant execute on function public.revoke_account_api_key(uuid) to authenticated;
