import { expect } from "chai";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { closeTab, openTab, type OpenedTab } from "../support/tabs.js";

const ALPHA = "timeline-bounds-alpha";
const BETA = "timeline-bounds-beta";
const MiB = 1024 * 1024;
// The default byte bound; the entry bound is lifted so that the bytes are what binds.
const MAX_BYTES = 2 * MiB;
const ROUNDS = 5;
const MESSAGES_PER_ROUND = 20_000;
const REQUESTS_PER_ROUND = 2_000;
// What the hub's live heap may grow from the end of the first round to the end of the last, while the page goes on
// logging and fetching four times as much again: the timeline is full after the first.
const HEAP_MARGIN = 6 * MiB;
const ROUND_TIMEOUT_MS = 120_000;

interface Entry {
  seq: number;
  kind: string;
  summary: string;
  url?: string;
}
interface Timeline {
  entries: Entry[];
  next: number;
  total: number;
}

/** Reads a tab's timeline on from `since` until an entry matches, page after page; the `next` to go on from with it. */
async function waitForEntry(
  client: TestRpcClient,
  at: { target: string; since: number },
  match: (entry: Entry) => boolean,
): Promise<number> {
  const { target, since } = at;
  const deadline = Date.now() + ROUND_TIMEOUT_MS;
  for (let next = since; Date.now() < deadline;) {
    const page = await client.call<Timeline>("timeline.get", { target, since: next, limit: 1_000 });
    if (page.entries.some(match)) return page.next;
    next = page.next;
  }
  throw new Error(`no matching timeline entry of ${target} within ${ROUND_TIMEOUT_MS} ms`);
}

/** The page's flood of one round: console messages, then requests 50 at a time, then a last message. */
function floodExpression(round: number): string {
  return `(async () => {
    for (let i = 0; i < ${MESSAGES_PER_ROUND}; i++) console.log("flood ${round} " + i + " " + "x".repeat(100));
    await Promise.all(Array.from({ length: 50 }, async (_, worker) => {
      for (let i = worker; i < ${REQUESTS_PER_ROUND}; i += 50) await fetch("/mark?name=flood&round=${round}&i=" + i);
    }));
    console.log("round ${round} done");
    return ${REQUESTS_PER_ROUND};
  })()`;
}

/** "p50 X ms, p99 Y ms" of call durations. */
function spread(durations: number[]): string {
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (share: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0).toFixed(1);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
}

describe("timeline bounds: a tab making 100,000 console messages and 10,000 requests (hub in a child process, Chromium)", function () {
  this.timeout(ROUNDS * ROUND_TIMEOUT_MS);
  let hub: ChildHub;
  let fixtures: FixtureServer;
  let alpha: TestRpcClient;
  let beta: TestRpcClient;
  let flooding: OpenedTab;
  let quiet: OpenedTab;

  before(async () => {
    fixtures = await startFixtureServer();
    hub = await startChildHub(
      {
        HUB_TOKENS: `${ALPHA}:alpha,${BETA}:beta`,
        AUTH_KEY: "timeline-bounds-agent-key",
        TIMELINE_MAX_ENTRIES: "1000000",
        TIMELINE_MAX_BYTES: String(MAX_BYTES),
      },
      { inspect: true },
    );
    alpha = await TestRpcClient.connect(hub.url, { token: ALPHA });
    beta = await TestRpcClient.connect(hub.url, { token: BETA });
    flooding = await openTab(alpha, fixtures.url("timeline-login.html"), { clientId: "alpha" });
    quiet = await openTab(beta, "about:blank", { clientId: "beta" });
  });
  after(async () => {
    if (flooding) await closeTab(alpha, flooding.target);
    if (quiet) await closeTab(beta, quiet.target);
    await Promise.all([alpha?.close(), beta?.close()]);
    await hub?.stop();
    await fixtures?.close();
  });

  it("keeps the timeline within its byte bound with the newest kept, the hub's heap flat, and another client's calls answered", async () => {
    const { target } = flooding;
    let since = 0;
    let heapAfterFirst = 0;
    // beta's calls on a quiet hub first, for the figure printed beside those made during the flood.
    const quietCalls: number[] = [];
    for (let call = 0; call < 200; call += 1) {
      const started = performance.now();
      await beta.call("evaluate", { target: quiet.target, expression: "1" });
      quietCalls.push(performance.now() - started);
    }
    const betaCalls: number[] = [];
    let flooded = false;
    // beta's own work, all along: each call must be answered with its value.
    const betaWork = (async () => {
      for (let call = 0; !flooded; call += 1) {
        const started = performance.now();
        const answer = await beta.call<{ value: number }>("evaluate", { target: quiet.target, expression: `${call} + 1` });
        betaCalls.push(performance.now() - started);
        expect(answer.value).to.equal(call + 1);
      }
    })();
    try {
      for (let round = 1; round <= ROUNDS; round += 1) {
        const answer = await alpha.call<{ value: number }>("evaluate", {
          target,
          expression: floodExpression(round),
          awaitPromise: true,
          captureConsole: false,
          timeoutMs: ROUND_TIMEOUT_MS,
        });
        expect(answer.value).to.equal(REQUESTS_PER_ROUND);
        since = await waitForEntry(alpha, { target, since }, (entry) => entry.summary === `round ${round} done`);
        if (round === 1) heapAfterFirst = await hub.liveHeapBytes();
      }
    } finally {
      flooded = true;
      await betaWork;
    }
    const heapAfterLast = await hub.liveHeapBytes();
    const exported = await alpha.call<{ bytes: number; entries: number; content: string }>("timeline.export", { target });
    process.stdout.write(
      `      (${ROUNDS * MESSAGES_PER_ROUND} messages and ${ROUNDS * REQUESTS_PER_ROUND} requests: timeline ${exported.entries} entries, ` +
        `${(exported.bytes / MiB).toFixed(2)} MiB exported; hub live heap ${(heapAfterFirst / MiB).toFixed(1)} MiB after the first round, ` +
        `${(heapAfterLast / MiB).toFixed(1)} MiB after the last; beta's evaluates ${spread(quietCalls)} before, ` +
        `${spread(betaCalls)} during)\n`,
    );
    expect(exported.bytes).to.be.at.most(MAX_BYTES);
    const lines = exported.content.split("\n").filter((line) => line !== "");
    const entries = lines.slice(1).map((line) => JSON.parse(line) as Entry);
    // The newest are kept: the last round's last request and its last message; the first round's are gone.
    const lastRequest = `round=${ROUNDS}&i=`;
    expect(entries.filter((entry) => entry.kind === "network" && entry.url?.includes(lastRequest))).to.not.be.empty;
    expect(entries.some((entry) => entry.summary === `round ${ROUNDS} done`)).to.equal(true);
    expect(entries.some((entry) => entry.summary.startsWith("flood 1 "))).to.equal(false);
    expect(heapAfterLast - heapAfterFirst).to.be.below(HEAP_MARGIN);
    // beta worked throughout, and its tab's timeline has its own calls only.
    expect(betaCalls.length).to.be.above(ROUNDS);
    const betaTimeline = await beta.call<Timeline>("timeline.get", { target: quiet.target, limit: 1_000 });
    expect(betaTimeline.entries.some((entry) => entry.summary.includes("flood"))).to.equal(false);
  });
});
