/**
 * JSON-RPC 2.0 framing for the A2A endpoint (A2A §Transport, Protocol): parsing a request,
 * reading `message/send` params, and the spec's error codes.
 *
 *   -32700 parse error      body is not JSON (JSON-RPC 2.0 §5.1; not in the A2A table, which
 *                           lists only the codes past parsing)
 *   -32600 invalid request  not an object, jsonrpc != "2.0", no method, id not string/number,
 *                           a batch (A2A never batches), or a body over the size bound
 *   -32601 method not found anything but message/send (and A2A 1.0's SendMessage)
 *   -32602 invalid params   no message/parts, unsupported DataPart intent, oversized text
 *   -32603 internal error
 *   -32001 organization not found or not discoverable
 *   -32002 rate limited (the one answer that is not HTTP 200: 429 + Retry-After)
 *
 * The same request also arrives in A2A 1.0's dialect (method `SendMessage`, agent-card-v1.ts):
 * its message has the same members but parts name their content by member (`{text}`,
 * `{data}`) where v0.3 tags them with `kind`, and roles are `ROLE_USER`/`ROLE_AGENT`. 1.0
 * gives -32001 and -32002 other meanings (task not found, not cancelable), so in that dialect
 * the two conditions of the Servicialo table are JSON-RPC's implementation-defined server
 * error, -32000, with a `data.reason` (JSON-RPC 2.0 §5.1), and an A2A-Version this edge does
 * not speak is 1.0's -32009.
 */
import { A2A_INTENTS } from "../port.js";
import type { A2aClientContact, A2aIntent } from "../port.js";
import type { Result } from "../../../protocol/result.js";

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  ORG_NOT_FOUND: -32001,
  RATE_LIMITED: -32002,
  /** JSON-RPC 2.0 §5.1 implementation-defined server error: A2A 1.0's dialect of the two above. */
  SERVER_ERROR: -32000,
  /** A2A 1.0 VersionNotSupportedError. */
  VERSION_NOT_SUPPORTED: -32009,
} as const;

/** Which wire a request speaks: the Servicialo v0.3.0 one or A2A 1.0's. */
export type Dialect = "v0.3" | "v1.0";

/** The JSON-RPC method of `message/send` in each dialect. */
export const SEND_METHOD: Readonly<Record<Dialect, string>> = {
  "v0.3": "message/send",
  "v1.0": "SendMessage",
};

export const dialectOfMethod = (method: string): Dialect | undefined =>
  method === SEND_METHOD["v0.3"] ? "v0.3" : method === SEND_METHOD["v1.0"] ? "v1.0" : undefined;

/** The two Servicialo-specific failures, in the dialect's codes. */
export function orgNotFound(dialect: Dialect): JsonRpcError {
  const message = "Organization not found or not discoverable";
  return dialect === "v0.3"
    ? { code: JSONRPC.ORG_NOT_FOUND, message }
    : { code: JSONRPC.SERVER_ERROR, message, data: { reason: "organization_not_found" } };
}

export function rateLimited(dialect: Dialect, retryAfterSec: number): JsonRpcError {
  return dialect === "v0.3"
    ? { code: JSONRPC.RATE_LIMITED, message: "Rate limited", data: { retry_after: retryAfterSec } }
    : {
        code: JSONRPC.SERVER_ERROR,
        message: "Rate limited",
        data: { reason: "rate_limited", retry_after: retryAfterSec },
      };
}

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export interface JsonRpcRequest {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: unknown;
}

/** A request that cannot be served: the id to answer with (null when unknown) and the error. */
interface JsonRpcFailure {
  readonly id: JsonRpcId;
  readonly rpcError: JsonRpcError;
}

export type Parsed<T> = Result<T, JsonRpcFailure>;

export function errorBody(id: JsonRpcId, error: JsonRpcError): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error };
}

export function resultBody(id: JsonRpcId, result: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result };
}

const fail = (id: JsonRpcId, code: number, message: string): Parsed<never> => ({
  ok: false,
  error: { id, rpcError: { code, message } },
});

