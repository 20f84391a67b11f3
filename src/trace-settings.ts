import { ConfigError } from "./config-error.js";

/** Where the hub's traces go (OpenTelemetry, OTLP over HTTP): on only when an endpoint is set. */
export interface TraceSettings {
  /** The traces endpoint, `/v1/traces` included. */
  url: string;
  protocol: "http/json" | "http/protobuf";
  serviceName: string;
}

const PROTOCOLS = ["http/json", "http/protobuf"] as const;

/** The standard OpenTelemetry variables the hub reads itself (config.ts reads them from the environment). */
export interface OtelVariables {
  OTEL_SDK_DISABLED?: string;
  OTEL_TRACES_EXPORTER?: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_PROTOCOL?: string;
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string;
  OTEL_SERVICE_NAME?: string;
}

/**
 * Where traces go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as it is) or OTEL_EXPORTER_OTLP_ENDPOINT (plus `/v1/traces`),
 * OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL, OTEL_SERVICE_NAME, and OTEL_SDK_DISABLED / OTEL_TRACES_EXPORTER=none to turn
 * tracing off. The SDK reads the others (headers, timeouts, OTEL_BSP_*, OTEL_RESOURCE_ATTRIBUTES) itself. Null: no
 * endpoint, no traces.
 */
export function traceSettings(env: OtelVariables): TraceSettings | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return null;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === "none") return null;
  if (exporter !== undefined && exporter !== "" && exporter !== "otlp") {
    throw new ConfigError("OTEL_TRACES_EXPORTER", `the hub exports traces with otlp only (or none), not "${exporter}"`);
  }
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = tracesEndpoint ? tracesEndpoint : endpoint ? `${endpoint.replace(/\/+$/, "")}/v1/traces` : null;
  if (url === null) return null;
  checkedUrl(url, tracesEndpoint ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT");
  const protocolVariable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = (env[protocolVariable]?.trim() || "http/protobuf") as TraceSettings["protocol"];
  if (!PROTOCOLS.includes(protocol)) {
    throw new ConfigError(protocolVariable, `the hub sends OTLP over HTTP: http/protobuf (the default) or http/json, not "${protocol}"`);
  }
  return { url, protocol, serviceName: env.OTEL_SERVICE_NAME?.trim() || "tabwire" };
}

function checkedUrl(url: string, variable: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(variable, "expected an http:// or https:// address");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new ConfigError(variable, "expected an http:// or https:// address");
}
