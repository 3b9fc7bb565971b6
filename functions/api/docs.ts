// The API reference page: Swagger UI (the npm package swagger-ui-dist), served by the function
// itself with no CDN, rendering /api/v1/openapi.json. `npm install` copies the renderer's two
// files into functions/api/static/ (scripts/copy-docs-assets.mjs); config.toml bundles them
// as static files on deploy.
const DOCS_ASSETS = new Map<string, string>([
  ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
  ["swagger-ui.css", "text/css; charset=utf-8"],
]);

/** The media type of a docs asset, or null when `name` is not one (a Map: no inherited names). */
export function assetType(name: string): string | null {
  return DOCS_ASSETS.get(name) ?? null;
}

/**
 * The HTML page. Its URLs are relative, to the page at /api/v1/docs or, with `trailingSlash`,
 * at /api/v1/docs/.
 */
export function docsPage(trailingSlash = false): string {
  const assets = trailingSlash ? "" : "docs/";
  const document = trailingSlash ? "../openapi.json" : "openapi.json";
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Tournament API reference</title>
  <link rel="stylesheet" href="${assets}swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="${assets}swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "${document}", dom_id: "#reference", deepLinking: true,
      defaultModelsExpandDepth: 0, docExpansion: "list", persistAuthorization: true });
  </script>
</body>
</html>
`;
}

const cache = new Map<string, Uint8Array>();

/** Reads a docs asset from functions/api/static (kept in memory after the first read). */
export async function readAsset(name: string, read: (url: URL) => Promise<Uint8Array>): Promise<Uint8Array> {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = await read(new URL(`./static/${name}`, import.meta.url));
    cache.set(name, bytes);
  }
  return bytes;
}
