import { expect } from "chai";
import { ConsoleBuffer } from "../../../src/events/console-buffer.js";
import { capMessage, messageBytes, type ConsoleMessage } from "../../../src/events/console-message.js";
import { MAX_CONSOLE_CHARS } from "../../../src/runtime/console-text.js";

function message(text: string, timestamp = 1): ConsoleMessage {
  return { level: "log", text, args: [{ type: "string", value: text }], timestamp, source: "console" };
}

describe("ConsoleBuffer", () => {
  it("keeps the newest messages up to its count", () => {
    const buffer = new ConsoleBuffer(3);
    for (let i = 0; i < 5; i++) buffer.push(message(String(i), i));
    expect(buffer.recent(10, false).map((m) => m.text)).to.deep.equal(["2", "3", "4"]);
  });

  it("drops the oldest messages while over its byte bound, but always keeps the newest", () => {
    const one = messageBytes(message("x".repeat(1_000)));
    const buffer = new ConsoleBuffer(100, one * 3);
    for (let i = 0; i < 10; i++) buffer.push(message(String(i).padEnd(1_000, "x"), i));
    expect(buffer.recent(100, false).map((m) => m.text[0])).to.deep.equal(["7", "8", "9"]);
    expect(buffer.bytes).to.equal(one * 3);
    buffer.push(message("y".repeat(10_000), 11));
    expect(buffer.recent(100, false).map((m) => m.text[0])).to.deep.equal(["y"]);
  });

  it("reads since the last navigation after evictions", () => {
    const buffer = new ConsoleBuffer(4);
    buffer.push(message("before"));
    buffer.markNavigation();
    for (let i = 0; i < 6; i++) buffer.push(message(`after ${i}`));
    expect(buffer.recent(10, true).map((m) => m.text)).to.deep.equal(["after 2", "after 3", "after 4", "after 5"]);
  });
});

describe("capMessage", () => {
  it("cuts a long text, stack and string argument, and says how much was cut", () => {
    const long = "z".repeat(MAX_CONSOLE_CHARS + 5);
    const capped = capMessage({ ...message(long), stack: long });
    const cut = `${"z".repeat(MAX_CONSOLE_CHARS)}… [5 more characters]`;
    expect(capped.text).to.equal(cut);
    expect(capped.stack).to.equal(cut);
    expect(capped.args[0]?.value).to.equal(cut);
  });

  it("cuts a long object description (a function's source, say) and leaves the rest of the argument", () => {
    const source = `function f() { ${"y".repeat(MAX_CONSOLE_CHARS)} }`;
    const logged: ConsoleMessage = { ...message("f"), args: [{ type: "function", description: source }] };
    const capped = capMessage(logged);
    expect(capped.args[0]).to.deep.equal({
      type: "function",
      description: `${source.slice(0, MAX_CONSOLE_CHARS)}… [${source.length - MAX_CONSOLE_CHARS} more characters]`,
    });
    expect(capped.text).to.equal("f");
  });

  it("leaves a short message as it is", () => {
    const short = message("short");
    expect(capMessage(short)).to.equal(short);
  });
});
