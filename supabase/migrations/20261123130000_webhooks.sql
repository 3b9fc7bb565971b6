-- Webhooks (contract section 11): endpoints, the event outbox, deliveries, and the
-- dispatcher's door.
--
-- Outbox. Triggers on tournaments, registrations and matches record an intent (type and
-- subject) in app.webhook_intents in the transaction of the change, and only for an account
-- with an enabled endpoint. At commit a deferred trigger turns the transaction's intents into
-- events whose payloads are built from the final state (what the API's GET shows then), with
-- one delivery per subscribed enabled endpoint (an intent nobody hears becomes nothing), and
-- notifies channel `webhooks`.
-- A request that fails, is refused or is replayed runs no change, so it records nothing; a
-- change that is rolled back takes its events with it.
--
-- Roles:
--   tournament_webhooks        the dispatcher's login role: it may execute the webhooks.*
--                              functions (claim, settle, prune) and nothing else.
--   tournament_webhooks_owner  owns them; reads endpoints and events, updates deliveries and
--                              endpoints' delivery state. No login, no BYPASSRLS.
-- Neither role can call api.call, and tournament_api cannot call webhooks.*.
--
-- Secrets are AES-256-GCM ciphertexts made by the functions with WEBHOOK_ENCRYPTION_KEY,
-- which the database never holds: a dump alone cannot sign a delivery.

-- ============================================================================
-- roles, schema
-- ============================================================================
create schema if not exists webhooks;
do $$
begin
  if not exists (select from pg_roles where rolname = 'tournament_webhooks') then
    create role tournament_webhooks nologin noinherit nobypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'tournament_webhooks_owner') then
    create role tournament_webhooks_owner nologin noinherit nobypassrls;
  end if;
  if not (select r.rolsuper from pg_roles r where r.rolname = current_user) then
    execute format('grant tournament_webhooks_owner to %I', current_user);
  end if;
end
$$;
comment on role tournament_webhooks is 'The webhooks dispatcher''s login role: it may execute webhooks.*, nothing else.';
comment on role tournament_webhooks_owner is 'Owns webhooks.* and holds what claiming and settling deliveries need.';
alter role tournament_webhooks set statement_timeout = '10s';
alter role tournament_webhooks set idle_in_transaction_session_timeout = '10s';
revoke all on schema webhooks from public;
grant usage on schema webhooks to tournament_webhooks;
grant usage on schema app to tournament_webhooks_owner;

-- ============================================================================
-- types
-- ============================================================================
create or replace function app.scopes() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['read:tournaments', 'write:tournaments', 'read:registrations',
               'write:registrations', 'read:results', 'write:results', 'read:teams', 'write:teams',
               'read:webhooks', 'write:webhooks']
$$;

-- The event types an endpoint may subscribe to (webhook.test is sent on request only).
create function app.webhook_event_types() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['tournament.created', 'tournament.updated', 'tournament.started', 'tournament.completed',
               'tournament.cancelled', 'tournament.deleted', 'registration.created', 'registration.updated',
               'registration.withdrawn', 'match.ready', 'match.completed', 'match.corrected', 'match.scheduled']
$$;
comment on function app.webhook_event_types() is 'Every event type an endpoint may subscribe to (functions/api/contract.ts: EVENT_TYPES).';

-- ============================================================================
-- tables
-- ============================================================================
-- Dispatchers waiting for work (LISTEN webhooks), each until sleeping_until. A commit that
-- recorded deliveries notifies only while one waits: NOTIFY takes a lock that lets one notifying
-- commit through at a time, which halved POST /tournaments with a subscribed endpoint.
create table app.webhook_sleepers (
  dispatcher_id uuid primary key,
  sleeping_until timestamptz not null
);
comment on table app.webhook_sleepers is 'Dispatchers waiting on LISTEN webhooks, and until when (webhooks.sleep).';

create table app.webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references app.accounts (id) on delete cascade,
  url text not null check (char_length(url) <= 2048 and url ~ '^https?://'),
  events text[] not null check (cardinality(events) >= 1
    and (events = array['*'] or events <@ app.webhook_event_types())),
  -- Not a foreign key: the endpoint outlives its tournament (it still hears tournament.deleted).
  tournament_id uuid,
  description text check (char_length(description) <= 200),
  enabled boolean not null default true,
  disabled_reason text check (disabled_reason in ('failing')),
  secret bytea not null,
  previous_secret bytea,
  previous_secret_expires_at timestamptz,
  failing_since timestamptz,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now()
);
comment on table app.webhook_endpoints is 'Where an account''s events are delivered (contract 11).';
comment on column app.webhook_endpoints.secret is 'The signing secret, AES-256-GCM encrypted by the functions (WEBHOOK_ENCRYPTION_KEY).';
comment on column app.webhook_endpoints.previous_secret is 'The secret before the last rotation, still signing until previous_secret_expires_at.';
comment on column app.webhook_endpoints.failing_since is 'The first failed attempt since the last success; 5 days of it disables the endpoint.';

-- A transaction's intents, until it commits (then they become events, or nothing). Unlogged:
-- they live within one transaction, so a crash loses nothing that committed, and they cost no WAL.
create unlogged table app.webhook_intents (
  seq bigint generated always as identity,
  tx xid8 not null default pg_current_xact_id(),
  account_id uuid not null,
  tournament_id uuid,
  type text not null,
  -- What the change is about: 'tournament', 'registration', 'match.ready', 'match.result' or
  -- 'match.scheduled'; one event per (transaction, kind, subject).
  kind text not null,
  subject_id uuid not null,
  -- Set when recorded for what cannot be read back at commit (a deleted resource).
  data json,
  primary key (tx, kind, subject_id)
);
comment on table app.webhook_intents is 'Events recorded by a transaction still in flight; published (or dropped) at its commit.';

create table app.webhook_events (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references app.accounts (id) on delete cascade,
  tournament_id uuid,
  type text not null,
  -- The exact body every delivery sends.
  payload text not null,
  created_at timestamptz(3) not null default clock_timestamp()
);
comment on table app.webhook_events is 'The outbox: each change''s event with a subscriber, committed with the change.';

