-- Webhooks, part 2: the outbox (endpoints are 18_webhook_endpoints.sql). Triggers on
-- tournaments, registrations, matches and stages (and app.change_game, for a game) record an
-- intent (type and subject) in
-- app.webhook_intents in the transaction of the change, only for an account with an enabled
-- endpoint. At commit a deferred trigger turns the transaction's intents into events whose
-- payloads are built from the final state (what the API's GET shows then), with one delivery
-- (20_webhook_deliveries.sql) per subscribed enabled endpoint, and notifies channel `webhooks`
-- while a dispatcher waits (app.webhook_sleepers). A request that fails, is refused or is
-- replayed records nothing; a rollback takes its events with it.

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

-- A transaction's intents, until it commits (then they become events, or nothing). Unlogged:
-- they live within one transaction, so a crash loses nothing that committed, and they cost no
-- WAL.
create unlogged table app.webhook_intents (
  seq bigint generated always as identity,
  tx xid8 not null default pg_current_xact_id(),
  account_id uuid not null,
  tournament_id uuid,
  type text not null,
  -- What the change is about: 'tournament', 'registration', 'match.ready', 'match.result',
  -- 'match.scheduled', 'match.game' or 'stage'; one event per (transaction, kind, subject).
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

-- ============================================================================
-- indexes
-- ============================================================================
create index webhook_events_account_idx on app.webhook_events (account_id);

create index webhook_events_created_idx on app.webhook_events (created_at);

-- ============================================================================
-- triggers
-- ============================================================================
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
              n.entry_fee, n.prize_pool, n.starts_at, n.registration_closes, n.check_in_opens, n.rules, n.stages,
              n.visibility, n.substitutes_max, n.lineups, n.approval, n.waitlist, n.participant_reporting,
              n.report_confirm_minutes)
             is distinct from
             (o.name, o.description, o.game_id, o.status, o.format, o.format_options, o.team_size, o.max_teams,
              o.entry_fee, o.prize_pool, o.starts_at, o.registration_closes, o.check_in_opens, o.rules, o.stages,
              o.visibility, o.substitutes_max, o.lineups, o.approval, o.waitlist, o.participant_reporting,
              o.report_confirm_minutes);
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
       where (n.seed, n.payment_status, n.checked_in_at, n.lineup_rev, n.state, n.disqualified_at)
             is distinct from (o.seed, o.payment_status, o.checked_in_at, o.lineup_rev, o.state, o.disqualified_at);
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
            and (o.status not in ('ready', 'completed') or (n.team1_id, n.team2_id) is distinct from (o.team1_id, o.team2_id))
         union all
         -- A result, or a change of one (a series' decision undone by a game included).
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', case when o.status = 'completed' then 'match.corrected' else 'match.completed' end,
                  'kind', 'match.result', 'subject_id', n.id)
          where ((n.team1_id is not null and n.team2_id is not null) or n.opponents is not null)
            and ((n.status = 'completed' and o.status = 'ready')
                 or (o.status = 'completed' and n.status = 'ready')
                 or (n.status = 'completed' and o.status = 'completed'
                     and (n.winner_id, n.team1_score, n.team2_score, n.forfeit, n.opponents)
                         is distinct from (o.winner_id, o.team1_score, o.team2_score, o.forfeit, o.opponents)))
         union all
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', 'match.scheduled', 'kind', 'match.scheduled', 'subject_id', n.id)
          where n.scheduled_at is distinct from o.scheduled_at
         union all
         -- A participants' report (contract section 18): a first or replaced one, or a dispute
         -- (the opponent's different report included: that one is match.disputed only).
         select json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
                  'type', case when n.report_state = 'disputed' then 'match.disputed' else 'match.reported' end,
                  'kind', 'match.report', 'subject_id', n.id)
          where (n.report_state = 'awaiting_confirmation' and n.report is distinct from o.report)
             or (n.report_state = 'disputed' and o.report_state is distinct from 'disputed')
       ) x;
    end if;
  when 'stages' then
    -- A stage starts (its row is made) and completes (or reopens, which says nothing).
    if tg_op = 'INSERT' then
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'stage.started', 'kind', 'stage', 'subject_id', n.id)) into v_intents
        from new_rows n;
    else
      select json_agg(json_build_object('account_id', n.account_id, 'tournament_id', n.tournament_id,
               'type', 'stage.completed', 'kind', 'stage', 'subject_id', n.id)) into v_intents
        from new_rows n join old_rows o on o.id = n.id
       where n.status = 'completed' and o.status <> 'completed';
    end if;
  end case;
  if v_intents is not null then
    perform app.webhook_record(v_intents);
  end if;
  return null;
