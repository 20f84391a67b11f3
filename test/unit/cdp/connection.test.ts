import { expect } from "chai";
import { PassThrough, Writable } from "node:stream";
import { CdpConnection } from "../../../src/cdp/connection.js";
import { PipeTransport } from "../../../src/cdp/pipe-transport.js";
import { HubError } from "../../../src/errors.js";
import { FakeChrome as MemoryChrome } from "../support/fake-browser.js";

interface Command {
  id: number;
  method: string;
  sessionId?: string;
}

/** The Chrome end of a pipe: what the hub wrote (one entry per write), and a way to answer. */
interface FakeChrome {
  writes: string[][];
  commands: Command[];
  answer(text: string): void;
  /** Closes Chrome's end, as a Chrome that exits does. */
  hangUp(): void;
  /** Resolves once `count` commands have arrived. */
  received(count: number): Promise<void>;
}

function fakeChrome(maxMessageBytes: number): { chrome: FakeChrome; connection: CdpConnection } {
  const writes: string[][] = [];
  const commands: Command[] = [];
  const waiters: (() => void)[] = [];
  const take = (parts: string[]): void => {
    writes.push(parts);
    for (const text of parts.join("").split("\0").filter(Boolean)) commands.push(JSON.parse(text) as Command);
    for (const wake of waiters.splice(0)) wake();
  };
  const toChrome = new Writable({
    write: (chunk: Buffer, _encoding, done) => (take([chunk.toString()]), done()),
    writev: (chunks, done) => (take(chunks.map((c) => (c.chunk as Buffer).toString())), done()),
  });
  const fromChrome = new PassThrough();
  const received = async (count: number): Promise<void> => {
    while (commands.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const chrome = {
    writes,
    commands,
    answer: (text: string) => void fromChrome.write(`${text}\0`),
    hangUp: () => void fromChrome.end(),
    received,
  };
  return { chrome, connection: new CdpConnection(new PipeTransport({ toChrome, fromChrome }, { maxMessageBytes })) };
}

describe("CdpConnection over the pipe", () => {
  it("fails only the command whose answer is over the cap, with SERIALIZATION_FAILED naming its method; others go on", async () => {
    const { chrome, connection } = fakeChrome(1024 * 1024);
    const session = connection.createSession("S1", "T1");
    const big = session.send("Runtime.evaluate", { expression: "huge" }).catch((e: unknown) => e);
    const small = session.send("Runtime.evaluate", { expression: "1" });
    const browserLevel = connection.send("Browser.getVersion");
    await chrome.received(3);
    const [bigId, smallId, versionId] = chrome.commands.map((c) => c.id);
    chrome.answer(`{"id":${bigId},"result":{"result":{"type":"string","value":"${"x".repeat(2 * 1024 * 1024)}"}},"sessionId":"S1"}`);
    chrome.answer(`{"id":${smallId},"result":{"result":{"type":"number","value":1}},"sessionId":"S1"}`);
    chrome.answer(`{"id":${versionId},"result":{"product":"Chrome"}}`);

    const error = await big;
    expect(error).to.be.instanceOf(HubError);
    expect(error).to.include({ errorName: "SERIALIZATION_FAILED" });
    expect((error as HubError).message).to.equal(
      "Chrome's answer to Runtime.evaluate is larger than 1 MiB; ask for less: maxSize, a clip, a smaller scale",
    );
    expect(await small).to.deep.equal({ result: { type: "number", value: 1 } });
    expect(await browserLevel).to.deep.equal({ product: "Chrome" });
    expect(connection.isClosed).to.equal(false);
    connection.close();
  });

  it("drops an event over the cap and still delivers the events after it", async () => {
    const { chrome, connection } = fakeChrome(1024);
    const session = connection.createSession("S1", "T1");
    const seen: unknown[] = [];
    session.on("Runtime.consoleAPICalled", (params: unknown) => seen.push(params));
    const next = new Promise((resolve) => session.once("Page.loadEventFired", resolve));
    chrome.answer(`{"method":"Runtime.consoleAPICalled","params":{"args":"${"y".repeat(4096)}"},"sessionId":"S1"}`);
    chrome.answer(`{"method":"Runtime.consoleAPICalled","params":{"args":"small"},"sessionId":"S1"}`);
    chrome.answer(`{"method":"Page.loadEventFired","params":{"timestamp":1},"sessionId":"S1"}`);
    expect(await next).to.deep.equal({ timestamp: 1 });
    expect(seen).to.deep.equal([{ args: "small" }]);
    connection.close();
  });

  it("writes the commands of one tick to the pipe in one write, each ended by a NUL", async () => {
    const { chrome, connection } = fakeChrome(1024);
    for (let i = 0; i < 5; i++) void connection.send("Browser.getVersion").catch(() => undefined);
    await chrome.received(5);
    expect(chrome.writes).to.have.length(1);
    expect(chrome.writes[0]?.join("").split("\0")).to.have.length(6);
    connection.close();
  });

  it("fails every pending command with BROWSER_UNAVAILABLE when Chrome closes its end", async () => {
    const { chrome, connection } = fakeChrome(1024);
    const pending = connection.send("Browser.getVersion").catch((e: unknown) => e);
    await chrome.received(1);
    const disconnected = new Promise<void>((resolve) => connection.once("disconnected", resolve));
    chrome.hangUp();
    await disconnected;
    expect(await pending).to.include({ errorName: "BROWSER_UNAVAILABLE" });
    expect(connection.isClosed).to.equal(true);
  });
});

describe("CdpConnection routing (flattened sessions by sessionId)", () => {
  it("hands a session's events to that session's listeners and browser-level events to the connection's, typed", async () => {
    const chrome = new MemoryChrome();
    const connection = new CdpConnection(chrome);
    const one = connection.createSession("S1", "T1");
    const two = connection.createSession("S2", "T2");
    const seen: string[] = [];
    one.listen("Runtime.consoleAPICalled", (event) => seen.push(`one ${event.type}`));
    two.listen("Runtime.consoleAPICalled", (event) => seen.push(`two ${event.type}`));
    connection.on("Target.targetCreated", (event) => seen.push(`browser ${event.targetInfo.targetId}`));
    chrome.event("Runtime.consoleAPICalled", { type: "log", args: [], executionContextId: 1, timestamp: 1 }, "S2");
    chrome.event("Target.targetCreated", { targetInfo: { targetId: "T9" } });
    chrome.event("Runtime.consoleAPICalled", { type: "warning", args: [], executionContextId: 1, timestamp: 2 }, "S1");
    expect(seen).to.deep.equal(["two log", "browser T9", "one warning"]);
  });

  it("fails a detached session's pending commands with TARGET_CLOSED, and its later ones at once", async () => {
    const chrome = new MemoryChrome();
    chrome.answer = () => null;
    const connection = new CdpConnection(chrome);
    const session = connection.createSession("S1", "T1");
    const pending = session.send("Runtime.evaluate", { expression: "1" }, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    chrome.event("Target.detachedFromTarget", { sessionId: "S1", targetId: "T1" });
    expect(await pending).to.include({ errorName: "TARGET_CLOSED" });
    expect(session.isClosed).to.equal(true);
    expect(await session.send("Runtime.evaluate", { expression: "2" }).catch((e: unknown) => e)).to.include({ errorName: "TARGET_CLOSED" });
    expect(chrome.commands("Runtime.evaluate")).to.have.length(1);
  });
});
