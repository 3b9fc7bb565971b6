-- Webhooks, part 4: the dispatcher's door. webhooks.claim, settle, sleep and prune, owned by
-- tournament_webhooks_owner, are the only functions tournament_webhooks may execute (the roles
-- and the schema are in 00_foundation.sql); they work on the deliveries of every account
-- (20_webhook_deliveries.sql) and on endpoints' delivery state (18_webhook_endpoints.sql).

-- ============================================================================
-- functions
-- ============================================================================
-- Claims up to p_limit attempts that are due, at most p_per_endpoint per endpoint, taking turns
-- between accounts and then endpoints so that a busy one cannot starve the others, each with a
-- 60-second lease. Per endpoint, first attempts are claimed in event order and only when none
-- is in flight, so they go out in that order; retries (attempts > 0) are claimed as they come
-- due. Claims are serialized by an advisory lock (each runs in a few milliseconds): a claim
-- never sees a delivery that another one is about to lease, so every attempt is made by one
-- dispatcher.
-- Locks, in the order every path that locks more than one delivery takes them: the endpoints
-- (id order, webhooks.settle and app.delete_webhook), then their deliveries in id order. A claim
-- locks no endpoint; it locks its batch in id order before leasing it, so it cannot hold one
-- delivery an endpoint's deletion waits for while waiting for another the deletion holds.
create function webhooks.claim(p_limit int default 100, p_per_endpoint int default 25)
returns table (delivery_id uuid, lease_token uuid, event_id uuid, endpoint_id uuid, url text,
               secrets bytea[], payload text, attempts int)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
  v_token uuid := gen_random_uuid();
  v_ids uuid[];
begin
  perform pg_advisory_xact_lock(hashtextextended('webhooks.claim', 0));
  v_now := clock_timestamp();
  v_ids := array(
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
  )
  select f.id from fair f order by f.turn, random() limit p_limit);
  -- The batch's rows locked in id order (the header's order), then leased.
  v_ids := array(select d.id from app.webhook_deliveries d
                  where d.id = any (v_ids) and d.status in ('pending', 'failed')
                    and (d.lease_until is null or d.lease_until <= v_now)
                  order by d.id for no key update);
  return query
  with leased as (
    update app.webhook_deliveries d
       set lease_until = v_now + interval '60 seconds', lease_token = v_token
     where d.id = any (v_ids) and d.status in ('pending', 'failed') and (d.lease_until is null or d.lease_until <= v_now)
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
-- p_disable_after is disabled. Locks the endpoints first (id order), then the deliveries (id
-- order), as an endpoint's deletion does (claim's header): updating the deliveries first and
-- the endpoints after would wait for a deletion that waits for those deliveries.
create function webhooks.settle(p_results json, p_disable_after interval default '5 days')
returns table (lost_delivery_id uuid)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_now timestamptz := clock_timestamp();
begin
  perform from app.webhook_endpoints w
   where w.id in (select d.endpoint_id from app.webhook_deliveries d
                   join json_to_recordset(p_results) as r (delivery_id uuid, lease_token uuid)
                     on d.id = r.delivery_id and d.lease_token = r.lease_token)
   order by w.id for no key update;
  perform from app.webhook_deliveries d
   where (d.id, d.lease_token) in (select r.delivery_id, r.lease_token
                                     from json_to_recordset(p_results) as r (delivery_id uuid, lease_token uuid))
   order by d.id for no key update;
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

-- A dispatcher about to wait (p_ms > 0) for work, or awake again (0): commits notify while one
-- waits.
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
  v_events uuid[];
begin
  v_events := array(select x.id from app.webhook_events x
                     where x.created_at < clock_timestamp() - interval '30 days'
                     order by x.created_at limit p_batch);
  -- Their deliveries locked in id order (claim's header) before the cascade deletes them.
  perform from app.webhook_deliveries d where d.event_id = any (v_events) order by d.id for update;
  delete from app.webhook_events e where e.id = any (v_events);
  get diagnostics v_count = row_count;
  return v_count;
end
$$;
comment on function webhooks.prune(int) is 'Deletes events and deliveries older than 30 days (run by the dispatcher now and then).';

-- ============================================================================
-- grants
-- ============================================================================
grant usage on schema webhooks to tournament_webhooks;

grant usage on schema app to tournament_webhooks_owner;

-- As for api.call: the new owner may create in the schema for the hand-over only (needed when
-- the migration role is not a superuser, as `postgres` on hosted Supabase is not).
grant create on schema webhooks to tournament_webhooks_owner;

alter function webhooks.claim(int, int) owner to tournament_webhooks_owner;
alter function webhooks.settle(json, interval) owner to tournament_webhooks_owner;
alter function webhooks.prune(int) owner to tournament_webhooks_owner;
alter function webhooks.sleep(uuid, int) owner to tournament_webhooks_owner;
revoke create on schema webhooks from tournament_webhooks_owner;

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
