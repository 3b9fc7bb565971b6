// `npm run openapi`: writes openapi.json (the generated copy kept in the repo) from the zod
// schemas. A test fails when the copy is stale.
import { openApiDocument } from "../functions/api/openapi/document.ts";

const file = new URL("../openapi.json", import.meta.url);
await Deno.writeTextFile(file, JSON.stringify(openApiDocument(), null, 2) + "\n");
console.log(`wrote ${file.pathname}`);
