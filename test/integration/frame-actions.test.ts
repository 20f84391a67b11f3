import { expect } from "chai";
import type { TabwireError } from "../../src/client/index.js";
import { ErrorCode } from "../../src/errors.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { closeTab, evaluate, openTab } from "../support/tabs.js";
import { connectClient } from "../support/test-hub.js";
import { pageSuite } from "../support/page-suite.js";

for (const source of ["chrome", "dom"] as const) {
  describe(`refs into iframes and shadow roots: a snapshot reaches into same-origin and cross-site frames and open shadow roots, and actions land there (source: ${source}; real hub, real Chromium)`, function () {
    this.timeout(30_000);
    const suite = pageSuite();

    /** Snapshots the tab, clicks the button named `name` by its ref, and waits for the mark its click handler sends. */
    const clickButton = async (target: string, name: string, mark: { server: FixtureServer; name: string }): Promise<string> => {
      const { text } = await suite.client.call("snapshot", { target, source });
      const ref = new RegExp(`button "${name}" \\[ref=(e\\d+)\\]`).exec(text)?.[1];
      expect(ref, text).to.be.a("string");
      const marked = mark.server.waitForMark(mark.name, 10_000);
      await suite.client.click({ target, ref: ref as string });
      await marked;
      return text;
    };

    it("a button in a same-origin iframe gets a ref under the Iframe node, and a trusted click on it lands", async () => {
      const tab = await openTab(
        suite.client,
        suite.fixtures.url(`frame-host.html?inner=${encodeURIComponent(suite.fixtures.url("frame-button.html"))}`),
      );
      try {
        await evaluate(suite.client, tab.target, "frameReady");
        const text = await clickButton(tab.target, "Inside frame", { server: suite.fixtures, name: "frame-click-true" });
        expect(text).to.match(/- Iframe[^\n]*\n\s+- RootWebArea "Frame Button"/);
      } finally {
        await closeTab(suite.client, tab.target);
      }
    });

    it("a button in an open shadow root gets a ref, and a trusted click on it lands", async () => {
      const tab = await openTab(suite.client, suite.fixtures.url("shadow.html"));
      try {
        await clickButton(tab.target, "Inside shadow", { server: suite.fixtures, name: "shadow-click-true" });
      } finally {
        await closeTab(suite.client, tab.target);
      }
    });

    // Another site than 127.0.0.1, so site isolation runs the frame in a renderer of its own.
    const crossSite = (page: string): string => suite.fixtures.url(page).replace("127.0.0.1", "localhost");
    const frameHost = (inner: string): string => suite.fixtures.url(`frame-host.html?inner=${encodeURIComponent(inner)}`);

    it("a button in a same-site iframe of another origin (another port, the tab's process) gets a ref, and a trusted click on it lands", async () => {
      const otherOrigin = await startFixtureServer();
      const tab = await openTab(suite.client, frameHost(otherOrigin.url("frame-button.html")));
      try {
        await evaluate(suite.client, tab.target, "frameReady");
        expect(await evaluate(suite.client, tab.target, "document.querySelector('iframe').contentDocument === null")).to.deep.include({
          value: true,
        });
        await clickButton(tab.target, "Inside frame", { server: otherOrigin, name: "frame-click-true" });
      } finally {
        await closeTab(suite.client, tab.target);
        await otherOrigin.close();
      }
    });

    it("a button in a cross-site iframe gets a ref, a trusted click on it lands, fill types into its field and callOn reads it", async () => {
      const tab = await openTab(suite.client, frameHost(crossSite("frame-button.html")));
      try {
        await evaluate(suite.client, tab.target, "frameReady");
        // The top document cannot reach into the frame: it is another site's.
        expect(await evaluate(suite.client, tab.target, "document.querySelector('iframe').contentDocument === null")).to.deep.include({
          value: true,
        });
        const { text } = await suite.client.call("snapshot", { target: tab.target, source });
        expect(text).to.match(/- Iframe[^\n]*\n\s+- RootWebArea "Frame Button"/);
        const button = /button "Inside frame" \[ref=(e\d+)\]/.exec(text)?.[1];
        const field = /textbox "Frame field" \[ref=(e\d+)\]/.exec(text)?.[1];
        expect(button, text).to.be.a("string");
        expect(field, text).to.be.a("string");
        // A screenshot of the ref is the button where it sits in the tab: the frame's border and padding added.
        const corner =
          "(() => { const r = document.querySelector('iframe').getBoundingClientRect(); return [r.left + 94, r.top + 44]; })()";
        const [x, y] = (await evaluate(suite.client, tab.target, corner)).value as [number, number];
        const byRef = await suite.client.call("screenshot", { target: tab.target, ref: button as string });
        const byClip = await suite.client.call("screenshot", { target: tab.target, clip: { x, y, width: 80, height: 24 } });
        expect(byRef.data).to.equal(byClip.data);
        const marked = suite.fixtures.waitForMark("frame-click-true", 10_000);
        expect(await suite.client.click({ target: tab.target, ref: button as string })).to.include({ ok: true });
        await marked;
        await suite.client.fill({ target: tab.target, ref: field as string, value: "typed across processes" });
        const read = await suite.client.call("callOn", {
          target: tab.target,
          ref: field as string,
          functionDeclaration: "(el) => [el.value, document.activeElement === el]",
        });
        expect(read).to.deep.include({ value: ["typed across processes", true] });
      } finally {
        await closeTab(suite.client, tab.target);
      }
    });

    it("a snapshot reaches only its own tab's cross-site frames, and a ref into a frame that went is NODE_NOT_FOUND", async () => {
      // Scoped tokens and other keys are tried on every action in actions.test.ts; here two clients' tabs side by side.
      const other = await connectClient(suite.hub);
      const mine = await openTab(suite.client, frameHost(crossSite("frame-button.html")), { clientId: "frames-mine" });
      const theirs = await openTab(other, frameHost(crossSite("inner.html?name=their-secret")), { clientId: "frames-theirs" });
      try {
        await Promise.all([evaluate(suite.client, mine.target, "frameReady"), evaluate(other, theirs.target, "frameReady")]);
        const [own, their] = await Promise.all([
          suite.client.call("snapshot", { target: mine.target, source }),
          other.call("snapshot", { target: theirs.target, source }),
        ]);
        expect(their.text).to.include("their-secret");
        expect(own.text).to.include("Inside frame").and.not.include("their-secret");
        const ref = /button "Inside frame" \[ref=(e\d+)\]/.exec(own.text)?.[1] as string;
        await evaluate(suite.client, mine.target, "document.querySelector('iframe').remove()");
        const gone = await suite.client.click({ target: mine.target, ref }).catch((error: TabwireError) => error);
        expect(gone).to.include({ code: ErrorCode.NODE_NOT_FOUND });
        expect((gone as TabwireError).message).to.include("take a new snapshot");
      } finally {
        await closeTab(other, theirs.target);
        await closeTab(suite.client, mine.target);
        await other.close();
      }
    });
  });
}
