-- The public view (contract section 15): tournaments their owners made public, shown without a
-- key by their slug. The `api` function asks api.public_call, one statement per request like
-- api.call: the client address's count (300 requests per rolling 60 s, exact under
-- concurrency: a ring of 300 times per address, as a key's ring of 100), the tournament by slug
-- (a private or unknown slug is the same 404), its version (ETag / 304 without building
-- anything), then what the route shows, read as the owning account so that row-level security
-- applies as it does to the account's own reads. Payment and account data are left out.
--
-- The keyed routes' pictures (GET /tournaments/{id}/bracket.svg, .png) read the same document
-- through api.call (operation 'bracket.get', app.bracket_view).
--
-- The public PNGs of whole stages are kept here once drawn (app.pictures): drawn once per version
-- by the function instance asked first, then read by every instance while the version stands.

-- ============================================================================
-- tables
-- ============================================================================
-- Per client address (a SHA-256 of it: the address itself is never stored), the times of its
-- last 300 requests. Only the security definer function below reads or writes it:
-- tournament_api_owner has no privilege on it. Rows of addresses quiet for a minute are cleared
-- as requests go by.
create table app.address_limits (
  address_hash bytea primary key,
  next_slot int not null check (next_slot between 1 and 300),
  slots timestamptz[] not null check (cardinality(slots) = 300),
  last_at timestamptz not null
) with (fillfactor = 50); -- room on the page for HOT updates

comment on table app.address_limits is
  'Per client address (hashed), the times of its last 300 public requests (a ring; next_slot is the oldest).';

-- The public PNGs drawn so far, one per tournament and picture, each with the version it shows,
-- what it left out (X-Bracket-Clipped) and what drew it (the function's PICTURES_DRAWN_BY: a
-- picture drawn by another renderer is drawn again). A new function instance reads these bytes instead of
-- compiling and running the rasteriser cold (~1.4 s of CPU for a 1,024-team bracket's). Only
-- whole stages' pictures are kept (key 'png|<stage, or empty for the current>|<theme>': no
-- ?round= or ?group=), so a tournament has a handful. Only the security definer functions below
-- read or write it; a newer version replaces the row.
create table app.pictures (
  tournament_id uuid not null references app.tournaments (id) on delete cascade,
  key text not null check (key ~ '^png\|[0-9]{0,3}\|(light|dark)$'),
  version bigint not null,
  png bytea not null check (length(png) between 8 and 16777216),
  clipped text,
  drawn_by text not null,
  primary key (tournament_id, key)
);

comment on table app.pictures is
  'Public bracket PNGs of whole stages, drawn once per version and read by every function instance.';

-- ============================================================================
-- indexes
-- ============================================================================
create index address_limits_last_idx on app.address_limits (last_at);

-- Public slugs are found by the unique index on slug; this one keeps the check of a streamed
-- tournament's visibility an index-only read.
create index tournaments_public_idx on app.tournaments (id) include (account_id) where visibility = 'public';

-- ============================================================================
-- policies
-- ============================================================================
alter table app.address_limits enable row level security;
alter table app.pictures enable row level security;

-- ============================================================================
-- functions
-- ============================================================================
-- Counts one request of a client address: allowed (its time is in the ring) or not (the ring's
-- 300 times are all within the last 60 s: nothing written), and the RateLimit numbers.
create function app.count_address(p_address_hash bytea, out allowed boolean, out lim int, out remaining int,
                                  out reset int)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  c_limit constant int := 300;
  v_now timestamptz := clock_timestamp();
  v_row record;
begin
  lim := c_limit;
  insert into app.address_limits as r (address_hash, next_slot, slots, last_at)
  values (p_address_hash, 2, array[v_now] || array_fill('-infinity'::timestamptz, array[c_limit - 1]), v_now)
  on conflict (address_hash) do update
     set slots[r.next_slot] = v_now, next_slot = r.next_slot % c_limit + 1, last_at = v_now
   where r.slots[r.next_slot] <= v_now - interval '60 seconds'
  returning (select count(*)::int from unnest(r.slots) s where s > v_now - interval '60 seconds') as used,
            (select min(s) from unnest(r.slots) s where s > v_now - interval '60 seconds') as oldest
  into v_row;
  allowed := found;
  if not allowed then
    select c_limit, min(s) into v_row.used, v_row.oldest
      from app.address_limits r, unnest(r.slots) s
     where r.address_hash = p_address_hash and s > v_now - interval '60 seconds';
  end if;
  remaining := greatest(0, c_limit - v_row.used);
  reset := greatest(1, ceil(extract(epoch from coalesce(v_row.oldest, v_now) + interval '60 seconds' - v_now)))::int;
  -- Now and then, clear addresses that have been quiet for a minute. Last, after this address's
  -- own row: skipping locked rows, the clearing waits for nothing, so the row above is the only
  -- lock a request ever waits for (two clearings that each held the other's address, then
  -- waited for their own, deadlocked).
  if random() < 0.01 then
    delete from app.address_limits a
     where a.address_hash in (select x.address_hash from app.address_limits x
                               where x.last_at < v_now - interval '60 seconds' limit 200 for update skip locked);
  end if;
