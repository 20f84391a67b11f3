import http from "node:http";
import type { AddressInfo } from "node:net";

/** A span as the receiver decoded it, whichever encoding the exporter used. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The resource's service.name and service.instance.id, as the hub named itself. */
  service: string;
}

/** A test OTLP/HTTP traces receiver: takes what an exporter POSTs to /v1/traces, in http/json or http/protobuf. */
export interface OtlpReceiver {
  /** The endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** The content types of the requests it got. */
  contentTypes: string[];
  /** Every request body as it came, for searching what must never be in a trace. */
  rawBodies: Buffer[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1, port 0. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: Omit<OtlpReceiver, "url" | "close"> = { spans: [], contentTypes: [], rawBodies: [] };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const type = String(request.headers["content-type"] ?? "");
      received.contentTypes.push(type);
      received.rawBodies.push(body);
      if (request.url !== "/v1/traces") return void response.writeHead(404).end();
      const spans = type.includes("json") ? fromJson(JSON.parse(body.toString("utf8"))) : fromProtobuf(body);
      received.spans.push(...spans);
      response
        .writeHead(200, { "content-type": type.includes("json") ? "application/json" : "application/x-protobuf" })
        .end(type.includes("json") ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ...received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Json = Record<string, unknown>;

// OTLP/JSON: ids are hex strings; attribute values are {stringValue | intValue | boolValue | doubleValue}.
function fromJson(body: Json): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of (body.resourceSpans as Json[] | undefined) ?? []) {
    const service = serviceOf(attributesOfJson((resourceSpans.resource as Json | undefined)?.attributes));
    for (const scopeSpans of (resourceSpans.scopeSpans as Json[] | undefined) ?? []) {
      for (const span of (scopeSpans.spans as Json[] | undefined) ?? []) {
        spans.push({
          traceId: hexOf(span.traceId),
          spanId: hexOf(span.spanId),
          parentSpanId: hexOf(span.parentSpanId),
          name: String(span.name),
          attributes: attributesOfJson(span.attributes),
          statusCode: Number((span.status as Json | undefined)?.code ?? 0),
          service,
        });
      }
    }
  }
  return spans;
}

function attributesOfJson(list: unknown): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of (list as { key: string; value: Json }[] | undefined) ?? []) {
    const raw = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
    attributes[key] = typeof raw === "string" || typeof raw === "number" || typeof raw === "boolean" ? raw : String(raw);
  }
  return attributes;
}

function hexOf(id: unknown): string {
  if (typeof id !== "string" || id === "") return "";
  return /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, "base64").toString("hex");
}

function serviceOf(attributes: Record<string, string | number | boolean>): string {
  return `${String(attributes["service.name"] ?? "")}`;
}

/** One protobuf field: its number and its value (a varint, or the bytes of a length-delimited field). */
interface Field {
  number: number;
  varint?: bigint;
  bytes?: Buffer;
}

// The protobuf wire format, just enough for ExportTraceServiceRequest (opentelemetry/proto/trace/v1/trace.proto).
function fieldsOf(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const number = key >> 3;
    switch (key & 7) {
      case 0:
        fields.push({ number, varint: varint() });
        break;
      case 1:
        at += 8;
        fields.push({ number });
        break;
      case 2: {
        const length = Number(varint());
        fields.push({ number, bytes: buffer.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        at += 4;
        fields.push({ number });
        break;
      default:
        throw new Error(`protobuf wire type ${key & 7} is not one OTLP uses`);
    }
  }
  return fields;
}

const messages = (fields: Field[], number: number): Buffer[] =>
  fields.filter((field) => field.number === number && field.bytes).map((field) => field.bytes as Buffer);

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of messages(fieldsOf(body), 1)) {
    const resourceFields = fieldsOf(resourceSpans);
    const resource = messages(resourceFields, 1)[0];
    const service = serviceOf(resource ? attributesOfProtobuf(messages(fieldsOf(resource), 1)) : {});
    for (const scopeSpans of messages(resourceFields, 2)) {
      for (const span of messages(fieldsOf(scopeSpans), 2)) {
        const fields = fieldsOf(span);
        const status = messages(fields, 15)[0];
        spans.push({
          traceId: messages(fields, 1)[0]?.toString("hex") ?? "",
          spanId: messages(fields, 2)[0]?.toString("hex") ?? "",
          parentSpanId: messages(fields, 4)[0]?.toString("hex") ?? "",
          name: messages(fields, 5)[0]?.toString("utf8") ?? "",
          attributes: attributesOfProtobuf(messages(fields, 9)),
          statusCode: status ? Number(fieldsOf(status).find((field) => field.number === 3)?.varint ?? 0n) : 0,
          service,
        });
      }
    }
  }
  return spans;
}

// KeyValue {1: key, 2: AnyValue {1: string, 2: bool, 3: int, 4: double}}.
function attributesOfProtobuf(keyValues: Buffer[]): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const keyValue of keyValues) {
    const fields = fieldsOf(keyValue);
    const key = messages(fields, 1)[0]?.toString("utf8") ?? "";
    const value = fieldsOf(messages(fields, 2)[0] ?? Buffer.alloc(0))[0];
    if (!value) continue;
    if (value.number === 1) attributes[key] = value.bytes?.toString("utf8") ?? "";
    else if (value.number === 2) attributes[key] = value.varint === 1n;
    else if (value.number === 3) attributes[key] = Number(value.varint ?? 0n);
  }
  return attributes;
}
