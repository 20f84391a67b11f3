import type { DropReason } from "../../src/cluster/drop-counter.js";
import { MessageSigner } from "../../src/cluster/signed-envelope.js";
import { Rng } from "./fuzz-rules.js";
import { deepJson } from "./redis-outsider.js";

/** What an instance does with a fuzzed message: drops it for a reason (counted in /metrics), or takes it (harmless). */
export type Fate = DropReason | "taken";

/** One fuzzed message: where it goes, its bytes, and what each instance that receives it must do with it. */
export interface FuzzMessage {
  category: string;
  channel: string;
  message: string | Buffer;
  fate: Fate;
}

/** A real message of the cluster seen on Redis, kept to be replayed. */
export interface Captured {
  text: string;
  seenAtMs: number;
}

/** What the generator needs: the seed, the secret, the instances, the control client's tabs, and the size cap. */
export interface RedisFuzzOptions {
  seed: number;
  secret: string;
  instances: readonly string[];
  /** Tabs an accepted forged call would harm: the control client's. */
  victims: readonly string[];
  maxMessageBytes: number;
  /** Real messages captured lately, for replays (the generator takes them out as it uses them). */
  captured: Captured[];
}

/** The channel an outsider's forged calls ask their answers on: nothing may ever be published there. */
export const FUZZ_SENDER = "fuzzer";
const EVENTS = "tabwire:events";
// Messages signed this far from now are stale by a wide margin, whatever the publishing delay.
const STALE_MIN_MS = 40_000;
// Captured messages are replayed only while they are well within the 30 s window (else they would be stale).
const REPLAY_WITHIN_MS = 15_000;
const GARBAGE = [
  "",
  " ",
  "null",
  "{",
  "}",
  "[1,]",
  '{"type":"call"',
  "tw1",
  "tw1\n{}",
  "TW1 x",
  '{"type":"answer","id":1}',
  "\u0000",
  "\ud800",
  "\ufeff{}",
  "1e999",
  '"call"',
];
const CATEGORIES: [string, number][] = [
  ["randomBytes", 12],
  ["brokenJson", 12],
  ["unsigned", 20],
  ["forged", 15],
  ["stale", 10],
  ["badHeader", 5],
  ["signedMalformed", 8],
  ["misdirected", 5],
  ["replay", 8],
  ["harmless", 4],
  ["huge", 0.15],
  ["deep", 0.15],
];

/** Seeded random and malformed messages for a cluster's Redis channels, each with what the instances must do with it. */
export class RedisMessageGenerator {
  readonly rng: Rng;
  #options: RedisFuzzOptions;
  #signer: MessageSigner;
  #wrongKey = new MessageSigner("not-the-cluster-secret");
  #total: number;

  constructor(options: RedisFuzzOptions) {
    this.rng = new Rng(options.seed);
    this.#options = options;
    this.#signer = new MessageSigner(options.secret);
    this.#total = CATEGORIES.reduce((sum, [, weight]) => sum + weight, 0);
  }

  /** The next message. */
  next(): FuzzMessage {
    const channel = this.#channel();
    const category = this.#category();
    const built = this.#build(category, channel);
    return { category: built.variant ? `${category}/${built.variant}` : category, channel, message: built.message, fate: built.fate };
  }

