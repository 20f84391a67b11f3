import { JSONRPCServer, type JSONRPCErrorResponse, type JSONRPCID, type JSONRPCResponse } from "json-rpc-2.0";
import { Budget } from "../budget.js";
import { allows, type Need } from "../capabilities.js";
import { ErrorCode, HubError, toWireError, type ErrorName } from "../errors.js";
import { log, logApi } from "../log.js";
import { isTraceparent, isTracing, traceCall, type CallSpan } from "../tracing.js";
import {
  envelopeOf,
  errorResponse,
  parseFrame,
  type Envelope,
  type InvalidItem,
  type JsonRpcId,
  type JsonRpcResponse,
  type RequestItem,
} from "./envelope.js";
import { auditCallOf } from "./call-audit.js";
import type { CallHook } from "./call-hook.js";
import type { DrainGate } from "./drain-gate.js";
import type { CallContext, ConnectionState, MethodDefinition } from "./method.js";
import { MAX_PARAMS_DEPTH, nestingOf } from "./nesting.js";
import type { ParamsValidator } from "./params-validator.js";
import { RateLimit } from "./rate-limit.js";

/** What the router needs: the method list, the services handed to every handler, and the limits. */
export interface RouterOptions<S> {
  methods: readonly MethodDefinition<S>[];
  services: S;
  validator: ParamsValidator;
  maxBatch: number;
  maxInflight: number;
  ratePerSec: number;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  allowMissingVersion?: boolean;
  observer?: CallObserver;
  /** Told of each call on its way in and out (the tabs' timelines). */
  hook?: CallHook;
  /** While it drains, the calls of new frames are refused (OVERLOADED with `data.draining`); `cancel` still stops a running one. */
  drain?: DrainGate;
}

/** Told about every call, for metrics. */
export interface CallObserver {
  /** A request started (+1) or stopped (-1) running. */
  running(delta: 1 | -1): void;
  /** A request or notification was answered; `method` is "unknown" for a name that is not a hub method. */
  answered(method: string, outcome: string, call: { seconds: number; about: string | undefined }): void;
}

// A handler that overruns its budget is answered anyway this long after the deadline (docs/protocol.md allows 250 ms).
const ANSWER_GRACE_MS = 220;
const NO_PARAMS: readonly string[] = [];
const CODE_NAMES = new Map<number, ErrorName>(Object.entries(ErrorCode).map(([name, code]) => [code, name as ErrorName]));

/**
 * Turns frames into responses: envelope rules, limits, params validation, budgets and cancellation are the hub's own;
 * json-rpc-2.0 holds the methods, calls the handler with the call's context and maps what it throws.
 */
export class Router<S> {
  #options: RouterOptions<S>;
  // The library would print every error a method throws; the hub logs what matters itself (wireErrorOf).
  #server = new JSONRPCServer<CallContext<S>>({ errorListener: () => {} });
  // Methods whose traits exempt them from the rate limit (cancel).
  #unlimited = new Set<string>();
  // Methods whose traits say they change nothing: every other call is written to audit.log.
  #reads = new Set<string>();
  // What each method needs of the caller's token (its `needs` trait).
  #needs = new Map<string, Need>();
  // Methods whose traits say they act on the page as a user would (the timeline's pictures).
  #acts = new Set<string>();
  // Methods the hook is not told of (the timelines' own reads).
  #unrecorded = new Set<string>();
  #rates = new WeakMap<ConnectionState, RateLimit>();

