import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import WebSocket from "ws";
import { TestAgent } from "../fixtures/wire-agent.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { startClusterHubs, stopHub, type ClusterHub } from "../support/cluster-hub.js";
import { eventually } from "../support/eventually.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { rpcFailure, TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";

const ALPHA = "traces-alpha-token";
const BETA = "traces-beta-token";
const AGENT_KEY = "traces-agent-key";
const BETA_AGENT_KEY = "traces-beta-agent-key";
const SECRET_TEXT = "page-secret-7c1f";

const hex = (bytes: number): string => randomBytes(bytes).toString("hex");
const traceparentOf = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;

/** The hub's environment for a receiver: OTLP over HTTP, spans sent every 50 ms. */
function tracedEnv(receiver: OtlpReceiver, protocol: "http/json" | "http/protobuf"): Record<string, string> {
  return {
    HUB_TOKENS: `${ALPHA}:alpha,${BETA}:beta`,
    AGENT_KEYS: `${AGENT_KEY}:alpha,${BETA_AGENT_KEY}:beta`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_SERVICE_NAME: "tabwire-under-test",
  };
}

/** The span named `name` in trace `traceId`, once the receiver has it. */
async function spanOf(receiver: OtlpReceiver, traceId: string, name: string): Promise<ReceivedSpan> {
  let found: ReceivedSpan | undefined;
  await eventually(
    () => Promise.resolve((found = receiver.spans.find((span) => span.traceId === traceId && span.name === name)) !== undefined),
    EVENT_BUDGET_MS,
    `the span ${name} of trace ${traceId}`,
  );
  return found as ReceivedSpan;
}

/** The spans whose parent is `parent`. */
function childrenOf(receiver: OtlpReceiver, parent: ReceivedSpan): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);
}