  #build(category: string, channel: string): { message: string | Buffer; fate: Fate; variant?: string } {
    const { rng } = this;
    switch (category) {
      case "randomBytes":
        return { message: Buffer.from(Array.from({ length: rng.int(1, 200) }, () => rng.int(0, 255))), fate: "unsigned" };
      case "brokenJson":
        return { message: rng.chance(0.5) ? rng.pick(GARBAGE) : JSON.stringify(this.#shaped()).slice(0, rng.int(0, 60)), fate: "unsigned" };
      case "unsigned":
        return { message: JSON.stringify(this.#shaped()), fate: "unsigned" };
      case "forged":
        return { message: this.#wrongKey.seal(JSON.stringify(this.#shaped()), this.#recipient(channel)), fate: "forged" };
      case "stale": {
        const offset = rng.int(STALE_MIN_MS, 3_600_000) * (rng.chance(0.5) ? -1 : 1);
        return { message: this.#signer.seal(JSON.stringify(this.#shaped()), this.#recipient(channel), Date.now() + offset), fate: "stale" };
      }
      case "badHeader":
        return {
          message: rng.pick([`tw1 ${rng.text("abc 0123", 0, 40)}`, `tw1 1 2 3\n{}`, `tw1 ${Date.now()} x y z w\n{}`]),
          fate: "malformed",
        };
      case "signedMalformed":
        return { message: this.#signedMalformed(channel), fate: "malformed" };
      case "misdirected":
        return { message: this.#signer.seal(JSON.stringify(this.#harmless()), this.#elsewhere(channel)), fate: "replayed" };
      case "replay":
        return this.#replay();
      case "harmless":
        return { message: this.#signer.seal(JSON.stringify(this.#harmless(channel)), this.#recipient(channel)), fate: "taken" };
      case "huge":
        return {
          message: `{"type":"notify","conn":"c","method":"m","params":{"x":"${"x".repeat(rng.int(this.#options.maxMessageBytes + 1, 600_000))}"}}`,
          fate: "too_large",
        };
      default:
        return { message: `{"type":"notify","conn":"c","method":"m","params":${deepJson(100_000)}}`, fate: "too_large" };
    }
  }

  // A well-formed message of any type with random fields; a call is one that would harm the control client.
  #shaped(): Record<string, unknown> {
    const { rng } = this;
    const id = rng.text("abcdef0123456789", 1, 32);
    const target = rng.chance(0.7) ? rng.pick(this.#options.victims) : `${rng.text("abc", 1, 5)}:${rng.text("ABCDEF0123456789", 32, 32)}`;
    const harm = rng.pick([
      { method: "evaluate", params: { target, expression: "window.__fuzzMarker = 'pwned'" } },
      { method: "tabs.close", params: { target } },
      { method: "navigate", params: { target, url: "about:blank" } },
    ]);
    return rng.pick([
      { type: "call", id, from: FUZZ_SENDER, conn: id, scope: null, peer: "fuzz", ...harm },
      {
        type: "answer",
        id,
        from: rng.pick(this.#options.instances),
        response: JSON.stringify({ jsonrpc: "2.0", id, result: { value: "forged" } }),
      },
      { type: "notify", conn: id, method: "console.message", params: { text: "forged" } },
      { type: "cancel", id, from: FUZZ_SENDER, conn: id },
      { type: "closed", from: FUZZ_SENDER, conn: id },
      { type: "evict", target, epoch: "99999999999999999" },
      { type: "event", from: FUZZ_SENDER, topic: "tabs", clientId: "control", method: "tab.closed", params: { target, reason: "closed" } },
    ]);
  }

  // Signed with the secret but harmless if taken: nothing in the cluster is called by these ids and connections.
  #harmless(channel = EVENTS): Record<string, unknown> {
    const id = this.rng.text("abcdef0123456789", 8, 32);
    if (channel === EVENTS)
      return {
        type: "event",
        from: FUZZ_SENDER,
        topic: "tabs",
        clientId: `fuzz${id}`,
        method: "tab.opened",
        params: { target: `fuzz${id}:X` },
      };
    return this.rng.pick([
      { type: "answer", id, from: FUZZ_SENDER, response: "{}" },
      { type: "notify", conn: id, method: "console.message", params: { text: "x" } },
      { type: "cancel", id, from: FUZZ_SENDER, conn: id },
      { type: "closed", from: FUZZ_SENDER, conn: id },
    ]);
  }

  #signedMalformed(channel: string): string {
    const { rng } = this;
    const to = this.#recipient(channel);
    const bodies = [
      "{not json",
      "[]",
      "null",
      JSON.stringify({ type: "unknown", id: "x" }),
      JSON.stringify({ type: "call", id: 5, from: FUZZ_SENDER }),
      JSON.stringify({ type: "answer", id: "x", from: "not an id!", response: "{}" }),
      JSON.stringify({ type: "event", from: FUZZ_SENDER, topic: "tabs", clientId: "bad id", method: "m", params: {} }),
    ];
    if (rng.chance(0.02)) bodies.push(`{"type":"notify","conn":"c","method":"m","params":{"deep":${deepJson(20_000)}}}`);
    return this.#signer.seal(rng.pick(bodies), to);
  }

  // A real message seen lately, published again anywhere: every instance must call it a replay.
  #replay(): { message: string | Buffer; fate: Fate; variant: string } {
    const { captured } = this.#options;
    const fresh = captured.filter((message) => Date.now() - message.seenAtMs < REPLAY_WITHIN_MS);
    captured.splice(0, captured.length, ...fresh.slice(-50));
    const message = captured.length > 0 ? captured[this.rng.int(0, captured.length - 1)] : undefined;
    if (!message)
      return { message: this.#wrongKey.seal(JSON.stringify(this.#shaped()), "*"), fate: "forged", variant: "nothing captured yet" };
    return { message: message.text, fate: "replayed", variant: message.text.includes(`"type":"answer"`) ? "answer" : "call" };
  }

  // The recipient an honest sender would sign for on this channel.
  #recipient(channel: string): string {
    return channel === EVENTS ? "*" : channel.slice("tabwire:to:".length);
  }

  // A recipient that is not the channel's: another instance, a stranger, or "*" in an inbox.
  #elsewhere(channel: string): string {
    const own = this.#recipient(channel);
    return this.rng.pick(["*", "three", ...this.#options.instances].filter((to) => to !== own));
  }

  #channel(): string {
    const { instances } = this.#options;
    const pick = this.rng.int(0, instances.length);
    return pick === instances.length ? EVENTS : `tabwire:to:${instances[pick] as string}`;
  }

  #category(): string {
    let left = this.rng.next() * this.#total;
    for (const [name, weight] of CATEGORIES) if ((left -= weight) < 0) return name;
    return "randomBytes";
  }
}