  constructor(options: RouterOptions<S>) {
    this.#options = options;
    for (const method of options.methods) {
      if (!options.validator.has(method.name)) throw new Error(`method ${method.name} is missing from the OpenRPC document`);
      // The handler's value becomes the answer in answerWithin's own step: each promise a call chains costs CPU.
      this.#server.addMethodAdvanced(method.name, ({ id, params }, call) =>
        answerWithin(method.run(params as object, call), call.budget, id ?? null),
      );
      if (method.traits.unlimited) this.#unlimited.add(method.name);
      if (method.traits.reads) this.#reads.add(method.name);
      if (method.traits.acts) this.#acts.add(method.name);
      if (method.traits.unrecorded) this.#unrecorded.add(method.name);
      this.#needs.set(method.name, method.traits.needs);
    }
    this.#server.mapErrorToJSONRPCErrorResponse = wireErrorOf;
  }

  /** Answers one text frame: the serialized response, or null when nothing is owed (notifications only). */
  handleFrame(text: string, connection: ConnectionState): Promise<string | null> {
    return this.#answer(parseFrame(text, this.#envelopeOptions()), connection);
  }

  /** Answers a frame that was already parsed (the agent endpoint reads its control frames first). */
  handleValue(value: unknown, connection: ConnectionState): Promise<string | null> {
    return this.#answer(envelopeOf(value, this.#envelopeOptions()), connection);
  }

  /** Calls one method as a request of `connection` would (validation, budget, cancellation) and returns its result, or throws the error as a HubError. */
  async invoke(method: string, params: object, connection: ConnectionState): Promise<unknown> {
    const response = await this.#handleItem({ kind: "request", id: 1, method, params }, connection, owed);
    if (response && "error" in response && response.error) throw HubError.fromWire(response.error);
    return response && "result" in response ? response.result : undefined;
  }

  /** Whether a connection's token may call a method (its `needs` trait); false for a method that does not exist. */
  mayCall(method: string, connection: Pick<ConnectionState, "capabilities">): boolean {
    const need = this.#needs.get(method);
    return need !== undefined && allows(connection.capabilities, need);
  }

  #envelopeOptions(): { maxBatch: number; allowMissingVersion: boolean } {
    return { maxBatch: this.#options.maxBatch, allowMissingVersion: this.#options.allowMissingVersion ?? false };
  }

  // A single request is written in the step that logs it: a step less per call than awaiting it here.
  #answer(frame: Envelope, connection: ConnectionState): Promise<string | null> {
    if (frame.kind === "frame-error") return Promise.resolve(JSON.stringify(frame.response));
    // Only frames are refused: the hub's own calls (invoke) for a request that came in before the drain go on.
    const envelope = this.#options.drain?.isDraining
      ? this.#options.drain.refuseNew(frame, (method) => this.#unlimited.has(method))
      : frame;
    if (envelope.kind === "single") return this.#handleItem(envelope.item, connection, written);
    return Promise.all(envelope.items.map((item) => this.#handleItem(item, connection, owed))).then((responses) => {
      const answers = responses.filter((response) => response !== null);
      return answers.length > 0 ? `[${answers.map(serialize).join(",")}]` : null;
    });
  }

  /** Answers one item: refused by the hub's limits and checks, or run by the library; logged, counted, then `finish`ed. */
  async #handleItem<T>(
    item: RequestItem | InvalidItem,
    connection: ConnectionState,
    finish: (owed: JsonRpcResponse | null) => T,
  ): Promise<T> {
    if (item.kind === "invalid") return finish(item.response);
    const started = performance.now();
    const checked = this.#check(item, connection);
    let response: JsonRpcResponse;
    if ("jsonrpc" in checked) response = checked;
    else {
      const id = item.id ?? null;
      const budget = new Budget(typeof checked.params.timeoutMs === "number" ? checked.params.timeoutMs : this.#options.defaultTimeoutMs);
      const done = connection.inflight.add(item.id, budget);
      this.#options.observer?.running(1);
      const call: CallContext<S> = { services: this.#options.services, connection, budget, id: item.id };
      const traceparent = checked.traceparent ?? connection.traceparent;
      const { method } = item;
      const hook = this.#unrecorded.has(method) ? undefined : this.#options.hook;
      const hooked = hook?.begin({ method, ...checked, connection, acts: this.#acts.has(method), traceparent });
      try {
        if (hooked?.ready) await hooked.ready;
        // Awaited here rather than in an async function of its own: each step a call chains is CPU on the hot path.
        const answer = isTracing() ? this.#traced(item, checked, call) : this.#run(item, checked.params, call);
        response = (await answer) ?? { jsonrpc: "2.0", id, result: null };
      } catch (error) {
        // The gate's refusal: the budget ended while the agent was paused.
        response = wireErrorOf(id, error) as JsonRpcResponse;
      } finally {
        budget.dispose();
        done();
        this.#options.observer?.running(-1);
      }
      const ending = hooked?.end(outcomeOf(response), performance.now() - started);
      if (ending) await ending;
    }
    this.#record(item, response, { connection, durationMs: performance.now() - started });
    return finish(item.id === undefined ? null : response);
  }

  /** Logs an answered item and tells the observer. */
  #record(
    item: RequestItem,
    response: JsonRpcResponse,
    { connection, durationMs }: { connection: ConnectionState; durationMs: number },
  ): void {
    const { peer } = connection;
    const params = item.params as { target?: unknown; clientId?: unknown } | undefined;
    const outcome = "error" in response && response.error ? (CODE_NAMES.get(response.error.code) ?? String(response.error.code)) : "ok";
    const known = this.#server.hasMethod(item.method);
    if (known && !this.#reads.has(item.method))
      auditCallOf({ method: item.method, params: item.params as Record<string, unknown> | undefined, outcome }, connection);
    logApi({
      method: item.method.slice(0, 100),
      ...(typeof params?.target === "string" ? { target: params.target.slice(0, 300) } : {}),
      durationMs: Math.round(durationMs * 100) / 100,
      outcome,
      peer,
    });
    const about = typeof params?.target === "string" ? params.target : typeof params?.clientId === "string" ? params.clientId : undefined;
    this.#options.observer?.answered(known ? item.method : "unknown", outcome, {
      seconds: durationMs / 1000,
      about,
    });
  }

  /** The hub's refusal of a request (limits, unknown method, bad params, an id in flight), or its checked params. */
  #check(item: RequestItem, connection: ConnectionState): JsonRpcResponse | Checked {
    const id = item.id ?? null;
    const { maxInflight } = this.#options;
    if (connection.inflight.size >= maxInflight) {
      return errorResponse(id, {
        code: ErrorCode.OVERLOADED,
        message: `${maxInflight} requests are already in flight on this connection (MAX_INFLIGHT); retry when some are answered`,
      });
    }
    const retryAfterMs = this.#unlimited.has(item.method) ? 0 : this.#rateOf(connection).take();
    if (retryAfterMs > 0) {
      return errorResponse(id, {
        code: ErrorCode.OVERLOADED,
        message: `more than ${this.#options.ratePerSec} requests a second on this connection (RATE_LIMIT_PER_SEC); retry in ${retryAfterMs} ms`,
        data: { retryAfterMs },
      });
    }
    if (!this.#server.hasMethod(item.method)) {
      return errorResponse(id, {
        code: ErrorCode.METHOD_NOT_FOUND,
        message: `method "${item.method.slice(0, 100)}" does not exist; the methods are listed in protocol/tabwire.openrpc.json`,
      });
    }
    const need = this.#needs.get(item.method) ?? "connection";
    if (!allows(connection.capabilities, need)) return errorResponse(id, forbidden(item.method, need));
    let checked: Checked;
    try {
      checked = this.#checkParams(item);
    } catch (error) {
      return { jsonrpc: "2.0", id, error: toWireError(error) };
    }
    if (item.id !== undefined && connection.inflight.has(item.id)) {
      return errorResponse(id, {
        code: ErrorCode.INVALID_REQUEST,
        message: `Invalid Request: a request with id ${JSON.stringify(item.id)} is still in flight on this connection; use a new id`,
      });
    }
    return checked;
  }

  /** Runs a checked request in its span: a child of the caller's traceparent (the call's, else its connection's). */
  #traced(item: RequestItem, checked: Checked, call: CallContext<S>): PromiseLike<JsonRpcResponse | null> {
    const { target, clientId } = checked.params;
    const parent = checked.traceparent ?? call.connection.traceparent;
    const about: CallSpan = {
      method: item.method,
      ...(typeof target === "string" ? { target } : {}),
      ...(typeof clientId === "string" ? { client: clientId } : {}),
      ...(call.connection.who === undefined ? {} : { who: call.connection.who }),
      ...(parent === undefined ? {} : { parent }),
    };
    const run = (): PromiseLike<JsonRpcResponse | null> => this.#run(item, checked.params, call);
    return traceCall(about, run, outcomeOf);
  }

  /** Runs a checked request through the library with the call's context, once the agent's gate (if any) lets it. */
  #run(item: RequestItem, params: Record<string, unknown>, call: CallContext<S>): PromiseLike<JsonRpcResponse | null> {
    // A notification goes to the library with id null, so that it is answered too: its outcome is logged and counted.
    const request = { jsonrpc: "2.0" as const, id: item.id ?? null, method: item.method, params };
    // An agent its operator paused waits here, within the call's budget.
    const held = call.connection.gate?.(call.budget);
    const answer = held ? held.then(() => this.#server.receive(request, call)) : this.#server.receive(request, call);
    return answer as PromiseLike<JsonRpcResponse | null>;
  }

  #rateOf(connection: ConnectionState): RateLimit {
    let rate = this.#rates.get(connection);
    if (!rate) {
      rate = new RateLimit(this.#options.ratePerSec);
      this.#rates.set(connection, rate);
    }
    return rate;
  }

  #checkParams(item: RequestItem): Checked {
    if (Array.isArray(item.params)) {
      throw new HubError("INVALID_PARAMS", `params of ${item.method} must be an object of named params, not an array`, {
        errors: [{ path: "/", message: "must be an object" }],
      });
    }
    const given = (item.params ?? {}) as Record<string, unknown>;
    // `traceparent` is a param of every method, the hub's own rather than the method's: taken out before the schema.
    const { traceparent, params } = "traceparent" in given ? withoutTraceparent(given) : { traceparent: undefined, params: given };
    const { deepAt: deep, values } = nestingOf(params, MAX_PARAMS_DEPTH);
    if (deep !== null) {
      throw new HubError(
        "INVALID_PARAMS",
        `params of ${item.method} nest deeper than ${MAX_PARAMS_DEPTH} levels at ${deep.slice(0, 200)}; flatten them`,
        {
          errors: [{ path: deep.slice(0, 200), message: `must not nest deeper than ${MAX_PARAMS_DEPTH} levels` }],
        },
      );
    }
    // Read before the schema fills in its defaults, and only for a hook (the timelines): a call pays for no more.
    const sent = this.#options.hook ? Object.keys(params) : NO_PARAMS;
    this.#options.validator.validate(item.method, params, values);
    const { maxTimeoutMs } = this.#options;
    if (typeof params.timeoutMs === "number" && params.timeoutMs > maxTimeoutMs) {
      throw new HubError("INVALID_PARAMS", `timeoutMs ${params.timeoutMs} is above MAX_TIMEOUT_MS (${maxTimeoutMs})`, {
        errors: [{ path: "/timeoutMs", message: `must be at most ${maxTimeoutMs}` }],
      });
    }
    return traceparent === undefined ? { params, sent } : { params, sent, traceparent };
  }
}

