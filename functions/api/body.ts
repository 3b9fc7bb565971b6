import { ApiError } from "./errors.ts";
import { MAX_BODY_BYTES } from "./contract.ts";

/** The client disconnected while its request body was being read: there is no one to answer. */
export class ClientGone extends Error {
  constructor() {
    super("the client disconnected before its request body was complete");
  }
}

function tooLarge(): ApiError {
  return new ApiError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
}

async function readLimited(req: Request): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw new ClientGone(); // the connection closed before the body was complete
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** Reads a JSON object body: 415 for another media type, 413 past the limit, 400 for bad JSON. */
export async function readJsonObject(req: Request): Promise<Record<string, unknown>> {
  const type = req.headers.get("content-type");
  const bytes = await readLimited(req);
  if (type === null && bytes.byteLength === 0) {
    throw new ApiError("invalid_json", "The request needs a JSON object body.");
  }
  if (type === null || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError("unsupported_media_type", "The request body must be application/json.");
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("invalid_json", "The request body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}
