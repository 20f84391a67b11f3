import { readFileSync } from "node:fs";
import AjvModule, { type ErrorObject, type ValidateFunction } from "ajv";
import { HubError } from "../errors.js";

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

/** Validates (and fills defaults into) each method's by-name params with the schemas of the OpenRPC document. */
export class ParamsValidator {
  #validators = new Map<string, ValidateFunction>();

  constructor(document: OpenRpcDocument) {
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
    for (const method of document.methods) {
      const schema = {
        type: "object",
        properties: Object.fromEntries(method.params.map((p) => [p.name, p.schema])),
        required: method.params.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
        components: document.components ?? {},
      };
      this.#validators.set(method.name, ajv.compile(schema));
    }
  }

  /** Whether the document describes this method. */
  has(method: string): boolean {
    return this.#validators.has(method);
  }

  /** Checks params in place (defaults are filled in); throws INVALID_PARAMS listing every problem. */
  validate(method: string, params: Record<string, unknown>): void {
    const validate = this.#validators.get(method);
    if (!validate || validate(params)) return;
    const errors = (validate.errors ?? []).map(toProblem);
    const summary = errors.map((e) => `${e.path} ${e.message}`).join("; ");
    throw new HubError("INVALID_PARAMS", `invalid params for ${method}: ${summary}`, { errors });
  }
}

function toProblem(error: ErrorObject): ParamsProblem {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") return { path: `/${String(params.missingProperty)}`, message: "is required" };
  if (error.keyword === "additionalProperties") {
    return { path: `/${String(params.additionalProperty)}`, message: "is not a parameter of this method" };
  }
  return { path: error.instancePath || "/", message: error.message ?? "is invalid" };
}
