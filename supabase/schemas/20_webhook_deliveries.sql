-- Webhooks, part 3: deliveries, one event (19_webhook_events.sql) to one endpoint
-- (18_webhook_endpoints.sql), with its attempts and their outcome; the API lists them and
-- resends one. The dispatcher leases and settles attempts through webhooks.claim and
-- webhooks.settle (21_webhook_dispatch.sql).

-- ============================================================================
-- tables
-- ============================================================================
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

-- A delivery as the API returns it, with its event's type and payload.
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
-- indexes
-- ============================================================================
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
-- policies
-- ============================================================================
alter table app.webhook_deliveries enable row level security;

create policy "Webhook deliveries are visible to their account" on app.webhook_deliveries
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Webhook deliveries are retried by their account" on app.webhook_deliveries
  for update to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Webhook deliveries are visible to the dispatcher" on app.webhook_deliveries
  for select to tournament_webhooks_owner using (true);

create policy "Webhook deliveries are claimed and settled by the dispatcher" on app.webhook_deliveries
  for update to tournament_webhooks_owner using (true);

create policy "Webhook deliveries are pruned by the dispatcher" on app.webhook_deliveries
  for delete to tournament_webhooks_owner using (true);

create policy "Webhook deliveries are created in the bound account" on app.webhook_deliveries
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
-- ============================================================================
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
-- grants
-- ============================================================================
grant select on app.webhook_delivery_documents to tournament_api_owner;
grant select, insert (endpoint_id, account_id, event_id),
  update (status, next_attempt_at, lease_until, lease_token) on app.webhook_deliveries to tournament_api_owner;
grant execute on function app.list_webhook_deliveries(jsonb) to tournament_api_owner;
grant execute on function app.retry_webhook_delivery(jsonb) to tournament_api_owner;