describe("OpenTelemetry traces: a span per call, children for its CDP commands, the caller's trace as parent (real hub, Chromium, a test OTLP receiver)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let receiver: OtlpReceiver;
  let hub: ChildHub;
  let alpha: TestRpcClient;
  let target: string;

  before(async () => {
    receiver = await startOtlpReceiver();
    hub = await startChildHub(tracedEnv(receiver, "http/json"));
    alpha = await TestRpcClient.connect(hub.url, { token: ALPHA });
    ({ target } = await alpha.call<{ target: string }>("tabs.open", { clientId: "alpha", url: "data:text/html,<title>traced</title>" }));
  });
  after(async () => {
    await alpha?.close();
    await hub?.stop();
    await receiver?.close();
  });

  it("a call with a traceparent param is a child of the caller's span, names its method, target and outcome, and has a span per CDP command; no params or page content", async () => {
    const [traceId, callerSpan] = [hex(16), hex(8)];
    const answer = await alpha.call<{ value: string }>("evaluate", {
      target,
      expression: `document.title + ${JSON.stringify(SECRET_TEXT)}`,
      traceparent: traceparentOf(traceId, callerSpan),
    });
    expect(answer.value).to.equal(`traced${SECRET_TEXT}`);
    const span = await spanOf(receiver, traceId, "evaluate");
    expect(span.parentSpanId).to.equal(callerSpan);
    expect(span.service).to.equal("tabwire-under-test");
    expect(span.attributes).to.include({ "rpc.method": "evaluate", "tabwire.target": target, "tabwire.outcome": "ok" });
    expect(span.statusCode).to.not.equal(2);
    await eventually(
      () => Promise.resolve(childrenOf(receiver, span).some((child) => child.name === "cdp Runtime.evaluate")),
      EVENT_BUDGET_MS,
      "the CDP child span",
    );
    expect(childrenOf(receiver, span).every((child) => child.name.startsWith("cdp "))).to.equal(true);
    const everything = Buffer.concat(receiver.rawBodies).toString("utf8");
    expect(everything, "what the hub exported").to.not.include(SECRET_TEXT);
    expect(everything).to.not.include(ALPHA);
  });

  it("a failed call's span says its error by name; a malformed traceparent param is INVALID_PARAMS, with what it must be", async () => {
    const traceId = hex(16);
    const failed = await rpcFailure(
      alpha.call("evaluate", { target: "alpha:no-such-tab", expression: "1", traceparent: traceparentOf(traceId, hex(8)) }),
    );
    expect(failed.code).to.equal(-32002);
    const span = await spanOf(receiver, traceId, "evaluate");
    expect(span.attributes).to.include({ "tabwire.outcome": "TARGET_NOT_FOUND" });
    expect(span.statusCode).to.equal(2);

    for (const bad of ["00-xyz", `01-${hex(16)}-${hex(8)}-01`, `00-${"0".repeat(32)}-${hex(8)}-01`, 42]) {
      const refused = await rpcFailure(alpha.call("tabs.list", { traceparent: bad }));
      expect(refused.code, JSON.stringify(bad)).to.equal(-32602);
      expect(refused.message).to.include("/traceparent");
    }
  });

  it("the traceparent header of the WebSocket upgrade parents the connection's calls, and an HTTP request's header its call", async () => {
    const [traceId, callerSpan] = [hex(16), hex(8)];
    const headers = { authorization: `Bearer ${ALPHA}`, traceparent: traceparentOf(traceId, callerSpan) };
    const ws = new WebSocket(`${hub.url}/rpc`, { headers });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const answered = new Promise((resolve) => ws.once("message", resolve));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tabs.list", params: {} }));
    await answered;
    ws.close();
    expect((await spanOf(receiver, traceId, "tabs.list")).parentSpanId).to.equal(callerSpan);

    const [httpTrace, httpSpan] = [hex(16), hex(8)];
    const response = await fetch(`${hub.url.replace(/^ws/, "http")}/tabs/open`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALPHA}`, "content-type": "application/json", traceparent: traceparentOf(httpTrace, httpSpan) },
      body: JSON.stringify({ clientId: "alpha", url: "about:blank" }),
    });
    expect(response.status).to.equal(200);
    const opened = (await response.json()) as { compositeClientId: string };
    expect((await spanOf(receiver, httpTrace, "tabs.open")).parentSpanId).to.equal(httpSpan);
    await alpha.call("tabs.close", { target: opened.compositeClientId });
  });

  it("an MCP tool call's _meta.traceparent, else its HTTP request's traceparent header, parents the call's span", async () => {
    const [headerTrace, headerSpan] = [hex(16), hex(8)];
    const client = new Client({ name: "tabwire-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url.replace(/^ws/, "http")}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${ALPHA}`, traceparent: traceparentOf(headerTrace, headerSpan) } },
    });
    await client.connect(transport);
    try {
      const [metaTrace, metaSpan] = [hex(16), hex(8)];
      const fromMeta = await client.callTool({
        name: "tabs_list",
        arguments: {},
        _meta: { traceparent: traceparentOf(metaTrace, metaSpan) },
      });
      expect(fromMeta.isError, JSON.stringify(fromMeta)).to.not.equal(true);
      expect((await spanOf(receiver, metaTrace, "tabs.list")).parentSpanId).to.equal(metaSpan);
      const fromHeader = await client.callTool({ name: "tabs_list", arguments: {} });
      expect(fromHeader.isError, JSON.stringify(fromHeader)).to.not.equal(true);
      expect((await spanOf(receiver, headerTrace, "tabs.list")).parentSpanId).to.equal(headerSpan);
    } finally {
      await client.close();
    }
  });

  it("audit.log's line of a call names the caller's trace id: the call's traceparent param, else its connection's header", async () => {
    const paramTrace = hex(16);
    await alpha.call("evaluate", { target, expression: "1", traceparent: traceparentOf(paramTrace, hex(8)) });
    const headerTrace = hex(16);
    const headers = { authorization: `Bearer ${ALPHA}`, traceparent: traceparentOf(headerTrace, hex(8)) };
    const ws = new WebSocket(`${hub.url}/rpc`, { headers });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const answered = new Promise((resolve) => ws.once("message", resolve));
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evaluate", params: { target, expression: "2" } }));
    await answered;
    ws.close();
    const auditLines = async (): Promise<Record<string, unknown>[]> =>
      (await readFile(path.join(hub.logDir, "audit.log"), "utf8").catch(() => ""))
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const lineOf = async (traceId: string): Promise<Record<string, unknown> | undefined> =>
      (await auditLines()).find((line) => line.traceId === traceId);
    await eventually(
      async () => (await lineOf(paramTrace)) !== undefined && (await lineOf(headerTrace)) !== undefined,
      EVENT_BUDGET_MS,
      "the audit lines",
    );
    expect(await lineOf(paramTrace)).to.include({ method: "evaluate", target, outcome: "ok" });
    expect(await lineOf(headerTrace)).to.include({ method: "evaluate", target, outcome: "ok" });
  });
});

