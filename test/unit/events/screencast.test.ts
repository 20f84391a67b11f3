import { expect } from "chai";
import { Screencasts } from "../../../src/events/screencast.js";
import { InflightTable } from "../../../src/rpc/inflight.js";
import type { ConnectionState } from "../../../src/rpc/method.js";
import { FakeBrowser } from "../support/fake-browser.js";

interface Viewer {
  connection: ConnectionState;
  frames: string[];
  /** Resolves at the viewer's `count`th frame, within two seconds. */
  frame(count: number): Promise<void>;
  close(): void;
}

/** A connection as the router gives one, recording the frames it is sent; `backlog` is what its socket holds unsent. */
function viewer(backlog = 0): Viewer {
  const closed = new AbortController();
  const frames: string[] = [];
  let waiting: (() => void) | null = null;
  const connection: ConnectionState = {
    id: "c",
    scope: null,
    peer: "test",
    inflight: new InflightTable(),
    closed: closed.signal,
    notify: (method, params) => {
      if (method === "screencast.frame") frames.push((params as { data: string }).data);
      waiting?.();
      return true;
    },
    bufferedBytes: () => backlog,
  };
  const frame = (count: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`frame ${count} did not come within 2 s`)), 2_000);
      waiting = () => {
        if (frames.length < count) return;
        clearTimeout(timer);
        resolve();
      };
      waiting();
    });
  return { connection, frames, frame, close: () => closed.abort() };
}

const METADATA = { offsetTop: 0, pageScaleFactor: 1, deviceWidth: 800, deviceHeight: 600, scrollOffsetX: 0, scrollOffsetY: 0 };
const VIEW = { tabId: "T1", target: "alpha:T1", maxWidth: 640, maxHeight: 400, quality: 60 };

describe("Screencasts (fake Chrome: one screencast per tab, each viewer at its own pace, frames dropped not queued)", () => {
  let browser: FakeBrowser;
  let screencasts: Screencasts;
  const frame = (n: number): void => {
    const sessionId = browser.chrome.commands("Page.startScreencast")[0]?.sessionId;
    browser.chrome.event("Page.screencastFrame", { data: `frame-${n}`, metadata: METADATA, sessionId: n }, sessionId);
  };

  beforeEach(() => {
    browser = new FakeBrowser();
    screencasts = new Screencasts(browser.asBrowser());
    browser.open({ tabId: "T1", url: "about:blank", title: "" });
  });

  it("starts one Chrome screencast for two viewers, at the larger size, and skips a viewer whose socket is behind", async () => {
    const reading = viewer();
    const behind = viewer(1024 * 1024);
    await screencasts.subscribe(reading.connection, { ...VIEW, maxFps: 30 });
    await screencasts.subscribe(behind.connection, { ...VIEW, maxWidth: 1280, maxFps: 30 });
    await new Promise((resolve) => setImmediate(resolve));
    const starts = browser.chrome.commands("Page.startScreencast");
    expect(starts.at(-1)?.params, "restarted at the larger viewer's size").to.include({ format: "jpeg", maxWidth: 1280, maxHeight: 400 });
    expect(new Set(starts.map((command) => command.sessionId)).size).to.equal(1);
    expect(browser.chrome.commands("Target.attachToTarget"), "one session for the tab's views").to.have.length(1);
    frame(1);
    await reading.frame(1);
    expect(reading.frames).to.deep.equal(["frame-1"]);
    expect(behind.frames, "a frame for a socket that is behind is dropped").to.deep.equal([]);
  });

  it("sends a slow viewer the newest frame at its pace, never the ones in between", async () => {
    const slow = viewer();
    await screencasts.subscribe(slow.connection, { ...VIEW, maxFps: 2 });
    frame(1);
    frame(2);
    frame(3);
    await slow.frame(2);
    expect(slow.frames).to.deep.equal(["frame-1", "frame-3"]);
  });

  it("acknowledges every frame, at the fastest viewer's pace, and detaches its session with its last viewer", async () => {
    const one = viewer();
    const id = await screencasts.subscribe(one.connection, { ...VIEW, maxFps: 20 });
    const acks = (): unknown[] => browser.chrome.commands("Page.screencastFrameAck").map((command) => command.params?.sessionId);
    frame(1);
    frame(2);
    frame(3);
    expect(acks(), "the first at once, the next two held for the pace").to.deep.equal([1]);
    const until = Date.now() + 2_000;
    while (acks().length < 3 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(acks()).to.deep.equal([1, 2, 3]);
    expect(screencasts.unsubscribe(one.connection, id)).to.equal(true);
    expect(browser.chrome.commands("Target.detachFromTarget"), "its own session detached").to.have.length(1);
    expect(screencasts.unsubscribe(one.connection, id), "a stopped view is gone").to.equal(false);
  });

  it("gives a viewer that joins a still page the last frame at once, and ends views when their connection closes or the tab goes", async () => {
    const first = viewer();
    await screencasts.subscribe(first.connection, { ...VIEW, maxFps: 30 });
    frame(1);
    await first.frame(1);
    const late = viewer();
    await screencasts.subscribe(late.connection, { ...VIEW, maxFps: 30 });
    await late.frame(1);
    expect(late.frames).to.deep.equal(["frame-1"]);
    late.close();
    expect(screencasts.countOf(late.connection)).to.equal(0);
    browser.close("T1");
    expect(screencasts.countOf(first.connection)).to.equal(0);
  });
});
