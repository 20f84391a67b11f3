import { expect } from "chai";
import type { Methods, TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { imageSize, type ImageSize } from "../../src/runtime/image-size.js";
import { failure } from "../support/rpc-client.js";
import { closeTab, evaluate, openTab, type OpenExtra, type OpenedTab } from "../support/tabs.js";
import { connectClient, sharedHub } from "../support/test-hub.js";

type Shot = Methods["screenshot"]["result"];
type ShotParams = Omit<Methods["screenshot"]["params"], "target">;

/** The image's own header, checked against what the result claims. */
function decode(shot: Shot): ImageSize & { bytes: number } {
  const bytes = Buffer.from(shot.data, "base64");
  const size = imageSize(bytes);
  expect(size, "the decoded header").to.deep.equal({ format: shot.format, width: shot.width, height: shot.height });
  return { ...size, bytes: bytes.length };
}

const PIXEL_AT = `async (src, x, y) => {
  const image = new Image();
  image.src = src;
  await image.decode();
  const canvas = document.createElement("canvas");
  [canvas.width, canvas.height] = [image.width, image.height];
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  return "#" + [...context.getImageData(x, y, 1, 1).data.slice(0, 3)].map((c) => c.toString(16).padStart(2, "0")).join("");
}`;

describe("screenshot (real hub, real Chromium)", function () {
  this.timeout(30_000);
  let hub: Hub;
  let fixtures: FixtureServer;
  let client: TabwireClient;
  let tab: OpenedTab | undefined;

  const open = async (page: string, extra: OpenExtra = {}): Promise<OpenedTab> => {
    tab = await openTab(client, fixtures.url(page), extra);
    return tab;
  };
  const shoot = (params: ShotParams = {}): Promise<Shot> => client.call("screenshot", { target: tab?.target ?? "", ...params });
  const value = async <T>(expression: string): Promise<T> => (await evaluate(client, tab?.target ?? "", expression)).value as T;
  /** The colour of one pixel of an image, as the page's own image decoder reads it: `#rrggbb`. */
  const pixel = (shot: Shot, x: number, y: number): Promise<string> =>
    evaluate(client, tab?.target ?? "", { expression: PIXEL_AT, args: [`data:${shot.mimeType};base64,${shot.data}`, x, y] }).then(
      (r) => r.value as string,
    );

  before(async () => {
    hub = await sharedHub();
    fixtures = await startFixtureServer();
    client = await connectClient(hub);
  });
  afterEach(async () => {
    if (tab) await closeTab(client, tab.target);
    tab = undefined;
  });
  after(async () => {
    await client.close();
    await fixtures.close();
  });

  describe("formats", () => {
    it("a png of the viewport decodes to the size the result claims, the viewport's size", async () => {
      await open("box.html");
      const [width, height] = await value<[number, number]>("[innerWidth, innerHeight]");
      const shot = await shoot();
      expect(shot).to.include({ format: "png", mimeType: "image/png", width, height });
      decode(shot);
    });

    it("jpeg at quality 10 has fewer bytes than at quality 90 of the same page", async () => {
      await open("tall.html");
      const low = await shoot({ format: "jpeg", quality: 10 });
      const high = await shoot({ format: "jpeg", quality: 90 });
      expect(low.mimeType).to.equal("image/jpeg");
      expect(decode(low).bytes).to.be.below(decode(high).bytes);
      expect([low.width, low.height]).to.deep.equal([high.width, high.height]);
    });

    it("optimizeForSpeed gives the same png, encoded faster into more bytes", async () => {
      await open("tall.html");
      const small = decode(await shoot({ format: "png" }));
      const fast = decode(await shoot({ format: "png", optimizeForSpeed: true }));
      expect([fast.width, fast.height]).to.deep.equal([small.width, small.height]);
      expect(fast.bytes).to.be.above(small.bytes);
    });

    it("webp works, with and without a quality", async () => {
      await open("box.html");
      const shot = await shoot({ format: "webp" });
      expect(shot.mimeType).to.equal("image/webp");
      decode(shot);
      expect(decode(await shoot({ format: "webp", quality: 30, selector: "#box" }))).to.include({ width: 200, height: 120 });
    });
  });

  describe("what is captured", () => {
    it("fullPage is the whole scrollable page: 5,000 px tall on tall.html, the page's true scroll height", async () => {
      await open("tall.html");
      const [scrollWidth, scrollHeight] = await value<[number, number]>(
        "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]",
      );
      expect(scrollHeight).to.equal(5_000);
      const shot = await shoot({ fullPage: true });
      expect(shot).to.include({ width: scrollWidth, height: 5_000 });
      decode(shot);
      expect(await value<number>("scrollY"), "the scroll position is left alone").to.equal(0);
    });

    it("a fullPage capture past MAX_SCREENSHOT_PIXELS is INVALID_PARAMS naming it, and the tab is captured fine after", async () => {
      await open("tall.html");
      await value("document.body.style.height = '100000px'");
      const error = await failure(shoot({ fullPage: true }));
      expect(error.code).to.equal(-32602);
      expect(error.message).to.match(
        /pixels, above MAX_SCREENSHOT_PIXELS \(33554432\); capture less with clip, scale, maxWidth or maxHeight$/,
      );
      expect(await shoot({ fullPage: true, maxHeight: 2_000 })).to.include({ height: 2_000 });
    });

    it("an element by selector is the element's size, on screen, off screen or at fractional coordinates", async () => {
      await open("box.html");
      expect(decode(await shoot({ selector: "#box" }))).to.include({ width: 200, height: 120 });
      expect(decode(await shoot({ selector: "#far" }))).to.include({ width: 150, height: 80 });
      // #odd spans x 300.5-400 and y 30.25-80.25: widened outward to whole CSS pixels.
      expect(decode(await shoot({ selector: "#odd" }))).to.include({ width: 100, height: 51 });
    });

    it("the image shows the right part of the page, wherever it is scrolled", async () => {
      await open("box.html");
      const far = await shoot({ selector: "#far" });
      expect(await pixel(far, 75, 40)).to.equal("#aa2277");
      // Only the top 40 px of #far (10, 2400) show, at the viewport's bottom edge; #box (40, 30) is out of view.
      const scrollY = await value<number>("scrollTo(0, 2400 + 40 - innerHeight), scrollY");
      const innerHeight = await value<number>("innerHeight");
      const viewport = await shoot();
      expect(await pixel(viewport, 85, innerHeight - 20)).to.equal("#aa2277");
      expect(await pixel(viewport, 85, innerHeight - 60)).to.equal("#ffffff");
      expect(await pixel(await shoot({ clip: { x: 40, y: 30, width: 200, height: 120 } }), 100, 60)).to.equal("#22aa77");
      expect(await pixel(await shoot({ fullPage: true }), 85, 2440)).to.equal("#aa2277");
      expect(await value<number>("scrollY"), "the scroll position is left alone").to.equal(scrollY);
    });

    it("a selector matching nothing, or an element with no box, is NODE_NOT_FOUND", async () => {
      await open("box.html");
      const missing = await failure(shoot({ selector: "#nope" }));
      expect(missing.code).to.equal(-32004);
      expect(missing.message).to.match(/no element matches the selector "#nope"/);
      const hidden = await failure(shoot({ selector: "#hidden" }));
      expect(hidden.code).to.equal(-32004);
      expect(hidden.message).to.match(/empty box/);
    });

    it("a selector the browser cannot parse is INVALID_PARAMS at /selector", async () => {
      await open("box.html");
      const error = await failure(shoot({ selector: "div[" }));
      expect(error.code).to.equal(-32602);
      expect(error.data).to.deep.equal({ errors: [{ path: "/selector", message: "is not a valid CSS selector" }] });
    });

    it("a ref from snapshot captures its element; after a navigation the ref is NODE_NOT_FOUND", async () => {
      await open("box.html");
      const { text } = await client.call("snapshot", { target: tab?.target ?? "" });
      const ref = /- image "Green box" \[ref=(e\d+)\]/.exec(text)?.[1];
      expect(ref, text).to.be.a("string");
      expect(decode(await shoot({ ref }))).to.include({ width: 200, height: 120 });
      await client.call("navigate", { target: tab?.target ?? "", url: fixtures.url("box.html") });
      const error = await failure(shoot({ ref }));
      expect(error.code).to.equal(-32004);
      expect(error.message).to.include("take a new snapshot");
    });

    it("a ref of text (a snapshot's StaticText) captures the box of that text", async () => {
      // A ref may name a text node: the fuzz run found this answered INTERNAL_ERROR, measuring it as an element.
      await open("actions.html");
      const { text } = await client.call("snapshot", { target: tab?.target ?? "" });
      const ref = /StaticText "Plan ?" \[ref=(e\d+)\]/.exec(text)?.[1];
      expect(ref, text).to.be.a("string");
      // The text's box as the page measures it, widened outward to whole CSS pixels as every capture is.
      const box = await value<{ width: number; height: number }>(`(() => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector("#plan").parentElement.firstChild);
        const r = range.getBoundingClientRect();
        return { width: Math.ceil(r.right) - Math.floor(r.left), height: Math.ceil(r.bottom) - Math.floor(r.top) };
      })()`);
      expect(box.width).to.be.above(0);
      expect(decode(await shoot({ ref }))).to.include(box);
    });

    it("a background tab is captured without being brought to the front", async () => {
      await open("box.html", { background: true });
      expect(await value<string>("document.visibilityState")).to.equal("hidden");
      const [width, height] = await value<[number, number]>("[innerWidth, innerHeight]");
      // Chrome stops drawing a hidden tab a moment after its load, and only later captures used to stall: several rounds.
      for (let round = 0; round < 4; round++) {
        expect(decode(await shoot({ timeoutMs: 8_000 }))).to.include({ width, height });
        expect(decode(await shoot({ selector: "#box", timeoutMs: 8_000 }))).to.include({ width: 200, height: 120 });
        expect(decode(await shoot({ fullPage: true, format: "jpeg", timeoutMs: 8_000 }))).to.include({ format: "jpeg" });
      }
      expect(await value<string>("document.visibilityState")).to.equal("hidden");
    });

    it("captures of one tab started together each get their own exact size", async () => {
      await open("tall.html");
      const [innerWidth, innerHeight] = await value<[number, number]>("[innerWidth, innerHeight]");
      const [full, viewport, clip] = await Promise.all([
        shoot({ fullPage: true }),
        shoot(),
        shoot({ clip: { x: 0, y: 4_000, width: 50, height: 60 } }),
      ]);
      expect(decode(full).height).to.equal(5_000);
      expect(decode(viewport)).to.include({ width: innerWidth, height: innerHeight });
      expect(decode(clip)).to.include({ width: 50, height: 60 });
    });
    it("a capture whose measuring the hub stopped, while it stopped another call's runaway script, is measured again", async () => {
      await open("box.html");
      const [innerWidth, innerHeight] = await value<[number, number]>("[innerWidth, innerHeight]");
      // The page's own getter makes the hub's measuring script run for 300 ms, so it is still running when the hub
      // finds the page busy after the spinning call's budget and stops whatever runs.
      await value(
        `Object.defineProperty(window, "devicePixelRatio", { get() { const t = Date.now(); while (Date.now() - t < 300); return 1; } }); true`,
      );
      const [spin, shot] = await Promise.allSettled([
        client.call("evaluate", { target: tab?.target ?? "", expression: "while (true) {}", timeoutMs: 200 }),
        shoot({ timeoutMs: 10_000 }),
      ]);
      expect(spin.status === "rejected" && spin.reason).to.include({ code: -32001 });
      expect(shot.status === "fulfilled" && decode(shot.value), shot.status === "rejected" ? String(shot.reason) : "").to.include({
        width: innerWidth,
        height: innerHeight,
      });
    });
  });

  describe("size", () => {
    it("clip and scale give the exact expected pixel size", async () => {
      await open("box.html");
      const clip = { x: 10, y: 20, width: 300, height: 150 };
      expect(decode(await shoot({ clip }))).to.include({ width: 300, height: 150 });
      expect(decode(await shoot({ clip, scale: 0.5 }))).to.include({ width: 150, height: 75 });
      expect(decode(await shoot({ clip, scale: 2 }))).to.include({ width: 600, height: 300 });
      // 333 x 0.3 = 99.9 and 101 x 0.3 = 30.3: rounded to the nearest pixel.
      expect(decode(await shoot({ clip: { x: 0, y: 0, width: 333, height: 101 }, scale: 0.3 }))).to.include({ width: 100, height: 30 });
      expect(decode(await shoot({ selector: "#box", scale: 1.5, format: "jpeg" }))).to.include({ width: 300, height: 180 });
    });

    it("maxWidth and maxHeight shrink the image to fit, keeping its aspect ratio", async () => {
      await open("tall.html");
      const clip = { x: 0, y: 0, width: 400, height: 1_000 };
      expect(decode(await shoot({ clip, maxWidth: 100 }))).to.include({ width: 100, height: 250 });
      expect(decode(await shoot({ clip, maxHeight: 100 }))).to.include({ width: 40, height: 100 });
      expect(decode(await shoot({ clip, maxWidth: 100, maxHeight: 100 }))).to.include({ width: 40, height: 100 });
      const [scrollWidth, innerWidth, innerHeight] = await value<number[]>(
        "[document.documentElement.scrollWidth, innerWidth, innerHeight]",
      );
      const full = await shoot({ fullPage: true, maxHeight: 1_000, format: "webp" });
      expect(decode(full)).to.include({ width: Math.round(((scrollWidth ?? 0) * 1_000) / 5_000), height: 1_000 });
      const viewport = await shoot({ maxWidth: 390 });
      expect(decode(viewport)).to.include({ width: 390, height: Math.round(((innerHeight ?? 0) * 390) / (innerWidth ?? 1)) });
    });

    it("maxWidth and maxHeight never enlarge, and apply after scale", async () => {
      await open("box.html");
      expect(decode(await shoot({ selector: "#box", maxWidth: 1_000, maxHeight: 1_000 }))).to.include({ width: 200, height: 120 });
      expect(decode(await shoot({ selector: "#box", scale: 2, maxWidth: 300 }))).to.include({ width: 300, height: 180 });
    });
  });

  // Params-validation tests: some rows are not valid screenshot params (a "gif" format), so they are cast; the typed
  // client sends params unchanged, so the hub's schema sees exactly these.
  describe("params", () => {
    const rows: [string, object, string][] = [
      ["quality with png", { format: "png", quality: 50 }, "/quality"],
      ["quality with the default format", { quality: 50 }, "/quality"],
      ["ref and selector together", { ref: "e1", selector: "#box" }, "/selector"],
      ["clip with fullPage", { clip: { x: 0, y: 0, width: 10, height: 10 }, fullPage: true }, "/clip"],
      ["clip with selector", { clip: { x: 0, y: 0, width: 10, height: 10 }, selector: "#box" }, "/clip"],
      ["fullPage with selector", { fullPage: true, selector: "#box" }, "/fullPage"],
      ["an unknown format", { format: "gif" }, "/format"],
      ["scale above 4", { scale: 5 }, "/scale"],
      ["scale 0", { scale: 0 }, "/scale"],
      ["maxWidth 0", { maxWidth: 0 }, "/maxWidth"],
      ["a clip of zero width", { clip: { x: 0, y: 0, width: 0, height: 10 } }, "/clip/width"],
      ["quality above 100", { format: "jpeg", quality: 101 }, "/quality"],
    ];
    for (const [name, params, path] of rows) {
      it(`${name} is INVALID_PARAMS at ${path}`, async () => {
        await open("box.html");
        const error = await failure(shoot(params as ShotParams));
        expect(error.code).to.equal(-32602);
        expect((error.data as { errors: { path: string }[] }).errors.map((e) => e.path)).to.include(path);
      });
    }
  });
});
