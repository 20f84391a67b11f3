import { Raw, Rng, toJson } from "./fuzz-rules.js";

/** One frame for the agent endpoint, with what the fuzzer expects of it. */
export interface AgentFuzzFrame {
  data: string | Buffer;
  binary: boolean;
  kind: string;
  /** The id of a request that is owed exactly one answer. */
  id?: string;
  /** The answer must be an error (a call on another client's tab). */
  mustFail?: boolean;
  /** The hub may close the socket for it (a register the hub refuses). */
  mayClose?: boolean;
}

/** What the generator aims at: a tab of the fuzzing agent's client and one of another client. */
export interface AgentFuzzTargets {
  own: string;
  foreign: string;
}

const GARBAGE = ["", " ", "{", "}", "[]", "null", "true", "42", '"x"', "{]", "[{}", "\u0000", '{"type":', "\ud800", "{'a':1}", "NaN"];
const TYPES = [
  "register",
  "auth_verify",
  "ready",
  "ping",
  "status",
  "pong",
  "welcome",
  "registration_ack",
  "error",
  "",
  "REGISTER",
  "x".repeat(300),
];
const METHODS = [
  "ping",
  "clients.list",
  "tabs.list",
  "console.list",
  "evaluate",
  "snapshot",
  "tabs.close",
  "agent.run",
  "nope",
  "__proto__",
  "constructor",
];

/**
 * Seeded frames for an agent socket: control frames of every type with random and hostile members, answers to calls
 * the hub never made, JSON-RPC requests (some on another client's tab), batches, broken JSON, binary junk, and values
 * nested thousands deep. Registers only with a wrong key, so an unregistered socket stays unregistered.
 */
export class AgentFrameGenerator {
  readonly rng: Rng;
  #targets: AgentFuzzTargets;
  #nextId = 1;

  constructor(seed: number, targets: AgentFuzzTargets) {
    this.rng = new Rng(seed);
    this.#targets = targets;
  }

  next(): AgentFuzzFrame {
    const { rng } = this;
    const kind = rng.pick([
      "control",
      "control",
      "control",
      "status",
      "status",
      "request",
      "request",
      "request",
      "answer",
      "batch",
      "garbage",
      "deep",
      "binary",
      "register",
    ]);
    if (kind === "register") return this.#register();
    if (kind === "control") {
      const type = rng.pick(TYPES);
      return { ...this.#text(kind, { type, ...this.#members() }), mayClose: type === "register" };
    }
    if (kind === "status")
      return this.#text(kind, {
        type: "status",
        requestId: rng.chance(0.5) ? rng.text("abc-0123", 1, 36) : undefined,
        status: this.#value(),
        progress: this.#value(),
        message: this.#value(),
      });
    if (kind === "request") return this.#request();
    if (kind === "answer") {
      const id = rng.pick([`hub-${rng.text("0123456789abcdef", 8, 8)}-${rng.int(1, 9)}`, rng.int(0, 1e6), null]);
      return this.#text(
        kind,
        rng.chance(0.5)
          ? { jsonrpc: "2.0", id, result: this.#value() }
          : { jsonrpc: "2.0", id, error: { code: rng.int(-33000, 0), message: this.#value() } },
      );
    }
    if (kind === "batch") return this.#text(kind, [{ jsonrpc: "2.0", method: "ping" }, { type: "ping" }, this.#value()]);
    if (kind === "garbage") return { data: rng.pick(GARBAGE), binary: false, kind };
    if (kind === "deep") {
      const depth = rng.chance(0.02) ? 100_000 : rng.int(100, 3_000);
      const deep = rng.chance(0.5) ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
      return this.#text(kind, {
        type: rng.pick(["status", "ping", "register", "ready"]),
        message: new Raw(deep),
        clientId: rng.chance(0.1) ? new Raw(deep) : "x",
      });
    }
    return { data: Buffer.from(Array.from({ length: rng.int(1, 64) }, () => rng.int(0, 255))), binary: true, kind };
  }

  #register(): AgentFuzzFrame {
    const { rng } = this;
    const clientId = rng.pick([this.#targets.own.split(":")[0] ?? "x", this.#targets.foreign, "a:b:c", "", "../x", "ok-id", 5, null]);
    const frame = {
      type: "register",
      clientId,
      secretKey: rng.chance(0.7) ? rng.text("abcdef", 0, 40) : undefined,
      capabilities: this.#value(),
    };
    return { ...this.#text("register", frame), mayClose: true };
  }

  #request(): AgentFuzzFrame {
    const { rng } = this;
    const method = rng.pick(METHODS);
    const foreign = rng.chance(0.3);
    const target = foreign ? this.#targets.foreign : this.#targets.own;
    const params = rng.pick([
      {},
      { target },
      { target, expression: "1 + 1", timeoutMs: 1_000 },
      { target, bogus: this.#value() },
      this.#value(),
    ]);
    const id = `f${this.#nextId++}`;
    const frame = { jsonrpc: rng.chance(0.9) ? "2.0" : undefined, id, method, params };
    // An answer is owed for a well-formed request; one with a non-object params or a missing version is answered too.
    const mustFail = foreign && typeof params === "object" && params !== null && "target" in params;
    return { ...this.#text("request", frame), id, mustFail };
  }

  #members(): Record<string, unknown> {
    const { rng } = this;
    const members: Record<string, unknown> = {};
    for (let i = rng.int(0, 4); i > 0; i--)
      members[rng.pick(["clientId", "secretKey", "verified", "capabilities", "requestId", "message", "id", "__proto__"])] = this.#value();
    return members;
  }

  #value(): unknown {
    const { rng } = this;
    return rng.pick([
      () => rng.int(-1e9, 1e9),
      () => rng.text('abc ;:{}"\\\u00e9\u2028', 0, 40),
      () => (rng.chance(0.05) ? "y".repeat(rng.int(1_000, 16_000)) : "short"),
      () => null,
      () => rng.chance(0.5),
      () => ({ nested: { list: [1, "two", { three: 3 }] } }),
      () => Array.from({ length: rng.int(0, 20) }, (_, i) => i),
      () => new Raw("1e400"),
      () => undefined,
    ])();
  }

  #text(kind: string, value: unknown): AgentFuzzFrame {
    return { data: toJson(value), binary: false, kind };
  }
}
