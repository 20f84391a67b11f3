import { readFileSync } from "node:fs";
import AjvModule, { type ErrorObject, type ValidateFunction } from "ajv";
import { HubError } from "../errors.js";
import { patternWords } from "./pattern-words.js";

// ajv ships CommonJS with its class on `default`.
const Ajv = AjvModule.default;

/** Where the machine-readable contract lives, relative to this file in dist/src/rpc/. */
export const OPENRPC_URL = new URL("../../../protocol/tabwire.openrpc.json", import.meta.url);

interface ContentDescriptor {
  name: string;
  required?: boolean;
  schema: object;
}

/** The parts of an OpenRPC method the hub reads. */
export interface OpenRpcMethod {
  name: string;
  params: ContentDescriptor[];
  result?: { name: string; schema: object };
}

/** The parts of the OpenRPC document the hub reads. */
export interface OpenRpcDocument {
  methods: OpenRpcMethod[];
  components?: { schemas?: Record<string, object>; errors?: Record<string, { code: number; message: string }> };
}

/** One params problem, as -32602 reports it. */
export interface ParamsProblem {
  path: string;
  message: string;
}

/** Reads the OpenRPC document. */
export function loadOpenRpc(url: URL = OPENRPC_URL): OpenRpcDocument {
  return JSON.parse(readFileSync(url, "utf8")) as OpenRpcDocument;
}

/** The most problems one INVALID_PARAMS answer lists; `data.errorCount` says how many were found. */
export const MAX_REPORTED_ERRORS = 10;
/** Params with more values than this are checked up to their first problem only, so a bad request costs little. */
export const MAX_VALUES_FOR_ALL_ERRORS = 2_000;
// A problem's path echoes the caller's keys: cut, so an answer stays small whatever was sent.
const MAX_PATH_LENGTH = 200;

interface MethodValidators {
  /** Stops at the first problem: the one run on every call. */
  first: ValidateFunction;
  /** Lists every problem: compiled at the first failure, run only for params that failed and are small enough. */
  all: () => ValidateFunction;
}

/** Validates (and fills defaults into) each method's by-name params with the schemas of the OpenRPC document. */
export class ParamsValidator {
  #validators = new Map<string, MethodValidators>();

  constructor(document: OpenRpcDocument) {
    const first = new Ajv({ allErrors: false, useDefaults: true, strict: false });
    const all = new Ajv({ allErrors: true, useDefaults: false, strict: false });
    for (const method of document.methods) {
      const schema = {
        type: "object",
        properties: Object.fromEntries(method.params.map((p) => [p.name, p.schema])),
        required: method.params.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
        components: document.components ?? {},
      };
      let thorough: ValidateFunction | undefined;
      this.#validators.set(method.name, { first: first.compile(schema), all: () => (thorough ??= all.compile(schema)) });
    }
  }

  /** Whether the document describes this method. */
  has(method: string): boolean {
    return this.#validators.has(method);
  }

  /**
   * Checks params in place (defaults are filled in); throws INVALID_PARAMS listing the first MAX_REPORTED_ERRORS
   * problems, with `errorCount` when there were more. `values` (how many values the params hold) decides whether
   * every problem is looked for or only the first.
   */
  validate(method: string, params: Record<string, unknown>, values = 0): void {
    const validators = this.#validators.get(method);
    if (!validators || validators.first(params)) return;
    const all = values <= MAX_VALUES_FOR_ALL_ERRORS ? validators.all() : null;
    const thorough = all !== null && !all(params);
    const found = (thorough ? all.errors : validators.first.errors) ?? [];
    const errors = found.slice(0, MAX_REPORTED_ERRORS).map(toProblem);
    const summary = errors.map((e) => `${e.path} ${e.message}`).join("; ");
    if (found.length > errors.length) {
      const message = `invalid params for ${method}: ${summary} (and ${found.length - errors.length} more)`;
      throw new HubError("INVALID_PARAMS", message, { errors, errorCount: found.length });
    }
    const more =
      thorough || values <= MAX_VALUES_FOR_ALL_ERRORS
        ? ""
        : ` (only the first problem is looked for in params of more than ${MAX_VALUES_FOR_ALL_ERRORS} values)`;
    throw new HubError("INVALID_PARAMS", `invalid params for ${method}: ${summary}${more}`, { errors });
  }
}

function toProblem(error: ErrorObject): ParamsProblem {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") return { path: cut(`${error.instancePath}/${String(params.missingProperty)}`), message: "is required" };
  if (error.keyword === "additionalProperties") {
    const where = error.instancePath === "" ? "is not a parameter of this method" : "is not a field of this object";
    return { path: cut(`${error.instancePath}/${String(params.additionalProperty)}`), message: where };
  }
  // A regular expression tells a caller little: a pattern's problem says in words what the value should be.
  const words = error.keyword === "pattern" ? patternWords(String(params.pattern)) : undefined;
  return { path: cut(error.instancePath || "/"), message: words ?? error.message ?? "is invalid" };
}

function cut(path: string): string {
  return path.length > MAX_PATH_LENGTH ? `${path.slice(0, MAX_PATH_LENGTH)}...` : path;
}