/** Bytes → a JSON-RPC request object. Invalid UTF-8 is a parse error, not a replacement character. */
export function parseRequest(bytes: Uint8Array): Parsed<JsonRpcRequest> {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return fail(null, JSONRPC.PARSE_ERROR, "Parse error: the body is not valid JSON");
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return fail(null, JSONRPC.INVALID_REQUEST, "Invalid Request: expected one JSON-RPC request object");
  const r = raw as Record<string, unknown>;
  const id = r.id;
  // A2A requests always carry an id (a notification could never receive its Message).
  if (typeof id !== "string" && (typeof id !== "number" || !Number.isFinite(id)))
    return fail(null, JSONRPC.INVALID_REQUEST, "Invalid Request: id must be a string or a number");
  if (r.jsonrpc !== "2.0") return fail(id, JSONRPC.INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"');
  if (typeof r.method !== "string" || r.method === "")
    return fail(id, JSONRPC.INVALID_REQUEST, "Invalid Request: method must be a non-empty string");
  return { ok: true, value: { id, method: r.method, params: r.params } };
}

interface DataRequest {
  readonly intent: A2aIntent;
  readonly params: Readonly<Record<string, unknown>>;
  readonly client?: A2aClientContact;
}

export interface SendParams {
  /** The first DataPart carrying `intent`: it wins over any text (A2A §Transport). */
  readonly data?: DataRequest;
  /** All text parts joined by newlines ("" when none). */
  readonly text: string;
  readonly contextId?: string;
  readonly taskId?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const CONTACT_FIELDS = ["name", "lastName", "phone", "email"] as const;

/** A part's content: `{kind: "text", text}` in v0.3, `{text}` in 1.0 (likewise data); else none. */
function contentOf(
  part: Record<string, unknown>,
  dialect: Dialect,
): { text: unknown } | { data: unknown } | undefined {
  if (dialect === "v0.3") {
    if (part.kind === "text") return { text: part.text };
    return part.kind === "data" ? { data: part.data } : undefined;
  }
  if ("text" in part) return { text: part.text };
  return "data" in part ? { data: part.data } : undefined;
}

/** `message/send` params: the message, its text and its structured DataPart, if any. */
export function readSendParams(
  id: JsonRpcId,
  params: unknown,
  maxTextChars: number,
  dialect: Dialect = "v0.3",
): Parsed<SendParams> {
  const invalid = (message: string) => fail(id, JSONRPC.INVALID_PARAMS, `Invalid params: ${message}`);
  if (!isObject(params) || !isObject(params.message)) return invalid("params.message must be an object");
  const message = params.message;
  if (!Array.isArray(message.parts) || message.parts.length === 0)
    return invalid("params.message.parts must be a non-empty array");
  const texts: string[] = [];
  let data: DataRequest | undefined;
  for (const part of message.parts as unknown[]) {
    if (!isObject(part)) return invalid("every part must be an object");
    const content = contentOf(part, dialect);
    if (content !== undefined && "text" in content) {
      if (typeof content.text !== "string") return invalid("a text part's text must be a string");
      texts.push(content.text);
    } else if (
      content !== undefined &&
      data === undefined &&
      isObject(content.data) &&
      "intent" in content.data
    ) {
      const d = content.data;
      if (typeof d.intent !== "string" || !(A2A_INTENTS as readonly string[]).includes(d.intent))
        return invalid(`unsupported intent ${JSON.stringify(d.intent)}; one of ${A2A_INTENTS.join(", ")}`);
      if (d.params !== undefined && !isObject(d.params)) return invalid("data.params must be an object");
      if (d.client !== undefined && !isObject(d.client)) return invalid("data.client must be an object");
      let client: A2aClientContact | undefined;
      if (isObject(d.client)) {
        const c: Record<string, string> = {};
        for (const f of CONTACT_FIELDS) {
          const v = d.client[f];
          if (v === undefined) continue;
          if (typeof v !== "string") return invalid(`data.client.${f} must be a string`);
          c[f] = v;
        }
        client = c;
      }
      data = {
        intent: d.intent as A2aIntent,
        params: isObject(d.params) ? d.params : {},
        ...(client !== undefined && { client }),
      };
    }
  }
  const text = texts.join("\n");
  if (text.length > maxTextChars)
    return invalid(`text is ${text.length} characters; at most ${maxTextChars}`);
  if (data === undefined && text.trim() === "")
    return invalid("the message has no text and no DataPart with an intent");
  return {
    ok: true,
    value: {
      text,
      ...(data !== undefined && { data }),
      ...(typeof message.contextId === "string" && { contextId: message.contextId }),
      ...(typeof message.taskId === "string" && { taskId: message.taskId }),
    },
  };
}

/** A part of the agent's answer, before it takes a dialect's shape. */
export type AgentPart = { readonly text: string } | { readonly data: Readonly<Record<string, unknown>> };

/**
 * The JSON-RPC `result` of a send: the agent's Message (A2A §Response). v0.3 answers the
 * Message itself (`kind: "message"`); 1.0 answers a SendMessageResponse, the Message under
 * `message` (a Task would be under `task`; every intent completes within the request).
 */
export function agentMessage(
  dialect: Dialect,
  messageId: string,
  parts: readonly AgentPart[],
  send: Pick<SendParams, "contextId" | "taskId">,
): Record<string, unknown> {
  const ids = {
    ...(send.contextId !== undefined && { contextId: send.contextId }),
    ...(send.taskId !== undefined && { taskId: send.taskId }),
  };
  if (dialect === "v0.3")
    return {
      kind: "message",
      role: "agent",
      messageId,
      parts: parts.map((p) =>
        "text" in p ? { kind: "text", text: p.text } : { kind: "data", data: p.data },
      ),
      ...ids,
    };
  return {
    message: {
      messageId,
      ...ids,
      role: "ROLE_AGENT",
      parts: parts.map((p) =>
        "text" in p ? { text: p.text } : { data: p.data, mediaType: "application/json" },
      ),
    },
  };
}

/**
 * The dialect an `A2A-Version` header asks for (A2A 1.0 clients send it on every request,
 * the card's included; v0.3 has no such header, so none means v0.3); undefined for a version
 * this edge does not speak.
 */
export function dialectOfVersion(header: string | undefined): Dialect | undefined {
  const v = header?.trim() ?? "";
  if (v === "") return "v0.3";
  const major = /^(\d+)(?:\.\d+)*$/.exec(v)?.[1];
  if (major === "0") return "v0.3";
  return major === "1" ? "v1.0" : undefined;
}