create table app.webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  endpoint_id uuid not null references app.webhook_endpoints (id) on delete cascade,
  account_id uuid not null,
  event_id uuid not null references app.webhook_events (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'exhausted')),
  attempts int not null default 0,
  next_attempt_at timestamptz(3) default clock_timestamp(),
  lease_until timestamptz,
  lease_token uuid,
  last_attempt_at timestamptz(3),
  last_status_code int,
  last_error text check (char_length(last_error) <= 500),
  created_at timestamptz(3) not null default clock_timestamp(),
  delivered_at timestamptz(3)
);
comment on table app.webhook_deliveries is 'One event to one endpoint: its attempts and their outcome.';
comment on column app.webhook_deliveries.lease_until is 'Claimed by a dispatcher until then; after it, another may claim the attempt again.';

-- ============================================================================
-- indexes
-- ============================================================================
create index webhook_endpoints_account_idx on app.webhook_endpoints (account_id, created_at desc, id desc);
create index webhook_events_account_idx on app.webhook_events (account_id);
create index webhook_events_created_idx on app.webhook_events (created_at);
create index webhook_deliveries_event_idx on app.webhook_deliveries (event_id);
create index webhook_deliveries_endpoint_idx on app.webhook_deliveries (endpoint_id, created_at desc, id desc);
-- The dispatchers' queue (webhooks.claim): the endpoints with deliveries still to attempt; per
-- endpoint the first attempts in event order, the retries by when they are due, and the leased.
create index webhook_deliveries_queue_idx on app.webhook_deliveries (endpoint_id)
  where status in ('pending', 'failed');
create index webhook_deliveries_first_idx on app.webhook_deliveries (endpoint_id, seq)
  where status = 'pending' and attempts = 0;
create index webhook_deliveries_retry_idx on app.webhook_deliveries (endpoint_id, next_attempt_at)
  where status in ('pending', 'failed') and attempts > 0;
create index webhook_deliveries_leased_idx on app.webhook_deliveries (endpoint_id)
  where lease_until is not null;

