// "pg" for Deno (the import map in deno.json points here): the npm package with the types of
// @types/pg, which pg does not ship. On Node (vitest) "pg" resolves to node_modules directly.
// @ts-types="npm:@types/pg@8.23.1"
import pg from "npm:pg@8.23.1";
export default pg;
