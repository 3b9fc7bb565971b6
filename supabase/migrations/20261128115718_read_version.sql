-- A read's ETag is the version of what it read (contract section 14). app.run_operation took
-- them from one statement, `select (app.operation(...)).result, app.version_of(...)`, taken for
-- one snapshot; but app.operation is volatile, so each query in it takes a later snapshot of its
-- own, and a write committed meanwhile showed in the body and not in the ETag (body version 8,
-- ETag 7: tests/live/stream.test.ts, under load). Now the version is read before and after the
-- read, and the read taken again when a write committed in between.

SET local check_function_bodies = off;

CREATE OR REPLACE FUNCTION app.run_operation (
  p_op         text,
  p_args       jsonb,
  p_key_id     uuid,
  p_writes     boolean,
  p_arg        text,
  p_conditions jsonb,
  p_limit      integer,
  OUT          result json,
  OUT          error json,
  OUT          version bigint
)
  RETURNS record
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_sqlstate text;
  v_message text;
  v_hint text;
  v_detail text;
  v_before bigint;
begin
  if p_writes and p_arg is not null and p_conditions ? 'if_match'
     and jsonb_typeof(p_conditions -> 'if_match') = 'array' then
    perform app.check_if_match(p_op, p_args, p_arg, p_conditions -> 'if_match');
  end if;
  if not p_writes and p_arg is not null and pg_input_is_valid(p_args ->> p_arg, 'uuid') then
    -- A read and its version (the ETag) must agree (the function keeps whole results by it).
    -- app.operation is volatile, so each query in it takes a snapshot of its own, later than
    -- its caller's: the version is read before and after the read, and the read is the
    -- version's when both agree (every change raises the version in its own transaction, so
    -- none committed in between). A write committed in between: read again.
    for v_try in 1..10 loop
      v_before := app.version_of((p_args ->> p_arg)::uuid);
      result := (app.operation(p_op, p_args, p_key_id, true)).result;
      version := app.version_of((p_args ->> p_arg)::uuid);
      exit when version is not distinct from v_before;
      if v_try = 10 then
        raise exception 'the tournament kept changing while it was being read' using errcode = '40001';
      end if;
    end loop;
  else
    result := (app.operation(p_op, p_args, p_key_id, true)).result;
    if p_writes and p_arg is not null and pg_input_is_valid(p_args ->> p_arg, 'uuid') then
      version := app.version_of((p_args ->> p_arg)::uuid); -- the ETag the write leaves
    end if;
  end if;
exception when others then
  get stacked diagnostics v_sqlstate = returned_sqlstate, v_message = message_text,
                          v_hint = pg_exception_hint, v_detail = pg_exception_detail;
  -- Serialization failures, deadlocks and timeouts abort the request (503: it did nothing).
  if v_sqlstate in ('40001', '40P01', '55P03', '57014') then
    raise;
  end if;
  -- A refusal of the rate-limit kind (a key's open streams): a 429, so nothing counts.
  if v_sqlstate = 'P0001' and v_hint = 'rate_limited' then
    raise exception 'rate limited' using errcode = 'TA429', hint = 'rate_limited',
      detail = (app.rate_limit_state(p_key_id, p_limit)::jsonb
                || jsonb_build_object('error', 'rate_limited', 'message', v_message,
                     'retry_after', (v_detail::jsonb -> 0 ->> 'message')::int))::text;
  end if;
  version := null;
  error := json_build_object('sqlstate', v_sqlstate, 'code', v_hint, 'message', v_message,
    'details', case when v_sqlstate = 'P0001' and v_detail like '[%' then v_detail::json end);
end
$function$;
