import { expect } from "chai";
import { redactUrl } from "../../../src/log.js";
import { callSummary } from "../../../src/timeline/call-summary.js";

describe("callSummary", () => {
  it("shows what a call acted on, never what it typed, filled or ran", () => {
    expect(callSummary("fill", { target: "a:B", selector: "#password", value: "hunter2-secret" })).to.equal(
      'fill selector="#password" value=(14 characters)',
    );
    expect(callSummary("type", { target: "a:B", text: "s3cret", delayMs: 10 })).to.equal("type text=(6 characters) delayMs=10");
    expect(callSummary("evaluate", { target: "a:B", expression: "localStorage.token" })).to.equal("evaluate expression=(18 characters)");
    const form = callSummary("fillForm", { target: "a:B", fields: [{ selector: "#p", value: "pw" }] });
    expect(form).to.equal("fillForm fields=(1 items)");
    expect(callSummary("drag", { target: "a:B", from: { selector: "#a", text: "x" }, to: { x: 1, y: 2 } })).to.equal(
      'drag from={selector="#a"} to={x=1 y=2}',
    );
    expect(callSummary("cookies.set", { cookies: [{ name: "sid", value: "abc" }] })).to.not.include("abc");
  });

  it("shows a URL param with its credentials and secret-looking query values redacted", () => {
    const line = callSummary("navigate", { target: "a:B", url: "https://user:pw@shop.example/x?token=abc123&q=shoes#access_token=zzz" });
    expect(line).to.equal('navigate url="https://[redacted]@shop.example/x?token=[redacted]&q=shoes#access_token=[redacted]"');
  });
});

describe("redactUrl", () => {
  it("leaves a URL without secrets as it is", () => {
    expect(redactUrl("https://shop.example/a?q=1&page=2")).to.equal("https://shop.example/a?q=1&page=2");
  });

  it("redacts api keys, passwords and session cookies in queries", () => {
    expect(redactUrl("http://h/p?api_key=k&password=p&cookie=c&x=1")).to.equal(
      "http://h/p?api_key=[redacted]&password=[redacted]&cookie=[redacted]&x=1",
    );
  });
});