/** A request's params as its method's schema sees them, and the caller's W3C trace context if it gave one. */
interface Checked {
  params: Record<string, unknown>;
  /** The names of the params the caller gave, before the schema's defaults (for the router's hook). */
  sent: readonly string[];
  traceparent?: string;
}

/** Takes `traceparent` out of a call's params: a W3C trace context (version 00), else INVALID_PARAMS saying what it must be. */
function withoutTraceparent(given: Record<string, unknown>): { traceparent: string; params: Record<string, unknown> } {
  const { traceparent, ...params } = given;
  if (!isTraceparent(traceparent)) {
    const message = "must be a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lower case, ids not all zeros";
    throw new HubError("INVALID_PARAMS", `invalid params: /traceparent ${message}`, { errors: [{ path: "/traceparent", message }] });
  }
  return { traceparent, params };
}

/** What a call's span records as its outcome: "ok", or its error's name. */
function outcomeOf(response: JsonRpcResponse | null): string {
  if (response === null || !("error" in response) || !response.error) return "ok";
  return CODE_NAMES.get(response.error.code) ?? String(response.error.code);
}

/** The refusal of a call its token's capabilities do not cover, naming the capability it needs. */
function forbidden(method: string, capability: Need): { code: number; message: string; data: { capability: Need } } {
  return {
    code: ErrorCode.FORBIDDEN,
    message: `${method} needs the capability "${capability}", which this token does not have; the hub's operator grants capabilities in ACCESS_FILE`,
    data: { capability },
  };
}

