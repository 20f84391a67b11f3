import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { log } from "./log.js";
import type { TraceSettings } from "./trace-settings.js";
import { useTracer } from "./tracing.js";
import { HUB_VERSION } from "./version.js";

/** The hub's trace pipeline while it runs: flushed and closed when the hub stops. */
export interface TraceExport {
  stop(): Promise<void>;
}

/**
 * Starts exporting the hub's spans through the official OpenTelemetry SDK: a batch processor (OTEL_BSP_*) in front of
 * the OTLP/HTTP exporter of the protocol asked for, the service named by OTEL_SERVICE_NAME (and
 * OTEL_RESOURCE_ATTRIBUTES), and the active span carried across awaits by AsyncLocalStorage. hub.ts imports this
 * file only when an endpoint is set: without one nothing of the SDK is loaded, and the hub's calls make no spans.
 */
export function startTraceExport(settings: TraceSettings): TraceExport {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const exporter =
    settings.protocol === "http/json" ? new JsonExporter({ url: settings.url }) : new ProtobufExporter({ url: settings.url });
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ "service.name": settings.serviceName, "service.version": HUB_VERSION }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  useTracer(provider.getTracer("tabwire", HUB_VERSION));
  const where = new URL(settings.url);
  // Origin and path only: a user or password in the address stays out of the log.
  log.info("exporting traces", { url: `${where.origin}${where.pathname}`, protocol: settings.protocol });
  return {
    stop: async () => {
      useTracer(null);
      await provider.shutdown().catch((error: Error) => log.warn("cannot send the last traces", { error: error.message }));
      manager.disable();
      context.disable();
    },
  };
}