describe("traces and who may start them (real hub, Chromium, a test OTLP receiver)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let receiver: OtlpReceiver;
  let hub: ChildHub;

  before(async () => {
    receiver = await startOtlpReceiver();
    hub = await startChildHub(tracedEnv(receiver, "http/json"));
  });
  after(async () => {
    await hub?.stop();
    await receiver?.close();
  });

  it("a stranger, a scoped token of another client and an agent with another key put nothing of alpha's tab into their traces", async () => {
    const alpha = await TestRpcClient.connect(hub.url, { token: ALPHA });
    const beta = await TestRpcClient.connect(hub.url, { token: BETA });
    try {
      const { target } = await alpha.call<{ target: string }>("tabs.open", {
        clientId: "alpha",
        url: "data:text/html,<title>mine</title>",
      });
      const stranger = hex(16);
      const strangerHeaders = { traceparent: traceparentOf(stranger, hex(8)) };
      const upgrade = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`${hub.url}/rpc`, { headers: strangerHeaders });
        ws.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
        ws.once("open", () => resolve(101));
        ws.once("error", () => undefined);
      });
      expect(upgrade, "a stranger's upgrade").to.equal(401);
      const http = await fetch(`${hub.url.replace(/^ws/, "http")}/page/execute`, {
        method: "POST",
        headers: { ...strangerHeaders, "content-type": "application/json" },
        body: JSON.stringify({ clientId: "alpha", tabId: target.split(":")[1], script: "1" }),
      });
      expect(http.status, "a stranger's HTTP call").to.equal(401);

      const betaTrace = hex(16);
      const refused = await rpcFailure(
        beta.call("evaluate", { target, expression: "document.title", traceparent: traceparentOf(betaTrace, hex(8)) }),
      );
      expect(refused.code).to.be.oneOf([-32002, -32007]);
      const wrongKey = await TestAgent.connect({ url: `${hub.url}/agent?token=${BETA_AGENT_KEY}`, clientId: target });
      expect((await wrongKey.registration()).status).to.equal("rejected");
      await wrongKey.close();

      // A later span of alpha's is exported after every one above: then the receiver has all there is.
      const marker = hex(16);
      await alpha.call("tabs.list", { traceparent: traceparentOf(marker, hex(8)) });
      await spanOf(receiver, marker, "tabs.list");
      expect(
        receiver.spans.filter((span) => span.traceId === stranger),
        "spans in the stranger's trace",
      ).to.deep.equal([]);
      const betaSpan = await spanOf(receiver, betaTrace, "evaluate");
      expect(betaSpan.attributes["tabwire.outcome"]).to.be.oneOf(["TARGET_NOT_FOUND", "FORBIDDEN"]);
      expect(childrenOf(receiver, betaSpan), "what beta's call did to alpha's tab").to.deep.equal([]);
      await alpha.call("tabs.close", { target });
    } finally {
      await Promise.all([alpha.close(), beta.close()]);
    }
  });
});

