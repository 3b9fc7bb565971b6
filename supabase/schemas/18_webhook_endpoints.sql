-- Webhooks (contract section 11), part 1: endpoints, where an account's events are delivered,
-- and their operations (list, get, create, update, delete, rotate the secret, send a test).
-- Part 2, the outbox, is 19_webhook_events.sql; part 3, deliveries, 20_webhook_deliveries.sql;
-- part 4, the dispatcher's door, 21_webhook_dispatch.sql.
-- Secrets are AES-256-GCM ciphertexts made by the functions with WEBHOOK_ENCRYPTION_KEY,
-- which the database never holds: a dump alone cannot sign a delivery.

-- ============================================================================
-- types
-- ============================================================================
-- The event types an endpoint may subscribe to (webhook.test is sent on request only).
create function app.webhook_event_types() returns text[]
language sql immutable parallel safe
set search_path = ''
as $$
  select array['tournament.created', 'tournament.updated', 'tournament.started', 'tournament.completed',
               'tournament.cancelled', 'tournament.deleted', 'registration.created', 'registration.updated',
               'registration.withdrawn', 'match.ready', 'match.completed', 'match.corrected', 'match.scheduled',
               'match.game_reported', 'match.reported', 'match.disputed', 'stage.started', 'stage.completed']
$$;
comment on function app.webhook_event_types() is 'Every event type an endpoint may subscribe to (functions/api/contract.ts: EVENT_TYPES).';

-- ============================================================================
-- tables
-- ============================================================================
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

-- An endpoint as the API returns it: never its secret.
create view app.webhook_documents with (security_invoker = true) as
  select w.id, w.account_id, w.created_at,
         json_build_object('id', w.id, 'url', w.url, 'events', w.events, 'tournament_id', w.tournament_id,
           'description', w.description, 'enabled', w.enabled, 'disabled_reason', w.disabled_reason,
           'created_at', to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'updated_at', to_char(w.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as doc
    from app.webhook_endpoints w;

-- ============================================================================
-- indexes
-- ============================================================================
create index webhook_endpoints_account_idx on app.webhook_endpoints (account_id, created_at desc, id desc);

-- ============================================================================
-- policies
-- ============================================================================
alter table app.webhook_endpoints enable row level security;

create policy "Webhook endpoints are visible to their account" on app.webhook_endpoints
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Webhook endpoints are created in the bound account" on app.webhook_endpoints
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Webhook endpoints are updated by their account" on app.webhook_endpoints
  for update to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Webhook endpoints are deleted by their account" on app.webhook_endpoints
  for delete to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- The dispatcher works across accounts.
create policy "Webhook endpoints are visible to the dispatcher" on app.webhook_endpoints
  for select to tournament_webhooks_owner using (true);

create policy "Webhook endpoints are settled by the dispatcher" on app.webhook_endpoints
  for update to tournament_webhooks_owner using (true);

-- ============================================================================
-- functions
-- ============================================================================
-- An endpoint's fields from a request body, over p_old's for a PATCH; a 400 naming the field
-- for what the table's checks would refuse, a 404 for a tournament_id that is not the caller's
-- (unknown and another account's alike, as for a registration's team_id).
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
  if p_body ? 'tournament_id' and tournament_id is not null
     and not exists (select from app.tournaments t where t.id = tournament_id) then
    perform app.raise_error('not_found', 'Tournament not found.');
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

-- At most 20 endpoints an account. The secret comes encrypted from the function (p_args.secret).
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
  -- Its deliveries go with it (a pending one is never attempted): locked first in id order, as
  -- the dispatcher locks them (webhooks.claim, 21_webhook_dispatch.sql), not in whatever order
  -- the cascade would take them.
  perform from app.webhook_deliveries d where d.endpoint_id = v_id order by d.id for update;
  delete from app.webhook_endpoints w where w.id = v_id;
  return json_build_object('message', 'Webhook deleted');
end
$$;

-- A new secret (encrypted by the function); the old one keeps signing for 24 hours.
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

-- A webhook.test event for this endpoint alone, whether it is enabled or subscribed; the event
-- and its delivery are 19_webhook_events.sql's and 20_webhook_deliveries.sql's tables.
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
         json_build_object('type', 'webhook.test', 'timestamp', app.iso(clock_timestamp()),
                           'actor', nullif(current_setting('app.actor', true), '')::json, 'data', d.doc)::text
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

-- ============================================================================
-- grants
-- ============================================================================
grant select, insert, update (url, events, tournament_id, description, enabled, disabled_reason, failing_since,
  secret, previous_secret, previous_secret_expires_at, updated_at), delete on app.webhook_endpoints to tournament_api_owner;
grant select on app.webhook_documents to tournament_api_owner;
grant execute on function app.webhook_event_types() to tournament_api_owner;
grant execute on function app.webhook_fields(jsonb, app.webhook_endpoints) to tournament_api_owner;
grant execute on function app.list_webhooks(jsonb) to tournament_api_owner;
grant execute on function app.own_webhook(uuid) to tournament_api_owner;
grant execute on function app.get_webhook(jsonb) to tournament_api_owner;
grant execute on function app.webhook_with_secret(uuid) to tournament_api_owner;
grant execute on function app.create_webhook(jsonb) to tournament_api_owner;
grant execute on function app.update_webhook(jsonb) to tournament_api_owner;
grant execute on function app.delete_webhook(jsonb) to tournament_api_owner;
grant execute on function app.rotate_webhook_secret(jsonb) to tournament_api_owner;
grant execute on function app.test_webhook(jsonb) to tournament_api_owner;