// postinstall: copies the files the function reads at run time into functions/api/static/
// (gitignored), where `supabase functions deploy` bundles them (static_files in config.toml):
// - the API reference renderer (swagger-ui-dist), served under /api/v1/docs/;
// - the PNG rasteriser (@resvg/resvg-wasm's wasm) and the font it draws text with (Inter 400 and
//   700 from @expo-google-fonts/inter), read by functions/api/render/png.ts and never served.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const swagger = path.dirname(require.resolve("swagger-ui-dist/package.json"));
// Target name in static/ -> source file.
const files = {
  "swagger-ui-bundle.js": path.join(swagger, "swagger-ui-bundle.js"),
  "swagger-ui.css": path.join(swagger, "swagger-ui.css"),
  "resvg.wasm": require.resolve("@resvg/resvg-wasm/index_bg.wasm"),
  "Inter-Regular.ttf": require.resolve("@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf"),
  "Inter-Bold.ttf": require.resolve("@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf"),
};
const target = path.join(root, "functions", "api", "static");
fs.mkdirSync(target, { recursive: true });
for (const [name, source] of Object.entries(files)) {
  fs.copyFileSync(source, path.join(target, name));
}
