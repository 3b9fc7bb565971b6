-- Hosted Supabase only (README, "Deploying", webhooks): Supabase Cron wakes the `webhooks`
-- function every 5 seconds, so retries go out when due and nothing waits on a lost nudge.
-- Not a migration: local Postgres has neither pg_cron nor pg_net, and the URL and token are
-- the project's own. Run it once in the SQL editor (or psql) after storing both in Vault:
--
--   select vault.create_secret('https://<project-ref>.supabase.co/functions/v1/webhooks', 'webhooks_dispatch_url');
--   select vault.create_secret('<the WEBHOOK_DISPATCH_TOKEN you set as a function secret>', 'webhooks_dispatch_token');
--
-- Idempotent: running it again replaces the job.
create extension if not exists pg_cron;
create extension if not exists pg_net;

select cron.schedule(
  'webhooks-dispatch',
  '5 seconds',
  $job$
  select net.http_post(
    url := (select decrypted_secret from vault.decrypted_secrets where name = 'webhooks_dispatch_url'),
    headers := jsonb_build_object(
      'Content-Type', 'application/json',
      'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets where name = 'webhooks_dispatch_token')),
    body := '{}'::jsonb,
    timeout_milliseconds := 30000)
  $job$
);
