-- API keys (contract section 6): `tmk_` + 32 random bytes in base62 + a 6-character CRC32
-- checksum; only the SHA-256 is stored. The same table holds participant tokens (`tpt_`,
-- contract section 17: a tournament_id, participant scopes), so both kinds share the one door,
-- its rate-limit ring and Idempotency-Keys; their minting and routes are 24_participants.sql. Operators make them with admin.create_api_key, account
-- members with public.create_account_api_key (supabase.rpc) and see them in public.my_api_keys.
-- api.call (25_api.sql) finds a key with app.find_api_key; each key's rate limit and
-- Idempotency-Keys are in 03_rate_limit.sql.

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
  last_used_at timestamptz,
  -- A participant token's (null for an API key): its tournament, its registration (null for a
  -- sign-up token), and a sign-up token's uses. Foreign keys in 24_participants.sql.
  tournament_id uuid,
  registration_id uuid,
  max_uses int check (max_uses between 1 and 10000),
  uses int not null default 0,
  constraint api_keys_participant_check
    check (tournament_id is not null or (registration_id is null and max_uses is null and uses = 0))
);

comment on table app.api_keys is 'API keys: only the SHA-256 of a key is stored, with a short visible prefix.';

comment on column app.api_keys.prefix is 'The first 12 characters of the key, to recognise it in lists.';

comment on column app.api_keys.last_used_at is 'When the key last made a counted request, to the minute.';

comment on column app.api_keys.tournament_id is 'A participant token''s tournament; null for an API key.';

create view public.my_api_keys with (security_invoker = true) as
  select k.id, k.account_id, k.name, k.prefix, k.scopes::text[] as scopes, k.expires_at, k.revoked_at,
         k.created_at, k.last_used_at
    from app.api_keys k
   where k.tournament_id is null;
comment on view public.my_api_keys is 'The keys of the signed-in user''s accounts (RLS); never the hashes.';

-- ============================================================================
-- indexes
-- ============================================================================
create index api_keys_account_id_idx on app.api_keys (account_id);

-- ============================================================================
-- policies
-- ============================================================================
alter table app.api_keys enable row level security;

-- api_keys: no policy for tournament_api_owner, which has no privilege on it either; api.call
-- finds keys through app.find_api_key, so no operation can read a key hash.
-- Members see their accounts' keys through app.is_member (01_accounts.sql).
create policy "Members see their accounts' keys" on app.api_keys
  for select to authenticated using (app.is_member(account_id));

-- ============================================================================
-- functions
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

-- CRC-32 (IEEE 802.3, as zlib computes it) of p_data: the checksum at the end of a key.
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

create function app.new_api_key(p_prefix text) returns text
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
  v_body := p_prefix || app.base62(v_n, 43);
  return v_body || app.base62(app.crc32(convert_to(v_body, 'UTF8')), 6);
end
$$;
comment on function app.new_api_key(text) is
  'A new key (p_prefix tmk_) or participant token (tpt_): the prefix, 32 random bytes in base62 (43 chars), then a 6-char base62 CRC32 checksum of what precedes it.';

-- Security definer (owned by the migration role, which owns api_keys): the operations run as
-- tournament_api_owner, which cannot read api_keys at all. With the key, in the same read, what
-- api.call checks next: the account's API access and the key's rate-limit ring (its oldest slot);
-- for a participant token, its tournament and registration.
-- No account is bound yet, so that read could not go through row-level security in api.call.
create function app.find_api_key(p_key_hash bytea,
                                 out id uuid, out account_id uuid, out scopes text[], out last_used_at timestamptz,
                                 out enabled boolean, out oldest timestamptz, out now timestamptz,
                                 out tournament_id uuid, out registration_id uuid)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  select k.id, k.account_id, k.scopes::text[], k.last_used_at, a.api_access_enabled, r.slots[r.next_slot], clock_timestamp(),
         k.tournament_id, k.registration_id
    into find_api_key.id, find_api_key.account_id, find_api_key.scopes, find_api_key.last_used_at,
         find_api_key.enabled, find_api_key.oldest, find_api_key.now, find_api_key.tournament_id,
         find_api_key.registration_id
    from app.api_keys k
    join app.accounts a on a.id = k.account_id
    left join app.rate_limits r on r.api_key_id = k.id
   where k.key_hash = p_key_hash and k.revoked_at is null
     and (k.expires_at is null or k.expires_at > clock_timestamp());
end
$$;
comment on function app.find_api_key(bytea) is
  'The usable (not revoked, not expired) key or participant token with this SHA-256, its account''s API access and the oldest time in its rate-limit ring (as of this snapshot), or nulls; for api.call.';

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

  v_key := app.new_api_key('tmk_');
  return query
  insert into app.api_keys as k (account_id, name, prefix, key_hash, scopes, expires_at)
  values (p_account_id, btrim(p_name), left(v_key, 12), sha256(convert_to(v_key, 'UTF8')),
          array(select distinct s from unnest(p_scopes) s order by s)::app.scope[], p_expires_at)
  returning k.id, v_key;
end
$$;
comment on function app.insert_api_key(uuid, text, text[], timestamptz) is
  'Checks and stores a new key; returns its plaintext, the only time it is ever shown.';

-- Operators (admin.*): the parameter names are the documented interface.
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

-- GET /me: the calling key and its account (the rate limit's state is added by the function from
-- api.call's count, which comes after). Security definer: the function role's owner has no
-- access to api_keys; api.call passes the id of the key it has just checked.
create function app.me(p_key_id uuid) returns json
language plpgsql stable security definer
set search_path = ''
as $$
begin
  return (
    select json_build_object(
      'key', json_build_object('id', k.id, 'name', k.name, 'prefix', k.prefix, 'scopes', k.scopes,
        'expires_at', app.iso(k.expires_at), 'created_at', app.iso(k.created_at)),
      'account', json_build_object('id', a.id, 'name', a.name))
      from app.api_keys k join app.accounts a on a.id = k.account_id
     where k.id = p_key_id
       and k.account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.find_api_key(bytea) to tournament_api_owner;
grant execute on function app.touch_api_key(uuid) to tournament_api_owner;
-- Column grants: the hash is not readable by members, even through RLS.
grant select (id, account_id, name, prefix, scopes, expires_at, revoked_at, created_at, last_used_at, tournament_id)
  on app.api_keys to authenticated;
revoke all on public.my_api_keys from public, anon, authenticated, service_role;
grant select on public.my_api_keys to authenticated;
grant execute on function public.create_account_api_key(uuid, text, text[], timestamptz) to authenticated;
grant execute on function public.revoke_account_api_key(uuid) to authenticated;
grant execute on function app.me(uuid) to tournament_api_owner;