describe("traces across a cluster: a call forwarded to the instance that owns its tab stays in the caller's trace (real hubs, Redis)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  let receiver: OtlpReceiver;
  let redis: RedisServer | undefined;
  let hubs: ClusterHub[] = [];

  before(async function () {
    this.timeout(120_000);
    requireChromium();
    receiver = await startOtlpReceiver();
    redis = await startRedisServer();
    hubs = await startClusterHubs(["a", "b"], redis.url, tracedEnv(receiver, "http/json"));
  });
  after(async function () {
    this.timeout(60_000);
    await Promise.all(hubs.map(stopHub));
    await redis?.stop();
    await receiver?.close();
  });

  it("B's span forwards to A, whose span of the same call is the forward's child, with A's CDP spans under it", async () => {
    const [a, b] = hubs as [ClusterHub, ClusterHub];
    const onA = await TestRpcClient.connect(a.url, { token: ALPHA });
    const onB = await TestRpcClient.connect(b.url, { token: ALPHA });
    try {
      const { target } = await onA.call<{ target: string }>("tabs.open", { clientId: "alpha", url: "data:text/html,<title>a</title>" });
      const [traceId, callerSpan] = [hex(16), hex(8)];
      const answer = await onB.call<{ value: string }>("evaluate", {
        target,
        expression: "document.title",
        traceparent: traceparentOf(traceId, callerSpan),
      });
      expect(answer.value).to.equal("a");
      await eventually(
        () => Promise.resolve(receiver.spans.filter((span) => span.traceId === traceId && span.name === "evaluate").length === 2),
        EVENT_BUDGET_MS,
        "the evaluate spans of both instances",
      );
      const onBSpan = receiver.spans.find(
        (span) => span.traceId === traceId && span.name === "evaluate" && span.parentSpanId === callerSpan,
      );
      expect(onBSpan, "B's span, the caller's child").to.not.equal(undefined);
      const forward = childrenOf(receiver, onBSpan as ReceivedSpan).find((span) => span.name === "forward evaluate");
      expect(forward, "B's forward span").to.not.equal(undefined);
      const onASpan = childrenOf(receiver, forward as ReceivedSpan).find((span) => span.name === "evaluate");
      expect(onASpan, "A's span, the forward's child").to.not.equal(undefined);
      await eventually(
        () => Promise.resolve(childrenOf(receiver, onASpan as ReceivedSpan).some((span) => span.name === "cdp Runtime.evaluate")),
        EVENT_BUDGET_MS,
        "A's CDP span",
      );
      await onA.call("tabs.close", { target });
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  });
});

describe("traces in http/protobuf, and none when the SDK is off (real hub, Chromium, a test OTLP receiver)", function () {
  this.timeout(4 * EVENT_BUDGET_MS);
  const receivers: OtlpReceiver[] = [];
  const hubs: ChildHub[] = [];
  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.stop()));
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  it("http/protobuf: the receiver decodes the same span, with its parent", async () => {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const hub = await startChildHub(tracedEnv(receiver, "http/protobuf"));
    hubs.push(hub);
    const client = await TestRpcClient.connect(hub.url, { token: ALPHA });
    const [traceId, callerSpan] = [hex(16), hex(8)];
    await client.call("tabs.list", { traceparent: traceparentOf(traceId, callerSpan) });
    await client.close();
    const span = await spanOf(receiver, traceId, "tabs.list");
    expect(span.parentSpanId).to.equal(callerSpan);
    expect(span.attributes).to.include({ "rpc.method": "tabs.list", "tabwire.outcome": "ok" });
    expect(receiver.contentTypes.every((type) => type.includes("protobuf"))).to.equal(true);
  });

  it("OTEL_SDK_DISABLED=true with an endpoint set: calls are served, and nothing reaches the receiver, even at the stop's flush", async () => {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const hub = await startChildHub({ ...tracedEnv(receiver, "http/json"), OTEL_SDK_DISABLED: "true" });
    const client = await TestRpcClient.connect(hub.url, { token: ALPHA });
    await client.call("tabs.list", { traceparent: traceparentOf(hex(16), hex(8)) });
    await client.close();
    await hub.stop();
    expect(receiver.rawBodies).to.deep.equal([]);
  });
});
