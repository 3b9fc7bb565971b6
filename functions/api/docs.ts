// The routes that need no key besides the public view: the OpenAPI document and the API
// reference page with its assets, counted per client address as the public view is. The page
// is Swagger UI (the npm package swagger-ui-dist), served by the function itself with no CDN,
// rendering /api/v1/openapi.json. `npm install` copies the renderer's two files into
// functions/api/static/ (scripts/copy-docs-assets.mjs); config.toml bundles them as static
// files on deploy.
import { ApiError } from "./errors.ts";
import { openApiDocument } from "./openapi/document.ts";
import { countStatic, type PublicRequest } from "./public.ts";

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

/** The route label of a static file that needs no key (the OpenAPI document, the reference page and its assets), or null. */
export function staticRouteOf(path: string): string | null {
  if (path === "/openapi.json" || path === "/docs") return `GET ${path}`;
  return path.startsWith("/docs/") && assetType(path.slice("/docs/".length)) ? "GET /docs/{asset}" : null;
}

/** The served OpenAPI document, by the server URL it names. */
const openApiJson = new Map<string, string>();

/** Answers a static file's route (a path staticRouteOf names). */
export async function staticFile(p: PublicRequest): Promise<Response> {
  const { req, path, headers } = p;
  if (req.method !== "GET" && req.method !== "HEAD") {
    throw new ApiError("method_not_allowed", "Use GET on this path.", undefined, { Allow: "GET, HEAD" });
  }
  await countStatic(p);
  const body = (bytes: BodyInit) => (req.method === "HEAD" ? null : bytes);
  if (path === "/openapi.json") {
    // The first server is where this document was served from (or PUBLIC_BASE_URL).
    let json = openApiJson.get(p.apiBase);
    if (!json) {
      json = JSON.stringify(openApiDocument({ serverUrl: p.apiBase }), null, 2);
      if (openApiJson.size < 16) openApiJson.set(p.apiBase, json);
    }
    return new Response(body(json), { status: 200, headers });
  }
  if (path === "/docs") {
    headers.set("Content-Type", "text/html; charset=utf-8");
    headers.set(
      "Content-Security-Policy",
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    );
    return new Response(body(docsPage(new URL(req.url).pathname.endsWith("/"))), { status: 200, headers });
  }
  const asset = path.slice("/docs/".length);
  if (!p.readFile) throw new ApiError("not_found", "No such route.");
  const bytes = await readAsset(asset, p.readFile);
  headers.set("Content-Type", assetType(asset)!);
  headers.set("Cache-Control", "public, max-age=3600");
  return new Response(body(bytes as Uint8Array<ArrayBuffer>), { status: 200, headers });
}
