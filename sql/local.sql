-- Local development only (npm start, npm test): lets the function's role log in with a known
-- password. On Supabase, set a strong password instead (README, "Deploying").
alter role tournament_api with login password 'tournament_api';
alter role tournament_webhooks with login password 'tournament_webhooks';
