-- Demo data for local use: one account with API access enabled and eight teams. Idempotent.
-- The demo API key is made by `npm start` (scripts/start.mjs), which prints it.
do $$
declare
  v_account uuid;
begin
  if not exists (select from app.accounts where name = 'Demo Esports') then
    v_account := admin.create_account('Demo Esports');
    perform admin.set_api_access(v_account, true);
  end if;

  if not exists (select from app.teams) then
    perform admin.create_team(t.name, t.tag, t.logo)
       from (values
         ('Aurora Gaming', 'AUR', 'https://example.com/logos/aur.png'),
         ('Blue Phoenix', 'BLU', null),
         ('Crimson Tide Esports', 'CTE', null),
         ('Dusk Wolves', 'DSK', null),
         ('Emerald Dragons', 'EMD', 'https://example.com/logos/emd.png'),
         ('Frostbyte', 'FRB', null),
         ('Golden Lynx', 'GLX', null),
         ('Hyperion Five', 'HYP', null)
       ) as t(name, tag, logo);
  end if;
end
$$;
