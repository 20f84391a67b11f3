import { expect } from "chai";
import type { Methods, TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { closeTab, evaluate, openTab, type OpenedTab } from "../support/tabs.js";
import { connectClient, sharedHub } from "../support/test-hub.js";

type ContentParams = Omit<Methods["content"]["params"], "target">;
type ContentResult = Methods["content"]["result"];

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");

describe("content (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let otherPort: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab | undefined;

  const content = (params: ContentParams = {}): Promise<ContentResult> => {
    if (!tab) throw new Error("the test opened no tab");
    return client.call("content", { target: tab.target, ...params });
  };
  /** Opens frames.html with cross-origin frames at `crossUrls` and waits until every frame has loaded. */
  const openFrames = async (crossUrls: string[]): Promise<void> => {
    const query = crossUrls.map((url) => `cross=${encodeURIComponent(url)}`).join("&");
    tab = await openTab(client, fixtures.url(`frames.html?${query}`));
    expect(await evaluate(client, tab.target, "window.framesReady")).to.deep.equal({ type: "boolean", value: true });
  };
  const innerUrl = (origin: string, name: string): string => `${origin}/inner.html?name=${name}`;
  // Another site than 127.0.0.1, so site isolation puts the frame in its own process.
  const localhostOrigin = (): string => fixtures.origin.replace("127.0.0.1", "localhost");

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    otherPort = await startFixtureServer();
    client = await connectClient(hub);
  });
  afterEach(async () => {
    if (tab) await closeTab(client, tab.target);
    tab = undefined;
  });
  after(async () => {
    await client.close();
    await fixtures.close();
    await otherPort.close();
  });

  describe("the main document", () => {
    beforeEach(async () => {
      tab = await openTab(client, fixtures.url("index.html"));
    });

    it("html is the serialized document with its doctype and markup, html by default", async () => {
      const result = await content();
      expect(result.format).to.equal("html");
      expect(result.content).to.match(/^<!DOCTYPE html><html>/);
      expect(result.content).to.include("<title>Fixture Home</title>");
      expect(result.content).to.include('<div id="main" class="content">');
      expect(result.content).to.include("<h1>tabwire fixture</h1>");
      expect(result.length).to.equal(byteLength(result.content));
      expect(result).to.not.have.property("truncated");
    });

    it("text is the rendered text without tags", async () => {
      const result = await content({ format: "text" });
      expect(result.format).to.equal("text");
      expect(result.content).to.include("tabwire fixture");
      expect(result.content).to.include("one two three");
      expect(result.content).to.not.include("<");
      expect(result.content).to.not.include("Fixture Home");
      expect(result.length).to.equal(byteLength(result.content));
    });

    it("a maxSize at or above the length cuts nothing", async () => {
      const full = await content();
      const result = await content({ maxSize: full.length });
      expect(result).to.deep.equal(full);
    });
  });

  describe("maxSize on multi-byte text", () => {
    beforeEach(async () => {
      tab = await openTab(client, fixtures.url("inner.html?name=solo"));
    });

    it("cuts to at most maxSize bytes, never inside a character, and reports the full length", async () => {
      const full = await content({ format: "text" });
      const bytes = Buffer.from(full.content, "utf8");
      const emojiAt = bytes.indexOf(Buffer.from("😀", "utf8"));
      const eAt = bytes.indexOf(Buffer.from("è", "utf8"));
      expect(emojiAt, "the fixture has an emoji").to.be.greaterThan(0);
      for (const maxSize of [eAt + 1, emojiAt + 1, emojiAt + 2, emojiAt + 3, emojiAt + 4, 1]) {
        const result = await content({ format: "text", maxSize });
        expect(result.truncated, `maxSize ${maxSize}`).to.equal(true);
        expect(result.length).to.equal(bytes.length);
        expect(byteLength(result.content)).to.be.at.most(maxSize);
        expect(result.content).to.not.include("\uFFFD");
        expect(full.content.startsWith(result.content)).to.equal(true);
      }
      expect((await content({ format: "text", maxSize: emojiAt + 3 })).content).to.equal(bytes.subarray(0, emojiAt).toString("utf8"));
      expect((await content({ format: "text", maxSize: emojiAt + 4 })).content).to.match(/😀$/);
    });

    it("cuts html the same way", async () => {
      const result = await content({ maxSize: 20 });
      expect(result).to.include({ format: "html", truncated: true });
      expect(result.content).to.equal("<!DOCTYPE html><html");
      expect(result.length).to.be.greaterThan(20);
    });
  });

  describe("includeIframes", () => {
    it("includes the same-origin and the out-of-process cross-origin frame, each marked", async () => {
      const crossUrl = innerUrl(localhostOrigin(), "cross-origin-frame");
      await openFrames([crossUrl]);
      const sameUrl = innerUrl(fixtures.origin, "same-origin-frame");
      const html = await content({ includeIframes: true });
      expect(html.content).to.include(`<!-- tabwire:iframe src="${sameUrl}" origin="${fixtures.origin}" crossOrigin=false -->`);
      expect(html.content).to.include(`<!-- tabwire:iframe src="${crossUrl}" origin="${localhostOrigin()}" crossOrigin=true -->`);
      expect(html.content).to.match(
        /crossOrigin=true -->\n<!DOCTYPE html><html>[\s\S]*cross-origin-frame[\s\S]*<\/html>\n<!-- \/tabwire:iframe -->/,
      );
      expect(html.content.match(/<!-- \/tabwire:iframe -->/g)).to.have.length(2);
      expect(html.length).to.equal(byteLength(html.content));

      const text = await content({ format: "text", includeIframes: true });
      expect(text.content).to.include(`--- iframe ${sameUrl} (same-origin) ---\ninner frame same-origin-frame`);
      expect(text.content).to.include(`--- iframe ${crossUrl} (cross-origin) ---\ninner frame cross-origin-frame`);
      expect(text.content).to.match(/^frames fixture/);
    });

    it("marks a cross-origin frame of the same site (in process) as cross-origin too", async () => {
      const crossUrl = innerUrl(otherPort.origin, "other-port-frame");
      await openFrames([crossUrl]);
      const text = await content({ format: "text", includeIframes: true });
      expect(text.content).to.include(`--- iframe ${crossUrl} (cross-origin) ---\ninner frame other-port-frame`);
      expect(text.content).to.include("(same-origin) ---\ninner frame same-origin-frame");
    });

    it("without it, no frame's content appears", async () => {
      await openFrames([innerUrl(localhostOrigin(), "cross-origin-frame")]);
      const html = await content();
      const text = await content({ format: "text" });
      expect(html.content).to.include("frames fixture");
      expect(text.content).to.include("main document text");
      for (const result of [html, text]) {
        expect(result.content).to.not.include("tabwire:iframe");
        expect(result.content).to.not.include("--- iframe");
        expect(result.content).to.not.include("inner frame");
        expect(result.content).to.not.include('id="who"');
      }
    });

    it("leaves no extra CDP session attached after the call", async () => {
      await openFrames([innerUrl(localhostOrigin(), "cross-origin-frame")]);
      await content({ format: "text" });
      const before = hub.services.pool.stats();
      const iframeTargets = async () => {
        const { targetInfos } = await hub.services.browser.connection().send("Target.getTargets");
        return targetInfos.filter((info) => info.type === "iframe" && info.url.startsWith(localhostOrigin()));
      };
      expect(await iframeTargets(), "the cross-origin frame runs out of process").to.have.length(1);

      const results = await Promise.all([content({ includeIframes: true }), content({ format: "text", includeIframes: true })]);
      for (const result of results) expect(result.content).to.include("cross-origin-frame");
      expect((await iframeTargets()).map((info) => info.attached)).to.deep.equal([false]);
      expect(hub.services.pool.stats()).to.deep.equal(before);
    });
  });
});
