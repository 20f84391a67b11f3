import { expect } from "chai";
import { Budget } from "../../../src/budget.js";
import type { TabSession } from "../../../src/cdp/tab-session.js";
import { HubError } from "../../../src/errors.js";
import { captureScreenshot, type ScreenshotOptions } from "../../../src/runtime/capture-screenshot.js";

/** The first bytes of a PNG of that size, as base64: enough to read its size. */
function pngHeader(width: number, height: number): string {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write("IHDR", 12, "latin1");
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes.toString("base64");
}

/** A tab (shown unless told) of an 800x600 viewport on a page 100,000 CSS pixels tall; records every command but the screencast's and the visibility check's. */
function fakeTab(visibility = "visible"): {
  tab: TabSession;
  sent: { method: string; params: Record<string, unknown> }[];
  screencast: string[];
} {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  const screencast: string[] = [];
  const answers: Record<string, unknown> = {
    "Page.captureScreenshot": { data: pngHeader(800, 600) },
    "Runtime.evaluate": { result: { value: { viewport: { x: 0, y: 0, width: 800, height: 600 }, devicePixelRatio: 1, element: null } } },
    "Page.getLayoutMetrics": { cssContentSize: { x: 0, y: 0, width: 800, height: 100_000 } },
  };
  const send = (method: string, params: Record<string, unknown> = {}): Promise<unknown> => {
    // The check of whether the tab is shown runs in the hub's world (a contextId); the page is shown.
    if (method === "Page.createIsolatedWorld") return Promise.resolve({ executionContextId: 7 });
    if (method === "Runtime.evaluate" && params.contextId === 7) return Promise.resolve({ result: { value: visibility } });
    if (method.includes("Screencast")) screencast.push(method);
    else sent.push({ method, params });
    return Promise.resolve(answers[method] ?? {});
  };
  return { tab: { send, cdp: { closedBy: null } } as unknown as TabSession, sent, screencast };
}

describe("captureScreenshot", () => {
  let budget: Budget;
  beforeEach(() => (budget = new Budget(5_000)));
  afterEach(() => budget.dispose());

  it("takes the plain viewport in one Page.captureScreenshot with no clip, its size read from the image", async () => {
    const { tab, sent } = fakeTab();
    const options: ScreenshotOptions = { format: "png", area: { kind: "viewport" }, maxPixels: 32 * 2 ** 20 };
    const shot = await captureScreenshot(tab, options, budget);
    expect(sent).to.deep.equal([{ method: "Page.captureScreenshot", params: { format: "png", fromSurface: true } }]);
    expect(shot).to.include({ width: 800, height: 600, mimeType: "image/png" });
  });

  it("keeps the viewport image when it fits maxWidth x maxHeight, and scales it only when it is larger", async () => {
    const fits = fakeTab();
    const whole = await captureScreenshot(
      fits.tab,
      { format: "png", area: { kind: "viewport" }, maxWidth: 1568, maxHeight: 1568, maxPixels: 32 * 2 ** 20 },
      budget,
    );
    expect(fits.sent.map((command) => command.method)).to.deep.equal(["Page.captureScreenshot"]);
    expect(whole).to.include({ width: 800, height: 600 });

    const larger = fakeTab();
    const fitted = await captureScreenshot(
      larger.tab,
      { format: "png", area: { kind: "viewport" }, maxWidth: 400, maxPixels: 32 * 2 ** 20 },
      budget,
    );
    expect(larger.sent.map((command) => command.method)).to.deep.equal([
      "Page.captureScreenshot",
      "Runtime.evaluate",
      "Page.captureScreenshot",
    ]);
    expect(larger.sent[2]?.params.clip).to.deep.equal({ x: 0, y: 0, width: 800, height: 600, scale: 0.5 });
    expect(fitted).to.include({ width: 400, height: 300 });
  });

  it("asks Chrome for its faster encoding with optimizeForSpeed, and only then", async () => {
    const fast = fakeTab();
    await captureScreenshot(
      fast.tab,
      { format: "png", area: { kind: "viewport" }, optimizeForSpeed: true, maxPixels: 32 * 2 ** 20 },
      budget,
    );
    expect(fast.sent[0]?.params).to.deep.equal({ format: "png", optimizeForSpeed: true, fromSurface: true });
    const plain = fakeTab();
    await captureScreenshot(
      plain.tab,
      { format: "png", area: { kind: "viewport" }, optimizeForSpeed: false, maxPixels: 32 * 2 ** 20 },
      budget,
    );
    expect(plain.sent[0]?.params).to.not.have.property("optimizeForSpeed");
  });

  it("keeps a hidden tab rendering with a screencast while it captures, and starts none for a tab in view", async () => {
    const shown = fakeTab();
    await captureScreenshot(shown.tab, { format: "png", area: { kind: "viewport" }, maxPixels: 32 * 2 ** 20 }, budget);
    expect(shown.screencast).to.deep.equal([]);
    const hidden = fakeTab("hidden");
    await captureScreenshot(hidden.tab, { format: "png", area: { kind: "viewport" }, maxPixels: 32 * 2 ** 20 }, budget);
    expect(hidden.screencast).to.deep.equal(["Page.startScreencast", "Page.stopScreencast"]);
  });

  it("measures first when the viewport is scaled, and clips", async () => {
    const { tab, sent } = fakeTab();
    const shot = await captureScreenshot(tab, { format: "png", area: { kind: "viewport" }, scale: 0.5, maxPixels: 32 * 2 ** 20 }, budget);
    expect(sent.map((command) => command.method)).to.deep.equal(["Runtime.evaluate", "Page.captureScreenshot"]);
    expect(sent[1]?.params.clip).to.deep.equal({ x: 0, y: 0, width: 800, height: 600, scale: 0.5 });
    expect(shot).to.include({ width: 400, height: 300 });
  });

  it("refuses an image over MAX_SCREENSHOT_PIXELS with INVALID_PARAMS before anything is captured", async () => {
    const { tab, sent } = fakeTab();
    const error = await captureScreenshot(tab, { format: "png", area: { kind: "fullPage" }, maxPixels: 1_000_000 }, budget).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(HubError);
    expect((error as HubError).toWire()).to.include({ code: -32602 });
    expect((error as HubError).message).to.match(/800x100000 = 80000000 pixels, above MAX_SCREENSHOT_PIXELS \(1000000\)/);
    expect(sent.map((command) => command.method)).to.not.include("Page.captureScreenshot");
  });
});
