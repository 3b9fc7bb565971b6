-- Self-service keys "in the account settings": account members are Supabase Auth users
-- (auth.users). A member sees their accounts and those accounts' keys (never the hashes) and
-- creates or revokes keys through RPC functions that the `authenticated` role calls with
-- supabase-js (`supabase.rpc('create_account_api_key', {...})`). Operators add members.

-- ============================================================================
-- tables
-- ============================================================================
create table app.account_members (
  account_id uuid not null references app.accounts (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (account_id, user_id)
);
comment on table app.account_members is 'Supabase Auth users who manage an account''s API keys.';

-- ============================================================================
-- indexes
-- ============================================================================
create index account_members_user_idx on app.account_members (user_id);

-- ============================================================================
-- functions
-- ============================================================================
-- Security definer so that policies on accounts and api_keys can ask it without recursing
-- into the RLS of account_members.
create function app.is_member(p_account_id uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select exists (select from app.account_members m
                  where m.account_id = p_account_id and m.user_id = (select auth.uid()))
$$;
comment on function app.is_member(uuid) is 'Whether the signed-in Supabase user is a member of the account.';

create function public.create_account_api_key(p_account_id uuid, p_name text, p_scopes text[],
                                              p_expires_at timestamptz default null)
returns table (id uuid, key text)
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if (select auth.uid()) is null or not app.is_member(p_account_id) then
    raise exception 'not a member of account %', p_account_id using errcode = '42501';
  end if;
  -- admin.create_api_key's unknown-scope check lets a NULL element through, and
  -- app.authenticate reads `scope = any({..., NULL})` as NULL, i.e. not refused: such a key
  -- would pass every scope check while listing only the scopes it was given.
  if exists (select from unnest(p_scopes) s where s is null) then
    raise exception 'scopes must not contain null' using errcode = '22023';
  end if;
  return query select k.id, k.key from admin.create_api_key(p_account_id, p_name, p_scopes, p_expires_at) k;
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
    raise exception 'API key % not found', p_key_id using errcode = 'P0002';
  end if;
  perform admin.revoke_api_key(p_key_id);
end
$$;
comment on function public.revoke_account_api_key(uuid) is
  'For account members (supabase.rpc): revokes one of their account''s keys.';

create function admin.add_account_member(account_id uuid, user_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  insert into app.account_members (account_id, user_id)
  values (add_account_member.account_id, add_account_member.user_id)
  on conflict do nothing;
end
$$;
create function admin.remove_account_member(account_id uuid, user_id uuid) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  delete from app.account_members m
   where m.account_id = remove_account_member.account_id and m.user_id = remove_account_member.user_id;
  if not found then
    raise exception 'user % is not a member of account %', remove_account_member.user_id,
      remove_account_member.account_id using errcode = 'P0002';
  end if;
end
$$;

comment on function admin.add_account_member(uuid, uuid) is 'Lets a Supabase Auth user manage the account''s keys.';

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.account_members enable row level security;

create policy "Members see their own memberships" on app.account_members
  for select to authenticated using (user_id = (select auth.uid()));
create policy "Members see their accounts" on app.accounts
  for select to authenticated using (app.is_member(id));
create policy "Members see their accounts' keys" on app.api_keys
  for select to authenticated using (app.is_member(account_id));

-- ============================================================================
-- views (what supabase-js reads: public is the schema the Data API exposes)
-- ============================================================================
create view public.my_accounts with (security_invoker = true) as
  select a.id, a.name, a.api_access_enabled, a.created_at from app.accounts a;
comment on view public.my_accounts is 'The accounts the signed-in user is a member of (RLS).';

create view public.my_api_keys with (security_invoker = true) as
  select k.id, k.account_id, k.name, k.prefix, k.scopes::text[] as scopes, k.expires_at, k.revoked_at,
         k.created_at, k.last_used_at
    from app.api_keys k;
comment on view public.my_api_keys is 'The keys of the signed-in user''s accounts (RLS); never the hashes.';

-- ============================================================================
-- grants
-- ============================================================================
revoke execute on all functions in schema app, admin from public;
-- Members read through the views above (security_invoker: RLS and these grants apply).
grant usage on schema app to authenticated;
grant select on app.account_members to authenticated;
grant select (id, name, api_access_enabled, created_at) on app.accounts to authenticated;
-- Column grants: the hash and the rate-limit state are not readable, even through RLS.
grant select (id, account_id, name, prefix, scopes, expires_at, revoked_at, created_at, last_used_at)
  on app.api_keys to authenticated;
-- Supabase's default privileges give anon, authenticated and service_role ALL on new objects
-- in public: take everything back, then grant only reading.
revoke all on public.my_accounts, public.my_api_keys from public, anon, authenticated, service_role;
grant select on public.my_accounts, public.my_api_keys to authenticated;

grant execute on function app.is_member(uuid) to authenticated;
revoke execute on function public.create_account_api_key(uuid, text, text[], timestamptz) from public, anon;
revoke execute on function public.revoke_account_api_key(uuid) from public, anon;
grant execute on function public.create_account_api_key(uuid, text, text[], timestamptz) to authenticated;
grant execute on function public.revoke_account_api_key(uuid) to authenticated;
