import { loadOpenRpc } from "../../src/rpc/params-validator.js";

/** A seeded pseudo-random source (xorshift32): one seed always gives the same frames. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0 || 0x9e3779b9;
  }

  /** A float in [0, 1). */
  next(): number {
    let x = this.#state;
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    this.#state = x;
    return x / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  /** A string of `min`..`max` characters drawn from `alphabet`. */
  text(alphabet: string, min: number, max: number): string {
    const chars = [...alphabet];
    return Array.from({ length: this.int(min, max) }, () => this.pick(chars)).join("");
  }
}

/** JSON text spliced into a frame as it is: numbers JavaScript cannot write, raw lone surrogates, deep nesting. */
export class Raw {
  constructor(readonly text: string) {}
}

/** Serializes like JSON.stringify, except that Raw values are written as their text. */
export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : toJson(item))).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).filter(([, member]) => member !== undefined);
    return `{${members.map(([key, member]) => `${JSON.stringify(key)}:${toJson(member)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The error codes of docs/protocol.md section 8 that the fuzzer names. */
export const CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  TIMEOUT: -32001,
  TARGET_NOT_FOUND: -32002,
  FORBIDDEN: -32007,
  CANCELLED: -32010,
  OVERLOADED: -32011,
} as const;

/** What one response may carry: a result or not, and which error codes. */
export interface Outcome {
  result: boolean;
  codes: readonly number[];
}

/** Every error a method may answer with: INVALID_PARAMS and the hub's own -32000..-32014 (never INTERNAL_ERROR). */
const METHOD_ERRORS = [CODES.INVALID_PARAMS, ...Array.from({ length: 15 }, (_, i) => -32000 - i)];
/** A real call: a result or any error a method may answer with. */
export const ANY_OUTCOME: Outcome = { result: true, codes: METHOD_ERRORS };
/** A call that must fail with one of `codes`. */
export const failsWith = (...codes: number[]): Outcome => ({ result: false, codes });
/** A call that must succeed. */
export const SUCCEEDS: Outcome = { result: true, codes: [] };
/** A call on a tab the caller may not see: never a result. */
export const FOREIGN = failsWith(CODES.TARGET_NOT_FOUND, CODES.INVALID_PARAMS, CODES.FORBIDDEN, CODES.TIMEOUT);

/** One response the hub owes: its id (as JSON text, "null" for id null) and what it may carry. */
export interface Owed {
  key: string;
  outcome: Outcome;
  /** A request (OVERLOADED, CANCELLED and, for an id still in flight, -32600 are always fine) rather than an invalid item. */
  isRequest: boolean;
}

/** What the hub owes for one frame: no frame, one response object, or one array of responses. */
export interface Expectation {
  shape: "none" | "object" | "array";
  owed: Owed[];
}

/** One fuzz frame, ready to send, with the answer JSON-RPC 2.0 requires for it. */
export interface FuzzFrame {
  index: number;
  category: string;
  data: string | Buffer;
  binary: boolean;
  /** Whether it asks for real work on the fuzzer's own tab (as far as the generator can tell). */
  touchesTab: boolean;
  expect: Expectation;
}

/** The id of a response as a lookup key. */
export function keyOf(id: unknown): string {
  return JSON.stringify(id) ?? "null";
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/** The answer JSON-RPC 2.0 requires for a frame; `intents` say what each well-formed request may get, in frame order. */
export function expectationOf(
  data: string | Uint8Array,
  intents: readonly (Outcome | undefined)[],
  rules: { maxBatch: number; methods: ReadonlySet<string> },
): Expectation {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(typeof data === "string" ? encoder.encode(data) : data));
  } catch {
    return { shape: "object", owed: [{ key: "null", outcome: failsWith(CODES.PARSE_ERROR), isRequest: false }] };
  }
  if (!Array.isArray(value)) {
    const owed = owedFor(value, intents[0], rules.methods);
    return owed ? { shape: "object", owed: [owed] } : { shape: "none", owed: [] };
  }
  if (value.length === 0 || value.length > rules.maxBatch) {
    return { shape: "object", owed: [{ key: "null", outcome: failsWith(CODES.INVALID_REQUEST), isRequest: false }] };
  }
  const owed = value.map((item: unknown, i) => owedFor(item, intents[i], rules.methods)).filter((item) => item !== null);
  return owed.length > 0 ? { shape: "array", owed } : { shape: "none", owed: [] };
}

function owedFor(item: unknown, intent: Outcome | undefined, methods: ReadonlySet<string>): Owed | null {
  const invalid = (key: string): Owed => ({ key, outcome: failsWith(CODES.INVALID_REQUEST), isRequest: false });
  if (typeof item !== "object" || item === null || Array.isArray(item)) return invalid("null");
  const request = item as Record<string, unknown>;
  const hasId = Object.hasOwn(request, "id");
  const { id, params } = request;
  if (hasId && !(id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))) return invalid("null");
  const key = hasId ? keyOf(id) : "null";
  if (request.jsonrpc !== "2.0" || typeof request.method !== "string") return invalid(key);
  if (params !== undefined && (typeof params !== "object" || params === null)) return invalid(key);
  if (!hasId) return null;
  if (!methods.has(request.method)) return { key, outcome: failsWith(CODES.METHOD_NOT_FOUND), isRequest: true };
  if (Array.isArray(params)) return { key, outcome: failsWith(CODES.INVALID_PARAMS), isRequest: true };
  return { key, outcome: intent ?? ANY_OUTCOME, isRequest: true };
}

export type Schema = Record<string, unknown>;

/** A method of the OpenRPC document with its params' schemas ($refs resolved). */
export interface MethodSpec {
  name: string;
  params: { name: string; required: boolean; schema: Schema }[];
}

/** The hub's methods and their params, read from protocol/tabwire.openrpc.json. */
export function loadMethodSpecs(): MethodSpec[] {
  const document = loadOpenRpc();
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const resolve = (schema: Schema): Schema => {
    const ref = typeof schema.$ref === "string" ? schema.$ref.split("/").pop() : undefined;
    return ref ? (schemas[ref] ?? {}) : schema;
  };
  return document.methods.map((method) => ({
    name: method.name,
    params: method.params.map((param) => ({
      name: param.name,
      required: param.required === true,
      schema: resolve(param.schema as Schema),
    })),
  }));
}