end
$$;

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

create trigger webhook_events_on_insert after insert on app.matches
  referencing new table as new_rows for each statement execute function app.webhook_change_events();

create trigger webhook_events_on_update after update on app.matches
  referencing old table as old_rows new table as new_rows for each statement execute function app.webhook_change_events();

create trigger webhook_events_on_insert after insert on app.stages
  referencing new table as new_rows for each statement execute function app.webhook_change_events();

create trigger webhook_events_on_update after update on app.stages
  referencing old table as old_rows new table as new_rows for each statement execute function app.webhook_change_events();

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

create trigger webhook_events_on_delete before delete on app.registrations
  for each row execute function app.webhook_registration_withdrawn();

-- At commit (deferred, once per transaction): payloads from the final state, deliveries for
-- the subscribed enabled endpoints, and a notification for the local dispatcher.
create function app.webhook_publish() returns trigger
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_tx xid8 := pg_current_xact_id();
  v_now text := app.iso(clock_timestamp());
  -- Who caused the change (contract section 17): api.call's key or participant token, null for a worker.
  v_actor json := nullif(current_setting('app.actor', true), '')::json;
  v_count int;
begin
  if current_setting('app.webhooks_published', true) = v_tx::text then
    return null;
  end if;
  perform set_config('app.webhooks_published', v_tx::text, true);

  -- Each intent's data from the final state; one delivery per subscribed enabled endpoint; an
  -- event only where there is one. In one transaction the tournament's own event comes first
  -- (started, then the stage started, then its matches ready).
  with i as materialized (
    select x.seq, x.account_id, x.tournament_id, x.type, gen_random_uuid() as event_id,
           coalesce(x.data, case
             when x.kind = 'tournament' then (select t.doc from app.tournament_documents t where t.id = x.subject_id)
             when x.kind = 'registration' then (select d.doc from app.registration_documents d where d.id = x.subject_id)
             when x.kind = 'stage' then (select (app.get_stage(jsonb_build_object('tournament_id', s.tournament_id,
                                                                              'number', s.number))::jsonb
                                                 || jsonb_build_object('tournament_id', s.tournament_id))::json
                                           from app.stages s where s.id = x.subject_id)
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
           json_build_object('type', i.type, 'timestamp', v_now, 'actor', v_actor, 'data', i.data)::text
      from i
     where i.event_id in (select t.event_id from targets t)
  )
  insert into app.webhook_deliveries (endpoint_id, account_id, event_id)
  select t.endpoint_id, t.account_id, t.event_id
    from targets t
   order by t.type like 'tournament.%' desc, t.type = 'stage.started' desc, t.seq, t.endpoint_id;
  get diagnostics v_count = row_count;
  delete from app.webhook_intents x where x.tx = v_tx;
  if v_count > 0 then
    perform app.webhook_wake();
  end if;
  return null;
end
$$;

create constraint trigger webhook_intents_publish after insert on app.webhook_intents
  deferrable initially deferred for each row execute function app.webhook_publish();

-- ============================================================================
-- policies
-- ============================================================================
alter table app.webhook_intents enable row level security; -- no policy: only the definer functions touch it

alter table app.webhook_sleepers enable row level security;

create policy "Sleepers are kept by the dispatcher" on app.webhook_sleepers
  for all to tournament_webhooks_owner using (true) with check (true);

alter table app.webhook_events enable row level security;

create policy "Webhook events are visible to their account" on app.webhook_events
  for select to tournament_api_owner using (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

create policy "Webhook events are visible to the dispatcher" on app.webhook_events
  for select to tournament_webhooks_owner using (true);

create policy "Webhook events are pruned by the dispatcher" on app.webhook_events
  for delete to tournament_webhooks_owner using (true);

create policy "Webhook events are recorded in the bound account" on app.webhook_events
  for insert to tournament_api_owner with check (account_id = (select nullif(s.v, '')::uuid from (select current_setting('app.account_id', true)) as s(v)));

-- ============================================================================
-- functions
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
    when 'match.corrected' then 2 when 'stage.completed' then 2 else 1 end;
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

-- ============================================================================
-- grants
-- ============================================================================
grant select on app.webhook_events to tournament_api_owner;
grant insert (account_id, type, payload) on app.webhook_events to tournament_api_owner;
grant execute on function app.webhook_change_events() to tournament_api_owner;
grant execute on function app.webhook_registration_withdrawn() to tournament_api_owner;
grant execute on function app.webhook_record(json) to tournament_api_owner;
grant execute on function app.webhook_publish() to tournament_api_owner;
grant execute on function app.webhook_wake() to tournament_api_owner;