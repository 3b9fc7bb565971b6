-- Accounts: the customers of the API (access off until an operator enables it) and their
-- members, Supabase Auth users who manage the account's keys themselves through the views in
-- `public` (RLS, app.is_member). The operators' functions (admin.*) make accounts and members;
-- API keys are in 02_api_keys.sql.

-- ============================================================================
-- tables
-- ============================================================================
create table app.accounts (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(btrim(name)) between 1 and 200),
  api_access_enabled boolean not null default false,
  created_at timestamptz not null default now()
);

comment on table app.accounts is 'A customer of the API. Its API access is off until an operator enables it.';

create table app.account_members (
  account_id uuid not null references app.accounts (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (account_id, user_id)
);

comment on table app.account_members is 'Supabase Auth users who manage an account''s API keys.';

create view public.my_accounts with (security_invoker = true) as
  select a.id, a.name, a.api_access_enabled, a.created_at from app.accounts a;
comment on view public.my_accounts is 'The accounts the signed-in user is a member of (RLS).';

-- ============================================================================
-- indexes
-- ============================================================================
-- account_members.account_id leads its primary key.
create index account_members_user_idx on app.account_members (user_id);

-- ============================================================================
-- policies
-- ============================================================================
alter table app.accounts enable row level security;

alter table app.account_members enable row level security;

create policy "Accounts are visible to the bound account" on app.accounts
  for select to tournament_api_owner using (id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Members see their own memberships" on app.account_members
  for select to authenticated using (user_id = (select auth.uid()));

-- What the policies on accounts and api_keys ask. Security invoker: the member's own rows of
-- account_members are all it reads, and the policy just above shows them (no recursion: that
-- policy asks nothing of accounts). Supabase's advisors warn of any security definer function
-- that `authenticated` may execute (lint 0029).
create function app.is_member(p_account_id uuid) returns boolean
language plpgsql stable
set search_path = ''
as $$
begin
  return exists (select from app.account_members m
                  where m.account_id = p_account_id and m.user_id = (select auth.uid()));
end
$$;
comment on function app.is_member(uuid) is 'Whether the signed-in Supabase user is a member of the account.';

create policy "Members see their accounts" on app.accounts
  for select to authenticated using (app.is_member(id));

-- ============================================================================
-- functions
-- ============================================================================
-- Operators (admin.*): the parameter names are the documented interface.
create function admin.create_account(name text) returns uuid
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into app.accounts (name) values (btrim(create_account.name)) returning id into v_id;
  return v_id;
end
$$;
comment on function admin.create_account(text) is 'Creates an account with API access off.';

create function admin.set_api_access(account_id uuid, enabled boolean) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  update app.accounts set api_access_enabled = set_api_access.enabled
   where id = set_api_access.account_id;
  if not found then
    raise exception 'account % not found', set_api_access.account_id using errcode = 'P0002';
  end if;
end
$$;

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
comment on function admin.add_account_member(uuid, uuid) is 'Lets a Supabase Auth user manage the account''s keys.';

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

-- ============================================================================
-- grants
-- ============================================================================
grant select on app.accounts to tournament_api_owner;
-- Members read through the views (security_invoker: RLS and these grants apply).
grant usage on schema app to authenticated;

grant select on app.account_members to authenticated;
grant select (id, name, api_access_enabled, created_at) on app.accounts to authenticated;
-- Supabase's default privileges give anon, authenticated and service_role ALL on new objects
-- in public: take everything back, then grant only reading.
revoke all on public.my_accounts from public, anon, authenticated, service_role;
grant select on public.my_accounts to authenticated;
grant execute on function app.is_member(uuid) to authenticated;