import { expect } from "chai";
import { HubError } from "../../../src/errors.js";
import { checkUrlAllowed, type UrlPolicy } from "../../../src/runtime/url-policy.js";

function policy(cdpUrl: string | null): UrlPolicy {
  return { allowUrlSchemes: new Set(["view-source", "ws"]), evaluateEnabled: true, cdpUrl };
}

function refusal(url: string, cdpUrl: string | null): string | null {
  try {
    checkUrlAllowed(url, policy(cdpUrl));
    return null;
  } catch (error) {
    return error instanceof HubError ? error.errorName : String(error);
  }
}

describe("checkUrlAllowed: CDP_URL's debugging address", () => {
  const loopback = "http://127.0.0.1:9222";

  it("refuses the debugging port under every name of the machine Chrome runs on", () => {
    for (const url of [
      "http://127.0.0.1:9222/json/list",
      "http://localhost:9222/json/new",
      "http://LocalHost.:9222/",
      "http://devtools.localhost:9222/json",
      "http://127.7.7.7:9222/json/list",
      "http://127.1:9222/json/list",
      "http://2130706433:9222/json/list",
      "http://0x7f.0.0.1:9222/json/list",
      "http://0.0.0.0:9222/json/list",
      "http://[::1]:9222/json/list",
      "http://[::]:9222/json/list",
      "http://[::ffff:127.0.0.1]:9222/json/list",
      "ws://127.0.0.1:9222/devtools/browser/x",
      "view-source:http://127.0.0.1:9222/json/list",
    ]) {
      expect(refusal(url, loopback), url).to.equal("FORBIDDEN");
    }
  });

  it("refuses the endpoint's own host and port, and loopback on that port, when CDP_URL names another machine", () => {
    expect(refusal("http://chrome.internal:9222/json/list", "ws://chrome.internal:9222/devtools/browser/x")).to.equal("FORBIDDEN");
    expect(refusal("http://localhost:9222/json/list", "http://chrome.internal:9222")).to.equal("FORBIDDEN");
    expect(refusal("http://chrome.internal/json/list", "http://chrome.internal")).to.equal("FORBIDDEN");
  });

  it("lets other ports and other hosts through, and checks nothing without CDP_URL", () => {
    expect(refusal("http://127.0.0.1:9223/json/list", loopback)).to.equal(null);
    expect(refusal("http://example.com:9222/json/list", loopback)).to.equal(null);
    expect(refusal("https://127.0.0.1/", loopback)).to.equal(null);
    expect(refusal("about:blank", loopback)).to.equal(null);
    expect(refusal("data:text/html,hi", loopback)).to.equal(null);
    expect(refusal("http://127.0.0.1:9222/json/list", null)).to.equal(null);
  });

  it("says why, and that it is CDP_URL's address", () => {
    expect(() => checkUrlAllowed("http://localhost:9222/json", policy(loopback))).to.throw(
      HubError,
      /localhost:9222 is the debugging address .*CDP_URL/,
    );
  });
});
