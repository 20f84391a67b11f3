import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import WebSocket from "ws";

/** The two sockets that speak JSON-RPC: /rpc (orchestrators) and /agent (registered agents). */
export type Endpoint = "rpc" | "agent";

/** One case of a transcript: the frames sent, in order, and the frames the hub must send back, in any order. */
export interface TranscriptCase {
  title: string;
  /** `file:line` of the case's title, for failure messages. */
  where: string;
  send: string[];
  expect: unknown[];
  /** Set by `<-- (nothing)`: no frame may come back. */
  nothing: boolean;
  only: Endpoint | null;
  withinMs: number | null;
}

/** A parsed transcript file: hub settings it needs and its cases. */
export interface Transcript {
  file: string;
  settings: Record<string, string>;
  cases: TranscriptCase[];
}

const PLACEHOLDERS: Record<string, (value: unknown) => boolean> = {
  "<any>": () => true,
  "<string>": (value) => typeof value === "string",
  "<integer>": (value) => Number.isInteger(value),
  "<boolean>": (value) => typeof value === "boolean",
};
const UNORDERED = "<unordered>";
const FRAME_WAIT_MS = 5_000;

/** Parses the line format documented at the top of every file in test/conformance. */
export function parseTranscript(file: string, text: string): Transcript {
  const transcript: Transcript = { file, settings: {}, cases: [] };
  let current: TranscriptCase | null = null;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    const where = `${file}:${index + 1}`;
    if (line === "" || line.startsWith("#")) return;
    if (line.startsWith("=== ")) {
      current = { title: line.slice(4), where, send: [], expect: [], nothing: false, only: null, withinMs: null };
      transcript.cases.push(current);
      return;
    }
    if (line.startsWith("@setting ") && current === null) {
      const [key, ...value] = line.slice(9).split("=");
      transcript.settings[key ?? ""] = value.join("=");
      return;
    }
    if (current === null) throw new Error(`${where}: "${line}" before the first "=== title"`);
    readCaseLine(current, line, where);
  });
  for (const each of transcript.cases) {
    if (each.send.length === 0) throw new Error(`${each.where}: the case sends no frame`);
    if (each.nothing === each.expect.length > 0)
      throw new Error(`${each.where}: a case expects frames or "(nothing)", exactly one of the two`);
  }
  return transcript;
}

