-- Schema files numbered by who calls whom (issue 33): the reporting functions left 08_matches.sql
-- for 17_results.sql, after the stages they settle; the later files moved up one or more numbers.
-- The database is unchanged but for two comments inside functions that name a file by its new name.

SET local check_function_bodies = off;

CREATE OR REPLACE FUNCTION app.delete_webhook (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION app.update_team (
  p_args jsonb
)
  RETURNS json
  LANGUAGE plpgsql
  SET search_path TO ''
  AS $function$
declare
  v_team app.teams;
  v_f record;
begin
  perform app.check_input(p_args, '{"team_id": "uuid"}');
  v_team := app.own_team((p_args ->> 'team_id')::uuid);
  if not app.lock_team_and_tournaments(v_team.id) then
    perform app.raise_error('not_found', 'Team not found.');
  end if;
  select * into v_team from app.teams t where t.id = v_team.id; -- as it is now, under the lock
  select * into v_f from app.team_fields(coalesce(p_args -> 'body', '{}'), v_team);
  -- Its tournaments show it: their versions go up (the trigger teams_version, 22_live.sql).
  update app.teams t set name = v_f.name, tag = v_f.tag, logo_url = v_f.logo_url
   where t.id = v_team.id and (t.name, t.tag, t.logo_url) is distinct from (v_f.name, v_f.tag, v_f.logo_url);
  return (select d.doc from app.team_documents d where d.id = v_team.id);
end
$function$;