-- ============================================================================
-- views
-- ============================================================================
create view app.webhook_documents with (security_invoker = true) as
  select w.id, w.account_id, w.created_at,
         json_build_object('id', w.id, 'url', w.url, 'events', w.events, 'tournament_id', w.tournament_id,
           'description', w.description, 'enabled', w.enabled, 'disabled_reason', w.disabled_reason,
           'created_at', to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'updated_at', to_char(w.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.webhook_endpoints w;

create view app.webhook_delivery_documents with (security_invoker = true) as
  select d.id, d.endpoint_id, d.status, d.created_at,
         json_build_object('id', d.id, 'event_id', d.event_id, 'event_type', e.type, 'status', d.status,
           'attempts', d.attempts,
           'last_attempt_at', to_char(d.last_attempt_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'next_attempt_at', case when d.status in ('pending', 'failed')
             then to_char(d.next_attempt_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end,
           'last_status_code', d.last_status_code, 'last_error', d.last_error, 'payload', e.payload::json,
           'created_at', to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'delivered_at', to_char(d.delivered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.webhook_deliveries d
    join app.webhook_events e on e.id = d.event_id;

-- ============================================================================
-- RLS + policies
-- ============================================================================
alter table app.webhook_endpoints enable row level security;
alter table app.webhook_intents enable row level security; -- no policy: only the definer functions touch it
alter table app.webhook_sleepers enable row level security;
create policy "Sleepers are kept by the dispatcher" on app.webhook_sleepers
  for all to tournament_webhooks_owner using (true) with check (true);
alter table app.webhook_events enable row level security;
alter table app.webhook_deliveries enable row level security;

create policy "Webhook endpoints are visible to their account" on app.webhook_endpoints
  for select to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Webhook endpoints are created in the bound account" on app.webhook_endpoints
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Webhook endpoints are updated by their account" on app.webhook_endpoints
  for update to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Webhook endpoints are deleted by their account" on app.webhook_endpoints
  for delete to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Webhook events are visible to their account" on app.webhook_events
  for select to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Webhook deliveries are visible to their account" on app.webhook_deliveries
  for select to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Webhook deliveries are retried by their account" on app.webhook_deliveries
  for update to tournament_api_owner using (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));

-- The dispatcher works across accounts.
create policy "Webhook endpoints are visible to the dispatcher" on app.webhook_endpoints
  for select to tournament_webhooks_owner using (true);
create policy "Webhook endpoints are settled by the dispatcher" on app.webhook_endpoints
  for update to tournament_webhooks_owner using (true);
create policy "Webhook events are visible to the dispatcher" on app.webhook_events
  for select to tournament_webhooks_owner using (true);
create policy "Webhook events are pruned by the dispatcher" on app.webhook_events
  for delete to tournament_webhooks_owner using (true);
create policy "Webhook deliveries are visible to the dispatcher" on app.webhook_deliveries
  for select to tournament_webhooks_owner using (true);
create policy "Webhook deliveries are claimed and settled by the dispatcher" on app.webhook_deliveries
  for update to tournament_webhooks_owner using (true);
create policy "Webhook deliveries are pruned by the dispatcher" on app.webhook_deliveries
  for delete to tournament_webhooks_owner using (true);

-- ============================================================================
-- functions: recording events
-- ============================================================================
-- Which of two events of one change wins (a PATCH that updates fields then starts is one
-- tournament.started; a registration created and updated in one transaction is created).
create function app.webhook_rank(p_type text) returns int
language plpgsql immutable
set search_path = ''
as $$
begin
  return case p_type
    when 'tournament.deleted' then 5 when 'registration.withdrawn' then 5
    when 'tournament.created' then 4 when 'registration.created' then 4
    when 'tournament.started' then 3 when 'tournament.completed' then 3 when 'tournament.cancelled' then 3
    when 'match.corrected' then 2 else 1 end;
end
$$;

-- Records intents (json array of {account_id, tournament_id, type, kind, subject_id, data}) for
-- accounts with an enabled endpoint. Security definer: a change may touch another account's
-- rows (a team deleted by its owner withdraws it from other accounts' tournaments).
create function app.webhook_record(p_intents json) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  insert into app.webhook_intents as e (account_id, tournament_id, type, kind, subject_id, data)
  select i.account_id, i.tournament_id, i.type, i.kind, i.subject_id, i.data
    from json_to_recordset(p_intents)
      as i (account_id uuid, tournament_id uuid, type text, kind text, subject_id uuid, data json)
   where exists (select from app.webhook_endpoints w where w.account_id = i.account_id and w.enabled)
     and exists (select from app.accounts a where a.id = i.account_id)
  on conflict (tx, kind, subject_id) do update
     set type = case when app.webhook_rank(excluded.type) > app.webhook_rank(e.type) then excluded.type else e.type end,
         data = coalesce(excluded.data, e.data);
  if found then
    -- api.call tells the function, which then nudges the hosted dispatcher.
    perform set_config('app.webhooks_recorded', 'on', true);
  end if;
end
$$;

-- Each change's intents, from the statement's transition tables (one statement: one array).
create function app.webhook_change_events() returns trigger
language plpgsql volatile
set search_path = ''
as $$
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
              n.entry_fee, n.prize_pool, n.starts_at, n.registration_closes, n.check_in_opens, n.rules)
             is distinct from
             (o.name, o.description, o.game_id, o.status, o.format, o.format_options, o.team_size, o.max_teams,
              o.entry_fee, o.prize_pool, o.starts_at, o.registration_closes, o.check_in_opens, o.rules);
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
       where (n.seed, n.payment_status, n.checked_in_at) is distinct from (o.seed, o.payment_status, o.checked_in_at);
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
            and (o.status <> 'ready' or (n.team1_id, n.team2_id) is distinct from (o.team1_id, o.team2_id))
         union all
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', case when o.status = 'completed' then 'match.corrected' else 'match.completed' end,
                  'kind', 'match.result', 'subject_id', n.id)
          where n.status = 'completed' and n.team1_id is not null and n.team2_id is not null
            and (o.status = 'ready'
                 or (o.status = 'completed' and (n.winner_id, n.team1_score, n.team2_score, n.forfeit)
                     is distinct from (o.winner_id, o.team1_score, o.team2_score, o.forfeit)))
         union all
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', 'match.scheduled', 'kind', 'match.scheduled', 'subject_id', n.id)
          where n.scheduled_at is distinct from o.scheduled_at
       ) x;
    end if;
  end case;
  if v_intents is not null then
    perform app.webhook_record(v_intents);
  end if;
  return null;
end
$$;

-- A withdrawal: the registration as GET showed it, read before it goes. Not when its tournament
-- is being deleted (that is one tournament.deleted).
create function app.webhook_registration_withdrawn() returns trigger
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if exists (select from app.webhook_endpoints w where w.account_id = old.account_id and w.enabled)
     and exists (select from app.tournaments t where t.id = old.tournament_id) then
    perform app.webhook_record(json_build_array(json_build_object('account_id', old.account_id,
      'tournament_id', old.tournament_id, 'type', 'registration.withdrawn', 'kind', 'registration',
      'subject_id', old.id,
      'data', (select d.doc from app.registration_documents d where d.id = old.id))));
  end if;
  return old;
end
$$;

-- Wakes a waiting dispatcher (at this transaction's commit), if one waits.
create function app.webhook_wake() returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if exists (select from app.webhook_sleepers s where s.sleeping_until > clock_timestamp()) then
    perform pg_notify('webhooks', '');
  end if;
end
$$;

-- At commit (deferred, once per transaction): payloads from the final state, deliveries for
-- the subscribed enabled endpoints, and a notification for the local dispatcher.
create function app.webhook_publish() returns trigger
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_tx xid8 := pg_current_xact_id();
  v_now text := app.iso(clock_timestamp());
  v_count int;
begin
  if current_setting('app.webhooks_published', true) = v_tx::text then
    return null;
  end if;
  perform set_config('app.webhooks_published', v_tx::text, true);

  -- Each intent's data from the final state; one delivery per subscribed enabled endpoint; an
  -- event only where there is one. In one transaction the tournament's own event comes first
  -- (started, then its matches ready).
  with i as materialized (
    select x.seq, x.account_id, x.tournament_id, x.type, gen_random_uuid() as event_id,
           coalesce(x.data, case
             when x.kind = 'tournament' then (select t.doc from app.tournament_documents t where t.id = x.subject_id)
             when x.kind = 'registration' then (select d.doc from app.registration_documents d where d.id = x.subject_id)
             else (select (m.doc::jsonb || jsonb_build_object('tournament_id', m.tournament_id))::json
                     from app.match_documents m where m.id = x.subject_id)
           end) as data
      from app.webhook_intents x
     where x.tx = v_tx
  ), targets as (
    select i.seq, i.event_id, i.account_id, i.type, w.id as endpoint_id
      from i
      join app.webhook_endpoints w
        on w.account_id = i.account_id
       and w.enabled
       and (w.tournament_id is null or w.tournament_id = i.tournament_id)
       and (w.events = array['*'] or i.type = any (w.events))
     where i.data is not null -- the resource is gone again: nothing to say
    -- An endpoint deleted meanwhile is skipped (its row is re-read once the delete commits),
    -- rather than failing the change on the deliveries' foreign key.
       for key share of w
  ), events as (
    insert into app.webhook_events (id, account_id, tournament_id, type, payload)
    select i.event_id, i.account_id, i.tournament_id, i.type,
           json_build_object('type', i.type, 'timestamp', v_now, 'data', i.data)::text
      from i
     where i.event_id in (select t.event_id from targets t)
  )
  insert into app.webhook_deliveries (endpoint_id, account_id, event_id)
  select t.endpoint_id, t.account_id, t.event_id
    from targets t
   order by t.type like 'tournament.%' desc, t.seq, t.endpoint_id;
  get diagnostics v_count = row_count;
  delete from app.webhook_intents x where x.tx = v_tx;
  if v_count > 0 then
    perform app.webhook_wake();
  end if;
  return null;
end
$$;

-- ============================================================================
-- triggers
-- ============================================================================
create trigger webhook_events_on_insert after insert on app.tournaments
  referencing new table as new_rows for each statement execute function app.webhook_change_events();
create trigger webhook_events_on_update after update on app.tournaments
  referencing old table as old_rows new table as new_rows for each statement execute function app.webhook_change_events();
create trigger webhook_events_on_delete after delete on app.tournaments
  referencing old table as old_rows for each statement execute function app.webhook_change_events();
create trigger webhook_events_on_insert after insert on app.registrations
  referencing new table as new_rows for each statement execute function app.webhook_change_events();
create trigger webhook_events_on_update after update on app.registrations
  referencing old table as old_rows new table as new_rows for each statement execute function app.webhook_change_events();
create trigger webhook_events_on_delete before delete on app.registrations
  for each row execute function app.webhook_registration_withdrawn();
create trigger webhook_events_on_insert after insert on app.matches
  referencing new table as new_rows for each statement execute function app.webhook_change_events();
create trigger webhook_events_on_update after update on app.matches
  referencing old table as old_rows new table as new_rows for each statement execute function app.webhook_change_events();
create constraint trigger webhook_intents_publish after insert on app.webhook_intents
  deferrable initially deferred for each row execute function app.webhook_publish();

-- ============================================================================
-- functions: the API's operations
-- ============================================================================
create function app.webhook_fields(p_body jsonb, p_old app.webhook_endpoints default null,
  out url text, out events text[], out tournament_id uuid, out description text, out enabled boolean)
language plpgsql stable
set search_path = ''
as $$
begin
  -- Shapes were checked by the function (zod); SQL keeps what the table's checks cannot say.
  perform app.check_input(p_body, '{"tournament_id": "uuid", "enabled": "boolean"}');
  url := coalesce(p_body ->> 'url', p_old.url);
  events := case when p_body ? 'events' then array(select jsonb_array_elements_text(p_body -> 'events')) else p_old.events end;
  tournament_id := case when p_body ? 'tournament_id' then (p_body ->> 'tournament_id')::uuid else p_old.tournament_id end;
  description := case when p_body ? 'description' then p_body ->> 'description' else p_old.description end;
  enabled := coalesce((p_body ->> 'enabled')::boolean, p_old.enabled, true);
  if url is null or url !~ '^https?://' or char_length(url) > 2048 then
    perform app.raise_invalid('url', 'must be an absolute https:// URL of at most 2,048 characters');
  end if;
  if cardinality(events) < 1 or not (events = array['*'] or events <@ app.webhook_event_types())
     or cardinality(events) <> (select count(distinct v) from unnest(events) v) then
    perform app.raise_invalid('events', 'must be a non-empty list of distinct event types, or ["*"]');
  end if;
  if char_length(description) > 200 then
    perform app.raise_invalid('description', 'must be at most 200 characters');
  end if;
  if p_body ? 'tournament_id' and tournament_id is not null
     and not exists (select from app.tournaments t where t.id = tournament_id) then
    perform app.raise_invalid('tournament_id', 'must be one of your tournaments');
  end if;
end
$$;

-- A list's page and page size from its query (1 and 20 by default; 400 when out of range).
create function app.page_of(p_query jsonb, out page int, out page_size int)
language plpgsql stable
set search_path = ''
as $$
begin
  perform app.check_input(p_query, '{"page": "int", "limit": "int"}');
  page := coalesce((p_query ->> 'page')::int, 1);
  page_size := coalesce((p_query ->> 'limit')::int, 20);
  if page < 1 or page_size not between 1 and 100 then
    perform app.raise_invalid(case when page < 1 then 'page' else 'limit' end, 'out of range');
  end if;
end
$$;

create function app.list_webhooks(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_page int;
  v_limit int;
begin
  select p.page, p.page_size into v_page, v_limit from app.page_of(v_query) p;
  return json_build_object(
    'data', (select coalesce(json_agg(p.doc order by p.created_at desc, p.id desc), '[]')
               from (select d.doc, d.created_at, d.id from app.webhook_documents d
                      order by d.created_at desc, d.id desc
                     offset (v_page - 1)::bigint * v_limit limit v_limit) p),
    'pagination', json_build_object('page', v_page, 'limit', v_limit,
      'total', (select count(*) from app.webhook_endpoints), 'next_cursor', null));
end
$$;

-- The caller's endpoint, locked for a change; 404 when it is not the caller's.
create function app.own_webhook(p_id uuid) returns app.webhook_endpoints
language plpgsql volatile
set search_path = ''
as $$
declare
  v_w app.webhook_endpoints;
begin
  select * into v_w from app.webhook_endpoints w where w.id = p_id for update;
  if v_w.id is null then
    perform app.raise_error('not_found', 'Webhook endpoint not found.');
  end if;
  return v_w;
end
$$;

create function app.get_webhook(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_doc json;
begin
  perform app.check_input(p_args, '{"webhook_id": "uuid"}');
  select d.doc into v_doc from app.webhook_documents d where d.id = (p_args ->> 'webhook_id')::uuid;
  if v_doc is null then
    perform app.raise_error('not_found', 'Webhook endpoint not found.');
  end if;
  return v_doc;
end
$$;

-- The endpoint with its secret's ciphertext: the function decrypts it into `secret`.
create function app.webhook_with_secret(p_id uuid) returns json
language plpgsql stable
set search_path = ''
as $$
begin
  return (select (d.doc::jsonb || jsonb_build_object('secret_ciphertext', encode(w.secret, 'base64')))::json
            from app.webhook_documents d join app.webhook_endpoints w on w.id = d.id
           where d.id = p_id);
end
$$;

create function app.create_webhook(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_account uuid := app.current_account_id();
  v_f record;
  v_id uuid;
begin
  select * into v_f from app.webhook_fields(coalesce(p_args -> 'body', '{}'));
  -- Creates in one account queue here, so the limit holds under concurrency.
  perform pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || v_account::text, 0));
  if (select count(*) from app.webhook_endpoints) >= 20 then
    perform app.raise_error('webhook_limit_reached', 'An account may have at most 20 webhook endpoints; delete one first.');
  end if;
  insert into app.webhook_endpoints (account_id, url, events, tournament_id, description, secret)
  values (v_account, v_f.url, v_f.events, v_f.tournament_id, v_f.description, decode(p_args ->> 'secret', 'base64'))
  returning id into v_id;
  return app.webhook_with_secret(v_id);
end
$$;

create function app.update_webhook(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_w app.webhook_endpoints;
  v_f record;
begin
  perform app.check_input(p_args, '{"webhook_id": "uuid"}');
  v_w := app.own_webhook((p_args ->> 'webhook_id')::uuid);
  select * into v_f from app.webhook_fields(coalesce(p_args -> 'body', '{}'), v_w);
  update app.webhook_endpoints w
     set url = v_f.url, events = v_f.events, tournament_id = v_f.tournament_id, description = v_f.description,
         enabled = v_f.enabled,
         disabled_reason = case when v_f.enabled then null else w.disabled_reason end,
         failing_since = case when v_f.enabled and not w.enabled then null else w.failing_since end,
         updated_at = now()
   where w.id = v_w.id
     and (w.url, w.events, w.tournament_id, w.description, w.enabled)
         is distinct from (v_f.url, v_f.events, v_f.tournament_id, v_f.description, v_f.enabled);
  return app.get_webhook(p_args);
end
$$;

create function app.delete_webhook(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_id uuid;
begin
  perform app.check_input(p_args, '{"webhook_id": "uuid"}');
  v_id := (app.own_webhook((p_args ->> 'webhook_id')::uuid)).id;
  -- Its deliveries go with it (a pending one is never attempted).
  delete from app.webhook_endpoints w where w.id = v_id;
  return json_build_object('message', 'Webhook deleted');
end
$$;

create function app.rotate_webhook_secret(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_w app.webhook_endpoints;
begin
  perform app.check_input(p_args, '{"webhook_id": "uuid"}');
  v_w := app.own_webhook((p_args ->> 'webhook_id')::uuid);
  update app.webhook_endpoints w
     set previous_secret = w.secret, previous_secret_expires_at = now() + interval '24 hours',
         secret = decode(p_args ->> 'secret', 'base64'), updated_at = now()
   where w.id = v_w.id;
  return app.webhook_with_secret(v_w.id);
end
$$;

-- A webhook.test event for this endpoint alone, whether it is enabled or subscribed.
create function app.test_webhook(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_w app.webhook_endpoints;
  v_event uuid;
  v_delivery uuid;
begin
  perform app.check_input(p_args, '{"webhook_id": "uuid"}');
  v_w := app.own_webhook((p_args ->> 'webhook_id')::uuid);
  insert into app.webhook_events (account_id, type, payload)
  select v_w.account_id, 'webhook.test',
         json_build_object('type', 'webhook.test', 'timestamp', app.iso(clock_timestamp()), 'data', d.doc)::text
    from app.webhook_documents d where d.id = v_w.id
  returning id into v_event;
  insert into app.webhook_deliveries (endpoint_id, account_id, event_id)
  values (v_w.id, v_w.account_id, v_event)
  returning id into v_delivery;
  perform app.webhook_wake();
  perform set_config('app.webhooks_recorded', 'on', true);
  return (select d.doc from app.webhook_delivery_documents d where d.id = v_delivery);
end
$$;

create function app.list_webhook_deliveries(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_query jsonb := coalesce(p_args -> 'query', '{}');
  v_endpoint uuid;
  v_page int;
  v_limit int;
  v_status text := v_query ->> 'status';
begin
  perform app.check_input(p_args, '{"webhook_id": "uuid"}');
  select p.page, p.page_size into v_page, v_limit from app.page_of(v_query) p;
  select w.id into v_endpoint from app.webhook_endpoints w where w.id = (p_args ->> 'webhook_id')::uuid;
  if v_endpoint is null then
    perform app.raise_error('not_found', 'Webhook endpoint not found.');
  end if;
  return json_build_object(
    'data', (select coalesce(json_agg(d.doc order by d.created_at desc, d.id desc), '[]')
               from app.webhook_delivery_documents d
              where d.id = any (array(
                select x.id from app.webhook_deliveries x
                 where x.endpoint_id = v_endpoint and (v_status is null or x.status = v_status)
                 order by x.created_at desc, x.id desc
                offset (v_page - 1)::bigint * v_limit limit v_limit))),
    'pagination', json_build_object('page', v_page, 'limit', v_limit,
      'total', (select count(*) from app.webhook_deliveries x
                 where x.endpoint_id = v_endpoint and (v_status is null or x.status = v_status)),
      'next_cursor', null));
end
$$;

-- A resend: an attempt now, whatever the delivery's status.
create function app.retry_webhook_delivery(p_args jsonb) returns json
language plpgsql volatile
set search_path = ''
as $$
declare
  v_id uuid;
begin
  perform app.check_input(p_args, '{"webhook_id": "uuid", "delivery_id": "uuid"}');
  update app.webhook_deliveries d
     set status = 'pending', next_attempt_at = clock_timestamp(), lease_until = null, lease_token = null
   where d.id = (p_args ->> 'delivery_id')::uuid and d.endpoint_id = (p_args ->> 'webhook_id')::uuid
  returning d.id into v_id;
  if v_id is null then
    perform app.raise_error('not_found', 'Webhook delivery not found.');
  end if;
  perform app.webhook_wake();
  perform set_config('app.webhooks_recorded', 'on', true);
  return (select d.doc from app.webhook_delivery_documents d where d.id = v_id);
end
$$;

-- ============================================================================
-- functions: the dispatcher's door
-- ============================================================================
-- Claims up to p_limit attempts that are due, at most p_per_endpoint per endpoint, taking turns
-- between accounts and then endpoints so that a busy one cannot starve the others, each with a
-- 60-second lease. Per endpoint, first attempts
-- are claimed in event order and only when none is in flight, so they go out in that order;
-- retries (attempts > 0) are claimed as they come due. Claims are serialized by an advisory
-- lock (each runs in a few milliseconds): a claim never sees a delivery that another one is
-- about to lease, so every attempt is made by one dispatcher.
create function webhooks.claim(p_limit int default 100, p_per_endpoint int default 25)
returns table (delivery_id uuid, lease_token uuid, event_id uuid, endpoint_id uuid, url text,
               secrets bytea[], payload text, attempts int)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_token uuid := gen_random_uuid();
begin
  perform pg_advisory_xact_lock(hashtextextended('webhooks.claim', 0));
  v_now := clock_timestamp();
  return query
  with recursive busy (endpoint_id) as (
    -- each endpoint with deliveries still to attempt, visited once (a loose index scan)
    (select d.endpoint_id from app.webhook_deliveries d
      where d.status in ('pending', 'failed') order by d.endpoint_id limit 1)
    union all
    select (select d.endpoint_id from app.webhook_deliveries d
             where d.status in ('pending', 'failed') and d.endpoint_id > b.endpoint_id
             order by d.endpoint_id limit 1)
      from busy b where b.endpoint_id is not null
  ), candidates as (
    select c.id, c.account_id, row_number() over (partition by c.endpoint_id order by c.first desc, c.seq) as rank
      from busy b
     cross join lateral (
       (select d.id, d.endpoint_id, d.account_id, d.seq, true as first from app.webhook_deliveries d
         where d.endpoint_id = b.endpoint_id and d.status = 'pending' and d.attempts = 0
           and d.next_attempt_at <= v_now
           and not exists (select from app.webhook_deliveries f
                            where f.endpoint_id = b.endpoint_id and f.lease_until is not null
                              and f.status = 'pending' and f.attempts = 0 and f.lease_until > v_now)
         order by d.seq limit p_per_endpoint)
       union all
       (select d.id, d.endpoint_id, d.account_id, d.seq, false from app.webhook_deliveries d
         where d.endpoint_id = b.endpoint_id and d.status in ('pending', 'failed') and d.attempts > 0
           and d.next_attempt_at <= v_now and (d.lease_until is null or d.lease_until <= v_now)
         order by d.next_attempt_at limit p_per_endpoint)
     ) c
     where b.endpoint_id is not null
  ), fair as (
    -- Accounts take turns, and each account's endpoints: a busy account cannot crowd out others.
    select c.id, row_number() over (partition by c.account_id order by c.rank, random()) as turn from candidates c
  ), picked as (
    select f.id from fair f order by f.turn, random() limit p_limit
  ), leased as (
    update app.webhook_deliveries d
       set lease_until = v_now + interval '60 seconds', lease_token = v_token
      from picked p
     where d.id = p.id and d.status in ('pending', 'failed') and (d.lease_until is null or d.lease_until <= v_now)
    returning d.id, d.seq, d.event_id, d.endpoint_id, d.attempts
  )
  select l.id, v_token, l.event_id, l.endpoint_id, w.url,
         case when w.previous_secret is not null and w.previous_secret_expires_at > v_now
              then array[w.secret, w.previous_secret] else array[w.secret] end,
         e.payload, l.attempts
    from leased l
    join app.webhook_endpoints w on w.id = l.endpoint_id
    join app.webhook_events e on e.id = l.event_id
   order by l.endpoint_id, l.seq;
end
$$;
comment on function webhooks.claim(int, int) is 'Leases due delivery attempts for 60 seconds (the dispatcher''s first call).';

-- Records attempts' outcomes: p_results is a json array of {delivery_id, lease_token,
-- attempted (false: handed back unattempted), ok, status_code, error, retry_in (seconds until
-- the next attempt; null: none left)}. An outcome whose lease was taken over is ignored (and
-- returned, as is one whose delivery is gone). An endpoint whose attempts have all failed for
-- p_disable_after is disabled.
create function webhooks.settle(p_results json, p_disable_after interval default '5 days')
returns table (lost_delivery_id uuid)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
begin
  -- The outcomes that find no delivery under their lease (deleted with its endpoint, or taken
  -- over after the lease ended) are returned: the dispatcher stops sending that batch.
  return query
  with r as (
    select * from json_to_recordset(p_results)
      as r (delivery_id uuid, lease_token uuid, attempted boolean, ok boolean, status_code int, error text, retry_in numeric)
  ), settled as (
    update app.webhook_deliveries d
       set lease_until = null, lease_token = null,
           attempts = d.attempts + case when r.attempted then 1 else 0 end,
           status = case when not r.attempted then d.status when r.ok then 'succeeded'
                         when r.retry_in is null then 'exhausted' else 'failed' end,
           next_attempt_at = case when not r.attempted then d.next_attempt_at when r.ok or r.retry_in is null then null
                                  else v_now + make_interval(secs => r.retry_in) end,
           last_attempt_at = case when r.attempted then v_now else d.last_attempt_at end,
           last_status_code = case when r.attempted then r.status_code else d.last_status_code end,
           last_error = case when not r.attempted then d.last_error when r.ok then null else left(r.error, 500) end,
           delivered_at = case when r.attempted and r.ok then v_now else d.delivered_at end
      from r
     where d.id = r.delivery_id and d.lease_token = r.lease_token
    returning d.id, d.endpoint_id, r.attempted, r.ok
  ), outcome as (
    select s.endpoint_id, bool_or(s.ok) as ok from settled s where s.attempted group by s.endpoint_id
  ), endpoints as (
    update app.webhook_endpoints w
       set failing_since = case when o.ok then null else coalesce(w.failing_since, v_now) end,
           enabled = case when not o.ok and w.failing_since <= v_now - p_disable_after then false else w.enabled end,
           disabled_reason = case when not o.ok and w.failing_since <= v_now - p_disable_after then 'failing'
                                  else w.disabled_reason end
      from outcome o
     where w.id = o.endpoint_id
       and (case when o.ok then w.failing_since is not null
                 else w.failing_since is null or (w.enabled and w.failing_since <= v_now - p_disable_after) end)
    returning w.id
  )
  select r.delivery_id from r where r.delivery_id not in (select s.id from settled s);
end
$$;
comment on function webhooks.settle(json, interval) is 'Records attempts'' outcomes and schedules retries (the dispatcher''s second call).';

-- A dispatcher about to wait (p_ms > 0) for work, or awake again (0): commits notify while one waits.
create function webhooks.sleep(p_dispatcher_id uuid, p_ms int) returns void
language plpgsql volatile security definer
set search_path = ''
as $$
begin
  if p_ms > 0 then
    insert into app.webhook_sleepers as s (dispatcher_id, sleeping_until)
    values (p_dispatcher_id, clock_timestamp() + make_interval(secs => p_ms / 1000.0))
    on conflict (dispatcher_id) do update set sleeping_until = excluded.sleeping_until;
  else
    delete from app.webhook_sleepers s
     where s.dispatcher_id = p_dispatcher_id or s.sleeping_until < clock_timestamp() - interval '1 hour';
  end if;
end
$$;
comment on function webhooks.sleep(uuid, int) is 'Marks a dispatcher waiting on LISTEN webhooks for p_ms (0: awake), so that commits notify it.';

-- Deletes events (and with them their deliveries) older than 30 days, a batch at a time.
create function webhooks.prune(p_batch int default 5000) returns int
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_count int;
begin
  delete from app.webhook_events e
   where e.id = any (array(select x.id from app.webhook_events x
                            where x.created_at < clock_timestamp() - interval '30 days'
                            order by x.created_at limit p_batch));
  get diagnostics v_count = row_count;
  return v_count;
end
$$;
comment on function webhooks.prune(int) is 'Deletes events and deliveries older than 30 days (run by the dispatcher now and then).';

-- As for api.call: the new owner may create in the schema for the hand-over only (needed when
-- the migration role is not a superuser, as `postgres` on hosted Supabase is not).
grant create on schema webhooks to tournament_webhooks_owner;
alter function webhooks.claim(int, int) owner to tournament_webhooks_owner;
alter function webhooks.settle(json, interval) owner to tournament_webhooks_owner;
alter function webhooks.prune(int) owner to tournament_webhooks_owner;
alter function webhooks.sleep(uuid, int) owner to tournament_webhooks_owner;
revoke create on schema webhooks from tournament_webhooks_owner;

-- ============================================================================
-- functions: the door (api.call gains the webhook operations)
-- ============================================================================
create or replace function api.call(p_key_hash bytea, p_scope text, p_op text, p_args jsonb,
                                    p_idempotency jsonb default null,
                                    out auth json, out error json, out result json, out replay json)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  c_limit constant int := 100;
  v_scope text;          -- the scope the operation needs (null: any valid key)
  v_writes boolean;      -- whether the operation writes (then its commit waits for the WAL flush)
  v_key record;
  v_state record;
  v_count record;
  v_sqlstate text;
  v_message text;
  v_hint text;
  v_detail text;
begin
  perform set_config('app.account_id', '', true);
  perform set_config('synchronous_commit', 'off', true);

  -- The operations, by name: the scope each needs and whether it writes. 'none' checks the key,
  -- counts the request and runs nothing (the function found the input invalid; p_scope is the
  -- route's scope, so a 403 still comes before the 400).
  case coalesce(p_op, 'none')
    when 'tournaments.list'     then v_scope := 'read:tournaments';    v_writes := false;
    when 'tournaments.get'      then v_scope := 'read:tournaments';    v_writes := false;
    when 'tournaments.create'   then v_scope := 'write:tournaments';   v_writes := true;
    when 'tournaments.update'   then v_scope := 'write:tournaments';   v_writes := true;
    when 'tournaments.delete'   then v_scope := 'write:tournaments';   v_writes := true;
    when 'registrations.list'   then v_scope := 'read:registrations';  v_writes := false;
    when 'registrations.get'    then v_scope := 'read:registrations';  v_writes := false;
    when 'registrations.create' then v_scope := 'write:registrations'; v_writes := true;
    when 'registrations.update' then v_scope := 'write:registrations'; v_writes := true;
    when 'registrations.delete' then v_scope := 'write:registrations'; v_writes := true;
    when 'results.get'          then v_scope := 'read:results';        v_writes := false;
    when 'matches.report'       then v_scope := 'write:results';       v_writes := true;
    when 'teams.list'           then v_scope := 'read:teams';          v_writes := false;
    when 'teams.get'            then v_scope := 'read:teams';          v_writes := false;
    when 'teams.create'         then v_scope := 'write:teams';         v_writes := true;
    when 'teams.update'         then v_scope := 'write:teams';         v_writes := true;
    when 'teams.delete'         then v_scope := 'write:teams';         v_writes := true;
    when 'webhooks.list'        then v_scope := 'read:webhooks';       v_writes := false;
    when 'webhooks.get'         then v_scope := 'read:webhooks';       v_writes := false;
    when 'webhooks.create'      then v_scope := 'write:webhooks';      v_writes := true;
    when 'webhooks.update'      then v_scope := 'write:webhooks';      v_writes := true;
    when 'webhooks.delete'      then v_scope := 'write:webhooks';      v_writes := true;
    when 'webhooks.rotate'      then v_scope := 'write:webhooks';      v_writes := true;
    when 'webhooks.test'        then v_scope := 'write:webhooks';      v_writes := true;
    when 'deliveries.list'      then v_scope := 'read:webhooks';       v_writes := false;
    when 'deliveries.retry'     then v_scope := 'write:webhooks';      v_writes := true;
    when 'me'                   then v_scope := null;                  v_writes := false;
    when 'none'                 then v_scope := p_scope;               v_writes := false;
    else raise exception 'unknown operation %', p_op using errcode = '22023';
  end case;

  -- 1. The key (401): one message for unknown, revoked and expired.
  select f.id, f.account_id, f.scopes, f.last_used_at into v_key from app.find_api_key(p_key_hash) f;
  if v_key.id is null then
    auth := json_build_object('error', 'unauthorized');
    return;
  end if;
  perform set_config('app.account_id', v_key.account_id::text, true);

  -- 2. The account (403), and the rate limit as of this snapshot (429 without a lock).
  select a.api_access_enabled as enabled, r.slots[r.next_slot] as oldest, clock_timestamp() as now
    into v_state
    from app.accounts a
    left join app.rate_limits r on r.api_key_id = v_key.id
   where a.id = v_key.account_id;
  if not coalesce(v_state.enabled, false) then
    auth := json_build_object('error', 'api_access_disabled', 'key_id', v_key.id);
    return;
  end if;
  if v_state.oldest > v_state.now - interval '60 seconds' then
    auth := json_build_object('error', 'rate_limited', 'key_id', v_key.id, 'limit', c_limit, 'remaining', 0,
      'reset', greatest(1, ceil(extract(epoch from v_state.oldest + interval '60 seconds' - v_state.now)))::int,
      'window', 60);
    return;
  end if;

  -- 3. The scope (403, counted), then the operation.
  if v_scope is not null and not coalesce(v_scope = any (v_key.scopes), false) then
    auth := json_build_object('error', 'insufficient_scope');
  elsif p_op is not null and p_op <> 'none' then
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
    elsif error is null then
      begin
        case p_op
          when 'tournaments.list'     then result := app.list_tournaments(p_args);
          when 'tournaments.get'      then result := app.get_tournament(p_args);
          when 'tournaments.create'   then result := app.create_tournament(p_args);
          when 'tournaments.update'   then result := app.update_tournament(p_args);
          when 'tournaments.delete'   then result := app.delete_tournament(p_args);
          when 'registrations.list'   then result := app.list_registrations(p_args);
          when 'registrations.get'    then result := app.get_registration(p_args);
          when 'registrations.create' then result := app.create_registration(p_args);
          when 'registrations.update' then result := app.update_registration(p_args);
          when 'registrations.delete' then result := app.delete_registration(p_args);
          when 'results.get'          then result := app.tournament_results(p_args);
          when 'matches.report'       then result := app.report_match(p_args);
          when 'teams.list'           then result := app.list_teams(p_args);
          when 'teams.get'            then result := app.get_team(p_args);
          when 'teams.create'         then result := app.create_team(p_args);
          when 'teams.update'         then result := app.update_team(p_args);
          when 'teams.delete'         then result := app.delete_team(p_args);
          when 'webhooks.list'        then result := app.list_webhooks(p_args);
          when 'webhooks.get'         then result := app.get_webhook(p_args);
          when 'webhooks.create'      then result := app.create_webhook(p_args);
          when 'webhooks.update'      then result := app.update_webhook(p_args);
          when 'webhooks.delete'      then result := app.delete_webhook(p_args);
          when 'webhooks.rotate'      then result := app.rotate_webhook_secret(p_args);
          when 'webhooks.test'        then result := app.test_webhook(p_args);
          when 'deliveries.list'      then result := app.list_webhook_deliveries(p_args);
          when 'deliveries.retry'     then result := app.retry_webhook_delivery(p_args);
          when 'me'                   then result := app.me(v_key.id);
        end case;
      exception when others then
        get stacked diagnostics v_sqlstate = returned_sqlstate, v_message = message_text,
                                v_hint = pg_exception_hint, v_detail = pg_exception_detail;
        -- Serialization failures, deadlocks and timeouts abort the request (503: it did nothing).
        if v_sqlstate in ('40001', '40P01', '55P03', '57014') then
          raise;
        end if;
        error := json_build_object('sqlstate', v_sqlstate, 'code', v_hint, 'message', v_message,
          'details', case when v_sqlstate = 'P0001' and v_detail like '[%' then v_detail::json end);
      end;
      -- Saved in the same transaction as the operation's writes: both or neither. Validation
      -- errors are not saved, so a corrected request may reuse the key.
      if p_idempotency is not null
         and (error is null or ((error ->> 'sqlstate') = 'P0001' and (error ->> 'code') <> 'validation_error')) then
        perform app.idempotency_save(v_key.id, p_idempotency, result, error);
      end if;
    end if;
  end if;

  -- 4. Count the request: overwrite the oldest slot if it has left the window.
  insert into app.rate_limits as r (api_key_id, account_id, next_slot, slots)
  values (v_key.id, v_key.account_id, 2,
          array[clock_timestamp()] || array_fill('-infinity'::timestamptz, array[c_limit - 1]))
  on conflict (api_key_id) do update
     set slots[r.next_slot] = clock_timestamp(), next_slot = r.next_slot % c_limit + 1
   where r.slots[r.next_slot] <= clock_timestamp() - interval '60 seconds'
  returning (select count(*)::int from unnest(r.slots) s where s > clock_timestamp() - interval '60 seconds') as used,
            (select min(s) from unnest(r.slots) s where s > clock_timestamp() - interval '60 seconds') as oldest,
            clock_timestamp() as now
  into v_count;
  if not found then -- the window filled up meanwhile: undo everything, answer 429
    raise exception 'rate limited' using errcode = 'TA429', hint = 'rate_limited',
      detail = app.rate_limit_state(v_key.id, c_limit)::text;
  end if;
  if v_key.last_used_at is null or v_key.last_used_at < v_count.now - interval '1 minute' then
    perform app.touch_api_key(v_key.id);
  end if;

  auth := json_build_object('error', auth ->> 'error', 'key_id', v_key.id, 'account_id', v_key.account_id,
    'limit', c_limit, 'remaining', c_limit - v_count.used,
    'reset', greatest(1, ceil(extract(epoch from v_count.oldest + interval '60 seconds' - v_count.now)))::int,
    'window', 60,
    -- events were recorded: the function nudges the hosted dispatcher after answering
    'webhooks', coalesce(current_setting('app.webhooks_recorded', true), '') = 'on');
end
$$;

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert, update (url, events, tournament_id, description, enabled, disabled_reason, failing_since,
  secret, previous_secret, previous_secret_expires_at, updated_at), delete on app.webhook_endpoints to tournament_api_owner;
grant select on app.webhook_events to tournament_api_owner;
grant insert (account_id, type, payload) on app.webhook_events to tournament_api_owner;
grant select, insert (endpoint_id, account_id, event_id),
  update (status, next_attempt_at, lease_until, lease_token) on app.webhook_deliveries to tournament_api_owner;
grant select on app.webhook_documents, app.webhook_delivery_documents to tournament_api_owner;
create policy "Webhook events are recorded in the bound account" on app.webhook_events
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
create policy "Webhook deliveries are created in the bound account" on app.webhook_deliveries
  for insert to tournament_api_owner with check (account_id = (select nullif(current_setting('app.account_id', true), '')::uuid));
grant execute on function app.webhook_event_types() to tournament_api_owner;
grant execute on function app.webhook_change_events() to tournament_api_owner;
grant execute on function app.webhook_registration_withdrawn() to tournament_api_owner;
grant execute on function app.webhook_record(json) to tournament_api_owner;
grant execute on function app.webhook_publish() to tournament_api_owner;
grant execute on function app.webhook_wake() to tournament_api_owner;
grant execute on function app.webhook_fields(jsonb, app.webhook_endpoints) to tournament_api_owner;
grant execute on function app.page_of(jsonb) to tournament_api_owner;
grant execute on function app.list_webhooks(jsonb) to tournament_api_owner;
grant execute on function app.own_webhook(uuid) to tournament_api_owner;
grant execute on function app.get_webhook(jsonb) to tournament_api_owner;
grant execute on function app.webhook_with_secret(uuid) to tournament_api_owner;
grant execute on function app.create_webhook(jsonb) to tournament_api_owner;
grant execute on function app.update_webhook(jsonb) to tournament_api_owner;
grant execute on function app.delete_webhook(jsonb) to tournament_api_owner;
grant execute on function app.rotate_webhook_secret(jsonb) to tournament_api_owner;
grant execute on function app.test_webhook(jsonb) to tournament_api_owner;
grant execute on function app.list_webhook_deliveries(jsonb) to tournament_api_owner;
grant execute on function app.retry_webhook_delivery(jsonb) to tournament_api_owner;

grant select on app.webhook_endpoints, app.webhook_events, app.webhook_deliveries to tournament_webhooks_owner;
-- (an endpoint's update re-checks its events against the list)
grant execute on function app.webhook_event_types() to tournament_webhooks_owner;
grant update (failing_since, enabled, disabled_reason) on app.webhook_endpoints to tournament_webhooks_owner;
grant update (lease_until, lease_token, attempts, status, next_attempt_at, last_attempt_at, last_status_code,
  last_error, delivered_at) on app.webhook_deliveries to tournament_webhooks_owner;
grant delete on app.webhook_events to tournament_webhooks_owner;
grant execute on function webhooks.claim(int, int) to tournament_webhooks;
grant execute on function webhooks.settle(json, interval) to tournament_webhooks;
grant execute on function webhooks.prune(int) to tournament_webhooks;
grant execute on function webhooks.sleep(uuid, int) to tournament_webhooks;
grant select, insert, update, delete on app.webhook_sleepers to tournament_webhooks_owner;