/** The answer as it is, for a batch or an internal call. */
function owed(response: JsonRpcResponse | null): JsonRpcResponse | null {
  return response;
}

/** The answer as text, or null for a notification. */
function written(response: JsonRpcResponse | null): string | null {
  return response ? serialize(response) : null;
}

/** A HubError is the caller's answer; anything else is a bug, logged here and answered -32603 without its details. */
function wireErrorOf(id: JSONRPCID, error: unknown): JSONRPCErrorResponse {
  if (!(error instanceof HubError)) log.error("a method failed unexpectedly", { error: (error as Error)?.stack ?? String(error) });
  return { jsonrpc: "2.0", id, error: toWireError(error) };
}

/** The answer with `work`'s value, or its error, but never later than ANSWER_GRACE_MS after the budget ends (the budget's reason). */
function answerWithin(work: PromiseLike<unknown>, budget: Budget, id: JSONRPCID): Promise<JSONRPCResponse> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const unwatch = budget.onEnd(() => {
      timer = setTimeout(() => reject(budget.reason as Error), ANSWER_GRACE_MS);
    });
    const finish = (): void => {
      unwatch();
      clearTimeout(timer);
    };
    work.then(
      (value) => {
        finish();
        resolve({ jsonrpc: "2.0", id, result: value ?? null });
      },
      (error: unknown) => {
        finish();
        reject(error as Error);
      },
    );
  });
}

/** A response as text; one too big or too deep to write becomes an INTERNAL_ERROR for its id, so it is still answered. */
function serialize(response: JsonRpcResponse): string {
  try {
    return JSON.stringify(response);
  } catch (error) {
    const why = `the answer could not be written (${(error as Error).message}); ask for less, e.g. a smaller limit or maxSize`;
    return JSON.stringify(errorResponse(response.id as JsonRpcId, { code: ErrorCode.INTERNAL_ERROR, message: why }));
  }
}