function readCaseLine(current: TranscriptCase, line: string, where: string): void {
  if (line.startsWith("--> ")) current.send.push(line.slice(4));
  else if (line === "<-- (nothing)") current.nothing = true;
  else if (line.startsWith("<-- ")) current.expect.push(parseJson(line.slice(4), where));
  else if (line === "@only rpc" || line === "@only agent") current.only = line.slice(6) as Endpoint;
  else if (/^@within \d+$/.test(line)) current.withinMs = Number(line.slice(8));
  else throw new Error(`${where}: cannot read "${line}"`);
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${where}: the expected frame is not JSON: ${text}`);
  }
}

/** Reads every .txt transcript of a folder, in name order. */
export function loadTranscripts(folder: string): Transcript[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith(".txt"))
    .sort()
    .map((name) => parseTranscript(name, readFileSync(path.join(folder, name), "utf8")));
}

/** The hub settings all transcripts ask for together; two files asking different values of one setting is an error. */
export function mergedSettings(transcripts: readonly Transcript[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const { file, settings } of transcripts) {
    for (const [key, value] of Object.entries(settings)) {
      if (merged[key] !== undefined && merged[key] !== value)
        throw new Error(`${file} wants ${key}=${value}, another transcript ${merged[key]}`);
      merged[key] = value;
    }
  }
  return merged;
}

/** Why `actual` does not match `expected` (placeholders, exact key sets, arrays in order unless marked), or null when it does. */
export function mismatch(expected: unknown, actual: unknown, at = "$"): string | null {
  if (typeof expected === "string" && expected in PLACEHOLDERS) {
    return PLACEHOLDERS[expected]?.(actual) ? null : `${at}: ${JSON.stringify(actual)} is not ${expected}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array, got ${JSON.stringify(actual)}`;
    if (expected[0] === UNORDERED) return unorderedMismatch({ expected: expected.slice(1), actual }, at, mismatch);
    if (expected.length !== actual.length) return `${at}: ${actual.length} items, expected ${expected.length}`;
    for (const [index, item] of expected.entries()) {
      const problem = mismatch(item, actual[index], `${at}[${index}]`);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual))
      return `${at}: expected an object, got ${JSON.stringify(actual)}`;
    const keys = Object.keys(expected).sort();
    const actualKeys = Object.keys(actual).sort();
    if (keys.join() !== actualKeys.join()) return `${at}: members [${actualKeys.join(", ")}], expected [${keys.join(", ")}]`;
    for (const key of keys) {
      const problem = mismatch((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${at}.${key}`);
      if (problem) return problem;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : `${at}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
}

/** Like `mismatch`, but a top-level array (a batch's answer) matches its items in any order. */
export function frameMismatch(expected: unknown, actual: unknown): string | null {
  if (!Array.isArray(expected) || expected[0] === UNORDERED) return mismatch(expected, actual);
  if (!Array.isArray(actual)) return `$: expected a batch answer (an array), got ${JSON.stringify(actual)}`;
  return unorderedMismatch({ expected, actual }, "$", mismatch);
}

type Matcher = (expected: unknown, actual: unknown, at: string) => string | null;

/** Matches items one to one in any order (small lists: a plain backtracking search). */
function unorderedMismatch(lists: { expected: readonly unknown[]; actual: readonly unknown[] }, at: string, match: Matcher): string | null {
  const { expected, actual } = lists;
  if (expected.length !== actual.length) return `${at}: ${actual.length} items, expected ${expected.length} (in any order)`;
  const used = new Set<number>();
  const assign = (index: number): boolean => {
    if (index === expected.length) return true;
    for (let candidate = 0; candidate < actual.length; candidate++) {
      if (used.has(candidate) || match(expected[index], actual[candidate], at) !== null) continue;
      used.add(candidate);
      if (assign(index + 1)) return true;
      used.delete(candidate);
    }
    return false;
  };
  if (assign(0)) return null;
  const lonely = expected.find((item) => actual.every((candidate) => match(item, candidate, at) !== null));
  return lonely === undefined
    ? `${at}: the items cannot be paired one to one (in any order)`
    : `${at}: nothing matches ${JSON.stringify(lonely)} (in any order)`;
}

/**
 * Whether the agent endpoint would take a frame as agent protocol rather than JSON-RPC (docs/protocol.md section 6): an
 * object with a string `type` is a control frame, and an object with `result` or `error` but no `method` is an answer
 * to one of the hub's calls.
 */
export function agentProtocolFrame(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const frame = value as Record<string, unknown>;
  if (typeof frame.type === "string") return "a control frame (it has a string type)";
  if (frame.method === undefined && ("result" in frame || "error" in frame)) return "an answer to a hub call (result or error, no method)";
  return null;
}

/** A raw WebSocket: text frames out, parsed frames in, queued until taken. */
export class FrameSocket {
  readonly ws: WebSocket;
  #queue: { frame: unknown; at: number }[] = [];
  #wake: (() => void) | null = null;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => {
      this.#queue.push({ frame: JSON.parse((data as Buffer).toString("utf8")) as unknown, at: performance.now() });
      this.#wake?.();
    });
  }

  /** Opens a socket; rejects with the HTTP status when the upgrade is refused. */
  static open(url: string): Promise<FrameSocket> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new FrameSocket(ws)));
      ws.once("unexpected-response", (_request, response) => {
        ws.terminate();
        reject(new Error(`HTTP ${response.statusCode} from ${url}`));
      });
      ws.once("error", reject);
    });
  }

  /** Sends one text frame as it is. */
  send(text: string): void {
    this.ws.send(text);
  }

  /** How many received frames nobody has taken yet. */
  get queued(): number {
    return this.#queue.length;
  }

  /** The next frame and when it arrived (performance.now()), or null when none comes before `deadline`. */
  async take(deadline: number): Promise<{ frame: unknown; at: number } | null> {
    while (this.#queue.length === 0) {
      const left = deadline - performance.now();
      if (left <= 0 || this.ws.readyState !== WebSocket.OPEN) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => (clearTimeout(timer), resolve());
      });
      this.#wake = null;
    }
    return this.#queue.shift() ?? null;
  }

  /** The next frame that satisfies `match`, skipping none: any other frame first is an error. */
  async expectFrame(match: (frame: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
    const next = await this.take(performance.now() + FRAME_WAIT_MS);
    if (next === null) throw new Error(`no ${what} within ${FRAME_WAIT_MS} ms`);
    const frame = next.frame as Record<string, unknown>;
    if (!match(frame)) throw new Error(`expected ${what}, got ${JSON.stringify(frame)}`);
    return frame;
  }

  /** Closes and waits for the close. */
  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once("close", () => resolve());
      this.ws.close();
    });
  }
}

/** Opens an agent socket and does the handshake of docs/protocol.md section 6: welcome, register, registration_ack, ready. */
export async function openAgentSocket(url: string, clientId: string): Promise<FrameSocket> {
  const socket = await FrameSocket.open(url);
  await socket.expectFrame((frame) => frame.type === "welcome", "welcome");
  socket.send(JSON.stringify({ type: "register", clientId, capabilities: { tools: [] } }));
  await socket.expectFrame((frame) => frame.type === "registration_ack" && frame.status === "accepted", "an accepted registration_ack");
  socket.send(JSON.stringify({ type: "ready" }));
  return socket;
}

let sentinels = 0;

/**
 * Runs one case: sends its frames and then a sentinel ping, collects frames until the sentinel's answer and as many
 * frames as expected have come (or a deadline), and throws with every difference.
 */
export async function runCase(socket: FrameSocket, each: TranscriptCase, endpoint: Endpoint): Promise<void> {
  if (socket.queued > 0)
    throw new Error(`${socket.queued} frame(s) left over from an earlier case: ${JSON.stringify((await socket.take(0))?.frame)}`);
  for (const frame of each.send) {
    const protocolFrame = endpoint === "agent" ? agentProtocolFrame(frame) : null;
    if (protocolFrame) throw new Error(`${each.where}: the agent endpoint reads ${frame} as ${protocolFrame}; mark the case @only rpc`);
  }
  for (const frame of each.send) socket.send(frame);
  const sentAt = performance.now();
  const { received, sawSentinel } = await collectAnswers(socket, each.expect.length, sentAt + FRAME_WAIT_MS + (each.withinMs ?? 0));
  const frames = received.map((entry) => entry.frame);
  const problems: string[] = [];
  if (!sawSentinel) problems.push("the sentinel ping sent after the case was never answered");
  const problem = unorderedMismatch({ expected: each.expect, actual: frames }, "frames", (expected, actual) =>
    frameMismatch(expected, actual),
  );
  if (problem) problems.push(describeMismatch(each.expect, frames, problem));
  const last = Math.max(sentAt, ...received.map((entry) => entry.at));
  if (each.withinMs !== null && last - sentAt > each.withinMs)
    problems.push(`the answers took ${Math.round(last - sentAt)} ms; at most ${each.withinMs} ms`);
  if (problems.length > 0) throw new Error(`${each.where}: ${problems.join("\n")}`);
}

/** Sends a sentinel ping and takes frames until its answer and `count` others have come, or the deadline. */
async function collectAnswers(
  socket: FrameSocket,
  count: number,
  deadline: number,
): Promise<{ received: { frame: unknown; at: number }[]; sawSentinel: boolean }> {
  const sentinel = `conformance-sentinel-${++sentinels}`;
  socket.send(JSON.stringify({ jsonrpc: "2.0", method: "ping", id: sentinel }));
  const received: { frame: unknown; at: number }[] = [];
  let sawSentinel = false;
  while (!sawSentinel || received.length < count) {
    const next = await socket.take(deadline);
    if (next === null) break;
    if ((next.frame as { id?: unknown } | null)?.id === sentinel) sawSentinel = true;
    else received.push(next);
  }
  return { received, sawSentinel };
}

function describeMismatch(expected: readonly unknown[], frames: readonly unknown[], problem: string): string {
  const detail = expected.length === 1 && frames.length === 1 ? `\n  ${frameMismatch(expected[0], frames[0])}` : "";
  const lines = (list: readonly unknown[]): string =>
    list.length === 0 ? "  (nothing)" : list.map((frame) => `  ${JSON.stringify(frame)}`).join("\n");
  return `${problem}${detail}\nexpected:\n${lines(expected)}\nreceived:\n${lines(frames)}`;
}
