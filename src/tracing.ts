import type { IncomingHttpHeaders } from "node:http";
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";

/**
 * The hub's traces (OpenTelemetry): a span per call, children for the CDP commands, agent calls and cluster forwards
 * it makes for it. Off unless trace-export.ts gives a tracer (OTEL_EXPORTER_OTLP_ENDPOINT); while off, every helper
 * here costs one comparison and runs its function as it is.
 */
let tracer: Tracer | null = null;

/** Turns tracing on with the SDK's tracer, or off (null). */
export function useTracer(next: Tracer | null): void {
  tracer = next;
}

/** Whether spans are made at all. */
export function isTracing(): boolean {
  return tracer !== null;
}

// W3C trace context: version 00, a trace id and a parent span id (neither all zeros), flags.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/** Whether a value is a W3C `traceparent` this hub understands (version 00). */
export function isTraceparent(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const match = TRACEPARENT.exec(value);
  return match !== null && match[1] !== ZERO_TRACE && match[2] !== ZERO_SPAN;
}

/** The trace id of a W3C `traceparent` this hub understands (its 32 hex digits), else undefined. */
export function traceIdOf(traceparent: unknown): string | undefined {
  return isTraceparent(traceparent) ? traceparent.slice(3, 35) : undefined;
}

/** The context whose span a caller's `traceparent` names (a remote parent), or the root context for none. */
export function callerContext(traceparent: string | undefined): Context {
  if (traceparent === undefined) return ROOT_CONTEXT;
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return ROOT_CONTEXT;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  const sampled = (Number.parseInt(flags, 16) & TraceFlags.SAMPLED) !== 0;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });
}

/** The `traceparent` of the span running now (for a call forwarded to another instance), if any. */
export function currentTraceparent(): string | undefined {
  if (tracer === null) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`;
}

/** What a call's span says of it: never params, never page content. */
export interface CallSpan {
  method: string;
  target?: string;
  client?: string;
  /** Who called: the token's id, or the agent's client. */
  who?: string;
  /** The caller's W3C trace context: the span is its child; absent, a new trace. */
  parent?: string;
}

/**
 * Runs a call's handler inside its span (a child of the caller's `parent`, else a new trace); `outcome` reads the
 * answer's outcome ("ok" or the error's name) when it is done.
 */
export function traceCall<T>(about: CallSpan, run: () => PromiseLike<T>, outcome: (answer: T) => string): PromiseLike<T> {
  if (tracer === null) return run();
  const attributes: Attributes = { "rpc.system": "jsonrpc", "rpc.method": about.method };
  if (about.target !== undefined) attributes["tabwire.target"] = about.target;
  if (about.client !== undefined) attributes["tabwire.client"] = about.client;
  if (about.who !== undefined) attributes["tabwire.caller"] = about.who;
  const parent = callerContext(about.parent);
  const span = tracer.startSpan(about.method, { kind: SpanKind.SERVER, attributes }, parent);
  return context.with(trace.setSpan(parent, span), run).then(
    (answer) => {
      const result = outcome(answer);
      span.setAttribute("tabwire.outcome", result);
      if (result !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: result });
      span.end();
      return answer;
    },
    (error: unknown) => {
      endWithError(span, error);
      throw error;
    },
  );
}

/**
 * Runs something the hub does for the call running now (a CDP command, an agent call, a forward to another
 * instance) in a child span of it; nothing is made outside a call, or while tracing is off.
 */
export function traceChild<T>(name: string, attributes: Attributes, start: () => Promise<T>): Promise<T> {
  if (tracer === null) return start();
  const parent = context.active();
  if (trace.getSpan(parent) === undefined) return start();
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  const work = context.with(trace.setSpan(parent, span), start);
  work.then(
    () => span.end(),
    (error: unknown) => endWithError(span, error),
  );
  return work;
}

// The error's name only (a HubError's, such as TIMEOUT): its message may hold what a page said.
function endWithError(span: Span, error: unknown): void {
  const name = (error as { errorName?: unknown; name?: unknown } | null)?.errorName ?? (error as { name?: unknown } | null)?.name;
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof name === "string" ? name : "error" });
  span.end();
}

/**
 * The caller's trace context from an HTTP request's or WebSocket upgrade's `traceparent` header, ready to spread into
 * a ConnectionState: empty when there is none or it is not valid (W3C: an invalid one is ignored).
 */
export function callerTrace(headers: IncomingHttpHeaders): { traceparent?: string } {
  const header = headers.traceparent;
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  return isTraceparent(value) ? { traceparent: value } : {};
}
