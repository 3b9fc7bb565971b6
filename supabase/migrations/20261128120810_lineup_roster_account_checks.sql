-- A roster member's and a lineup entry's account (contract section 16) was checked against the
-- bound account alone: the foreign keys took any team, player or registration, so the function's
-- owner role bound to one account could add rows of its own naming another account's private
-- player (on its own team, in its own lineup), or put rows on another account's team or in its
-- registration's lineup (whose captain index and one-team-per-tournament index they then take).
-- The operations never did (they read players and registrations under row-level security), but
-- the rows themselves now keep the rule: the insert policies require the team, the player and the
-- registration (of the tournament named) to be the row's account's. Found by
-- tests/keys/tenant-isolation.test.ts ("in SQL, the other account's rows can be neither read nor
-- written"). Existing rows were all written by the operations: nothing to repair.

DROP POLICY "Lineup entries are created in the bound account" ON "app"."lineup_entries";

DROP POLICY "Team members are added in the bound account" ON "app"."team_members";

CREATE POLICY "Lineup entries are created in the bound account" ON "app"."lineup_entries"
  FOR INSERT
  TO "tournament_api_owner"
  WITH CHECK (((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))) AND (EXISTS ( SELECT
   FROM app.registrations r
  WHERE ((r.id = lineup_entries.registration_id) AND (r.tournament_id = lineup_entries.tournament_id) AND (r.account_id = lineup_entries.account_id)))) AND (EXISTS ( SELECT
   FROM app.players p
  WHERE ((p.id = lineup_entries.player_id) AND (p.account_id = lineup_entries.account_id))))));

CREATE POLICY "Team members are added in the bound account" ON "app"."team_members"
  FOR INSERT
  TO "tournament_api_owner"
  WITH CHECK (((account_id = ( SELECT (NULLIF(s.v, ''::text))::uuid AS "nullif"
   FROM ( SELECT current_setting('app.account_id'::text, true) AS current_setting) s(v))) AND (EXISTS ( SELECT
   FROM app.teams t
  WHERE ((t.id = team_members.team_id) AND (t.account_id = team_members.account_id)))) AND (EXISTS ( SELECT
   FROM app.players p
  WHERE ((p.id = team_members.player_id) AND (p.account_id = team_members.account_id))))));