end
$$;
comment on function app.count_address(bytea, out boolean, out int, out int, out int) is
  'Counts a public request of a client address: at most 300 per rolling 60 s (nothing written when refused).';

-- The public tournament with this slug (id and account), or nulls: private and unknown alike.
-- An account whose API access the operator turned off shows nothing publicly either.
create function app.public_tournament(p_slug text, out id uuid, out account_id uuid)
language sql stable security definer
set search_path = ''
as $$
  select t.id, t.account_id from app.tournaments t join app.accounts a on a.id = t.account_id
   where t.slug = p_slug and t.visibility = 'public' and a.api_access_enabled
$$;

-- The account of a tournament that is public, or null (a live public stream's check, each poll).
create function app.public_account(p_id uuid) returns uuid
language sql stable security definer
set search_path = ''
as $$
  select t.account_id from app.tournaments t join app.accounts a on a.id = t.account_id
   where t.id = p_id and t.visibility = 'public' and a.api_access_enabled
$$;

-- A tournament as the public routes and the bracket pictures show it: the tournament, every
-- stage with its own standings, every registration but the refused (without payment_status) with its team, every
-- started stage's matches and the overall standings, as the keyed routes show them. The caller
-- reads as the owning account (app.account_id).
create function app.public_view(p_id uuid) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_t app.tournaments;
  v_results json;
begin
  select * into v_t from app.tournaments t where t.id = p_id;
  if not found then
    perform app.raise_error('not_found', 'Tournament not found.');
  end if;
  v_results := app.tournament_results(jsonb_build_object('tournament_id', p_id));
  return json_build_object(
    'tournament', (select d.doc from app.tournament_documents d where d.id = p_id),
    'stages', (select coalesce(json_agg(s.doc || jsonb_build_object('standings',
                          case when v_t.status <> 'registration' and (s.doc ->> 'number')::int <= v_t.stage
                               then app.stage_standings(app.stage_of(v_t, (s.doc ->> 'number')::int))::jsonb
                               else '[]' end) order by s.n), '[]')
                 from jsonb_array_elements(app.stage_documents(v_t)) with ordinality as s (doc, n)),
    'registrations', (select coalesce(json_agg(d.doc::jsonb - 'payment_status' order by d.seq), '[]')
                        from app.registration_documents d where d.tournament_id = p_id and d.state <> 'refused'),
    'matches', v_results -> 'matches',
    'standings', v_results -> 'standings');
end
$$;
comment on function app.public_view(uuid) is
  'The public view of a tournament: tournament, stages with their standings, registrations (no payment), matches, standings.';

-- GET /tournaments/{id}/bracket.svg and .png (read:results): the document the picture is drawn
-- from; ?stage= must name a stage of the tournament (400 naming stage).
create function app.bracket_view(p_args jsonb) returns json
language plpgsql stable
set search_path = ''
as $$
declare
  v_view json;
  v_count int;
begin
  perform app.check_input(p_args, '{"tournament_id": "uuid"}');
  perform app.check_input(coalesce(p_args -> 'query', '{}'), '{"stage": "smallint"}');
  v_view := app.public_view((p_args ->> 'tournament_id')::uuid);
  v_count := json_array_length(v_view -> 'stages');
  if (p_args #>> '{query,stage}')::int not between 1 and v_count then
    perform app.raise_invalid('stage', format('must be a stage of this tournament, 1 to %s', v_count));
  end if;
  return v_view;
end
$$;

-- The kept PNG of a tournament's picture at this version drawn by this renderer, as {kept: base64,
-- clipped}, or null.
create function app.kept_picture(p_id uuid, p_key text, p_version bigint, p_drawn_by text) returns json
language sql stable security definer
set search_path = ''
as $$
  select json_build_object('kept', translate(encode(p.png, 'base64'), E'\n', ''), 'clipped', p.clipped)
    from app.pictures p
   where p.tournament_id = p_id and p.key = p_key and p.version = p_version and p.drawn_by = p_drawn_by
$$;

-- Keeps a picture drawn at p_version in place of an older one, or of one of the same version drawn
-- by another renderer (a newer one kept meanwhile stays).
create function app.keep_picture(p_id uuid, p_key text, p_version bigint, p_png bytea, p_clipped text,
                                 p_drawn_by text)
returns void
language sql volatile security definer
set search_path = ''
as $$
  insert into app.pictures as p (tournament_id, key, version, png, clipped, drawn_by)
  values (p_id, p_key, p_version, p_png, p_clipped, p_drawn_by)
  on conflict (tournament_id, key) do update
     set version = excluded.version, png = excluded.png, clipped = excluded.clipped, drawn_by = excluded.drawn_by
   where p.version < excluded.version or (p.version = excluded.version and p.drawn_by <> excluded.drawn_by)
$$;

-- One public request in one statement (p_op: 'tournament', 'view', 'picture' or 'stream'; p_args:
-- {slug, key?, drawn_by?, query?: {since?}}; or 'count': a request for a static file that needs
-- no key, counted only): the address's count (429 before anything else), the tournament by slug
-- (404 for private and unknown alike), its version (304 on If-None-Match), then the answer:
-- the tournament's document; the public view; for 'picture', the PNG kept under key at this
-- version by this renderer ({kept, clipped}) or else the public view to draw it from; or a stream's first event's
-- data (the results, or the delta since query.since). Reads commit without waiting for the WAL
-- flush.
create function api.public_call(p_address_hash bytea, p_op text, p_args jsonb, p_conditions jsonb default null,
                                out auth json, out error json, out result json, out version bigint,
                                out not_modified boolean)
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_count record;
  v_t record;
begin
  perform set_config('synchronous_commit', 'off', true);
  select * into v_count from app.count_address(p_address_hash);
  auth := json_build_object('error', case when not v_count.allowed then 'rate_limited' end, 'limit', v_count.lim,
    'remaining', v_count.remaining, 'reset', v_count.reset, 'window', 60);
  if not v_count.allowed or p_op = 'count' then
    return;
  end if;
  select * into v_t from app.public_tournament(p_args ->> 'slug');
  if v_t.id is null or p_op not in ('tournament', 'view', 'picture', 'stream') then
    error := json_build_object('code', 'not_found', 'message', 'Tournament not found.');
    return;
  end if;
  perform set_config('app.account_id', v_t.account_id::text, true);
  version := app.version_of(v_t.id);
  not_modified := p_op <> 'stream' and p_conditions ? 'if_none_match'
    and (jsonb_typeof(p_conditions -> 'if_none_match') = 'null' or p_conditions -> 'if_none_match' @> to_jsonb(version));
  if not_modified then
    return;
  end if;
  result := case p_op
    when 'tournament' then (select d.doc from app.tournament_documents d where d.id = v_t.id)
    when 'view' then app.public_view(v_t.id)
    when 'picture' then coalesce(app.kept_picture(v_t.id, p_args ->> 'key', version, p_args ->> 'drawn_by'),
                                  app.public_view(v_t.id))
    else json_build_object('tournament_id', v_t.id, 'version', version,
           'data', app.tournament_results(jsonb_build_object('tournament_id', v_t.id, 'query',
                     coalesce(p_args -> 'query', '{}')))) end;
end
$$;
comment on function api.public_call(bytea, text, jsonb, jsonb) is
  'One public request (section 15) in one statement: the address''s count, the public tournament by slug, 304, the answer.';

-- Keeps a public PNG the function drew from the view at p_version (key as app.pictures says,
-- p_drawn_by its renderer), if the tournament is still public and at that version; true when
-- kept. Not counted per
-- address: it follows a counted request that drew the picture.
create function api.keep_picture(p_slug text, p_key text, p_version bigint, p_png bytea, p_clipped text,
                                 p_drawn_by text)
returns boolean
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  v_t record;
begin
  perform set_config('synchronous_commit', 'off', true);
  select * into v_t from app.public_tournament(p_slug);
  if v_t.id is null then
    return false;
  end if;
  perform set_config('app.account_id', v_t.account_id::text, true);
  if app.version_of(v_t.id) is distinct from p_version then
    return false;
  end if;
  perform app.keep_picture(v_t.id, p_key, p_version, p_png, p_clipped, p_drawn_by);
  return true;
end
$$;
comment on function api.keep_picture(text, text, bigint, bytea, text, text) is
  'Keeps a public bracket PNG drawn at the tournament''s current version, for every function instance to send.';

-- ============================================================================
-- grants
-- ============================================================================
grant execute on function app.count_address(bytea) to tournament_api_owner;
grant execute on function app.public_tournament(text) to tournament_api_owner;
grant execute on function app.public_account(uuid) to tournament_api_owner;
grant execute on function app.public_view(uuid) to tournament_api_owner;
grant execute on function app.bracket_view(jsonb) to tournament_api_owner;
grant execute on function app.kept_picture(uuid, text, bigint, text) to tournament_api_owner;
grant execute on function app.keep_picture(uuid, text, bigint, bytea, text, text) to tournament_api_owner;
grant execute on function api.public_call(bytea, text, jsonb, jsonb) to tournament_api;
grant execute on function api.keep_picture(text, text, bigint, bytea, text, text) to tournament_api;
grant create on schema api to tournament_api_owner;
alter function api.public_call(bytea, text, jsonb, jsonb) owner to tournament_api_owner;
alter function api.keep_picture(text, text, bigint, bytea, text, text) owner to tournament_api_owner;
revoke create on schema api from tournament_api_owner;
