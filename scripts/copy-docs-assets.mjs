// postinstall: copies the API reference renderer (swagger-ui-dist) into functions/api/static/,
// where the function serves it from and `supabase functions deploy` bundles it (static_files).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const target = path.join(root, "functions", "api", "static");
fs.mkdirSync(target, { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
  fs.copyFileSync(path.join(dist, file), path.join(target, file));
}
