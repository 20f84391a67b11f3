import { tooDeep } from "../rpc/nesting.js";
import type { DropCounter, DropReason } from "./drop-counter.js";
import { MAX_MESSAGE_DEPTH, parseClusterMessage } from "./message-shape.js";
import { keys, type ClusterMessage } from "./messages.js";
import { ReplayGuard } from "./replay-guard.js";
import { MessageSigner } from "./signed-envelope.js";

/**
 * How far a message's timestamp may be from the receiver's clock, either way. It covers what instances' clocks
 * differ by (NTP keeps them within milliseconds; a VM resumed from a pause can be seconds off) and how late Redis
 * may deliver behind a backlog, while the nonces kept against replays stay a minute or so of traffic.
 */
export const REPLAY_WINDOW_MS = 30_000;

/** Raised when a message cannot be sent: over CLUSTER_MAX_MESSAGE_BYTES, or nested too deep to write. */
export class UnsendableMessageError extends Error {
  constructor(
    readonly reason: Extract<DropReason, "too_large" | "malformed">,
    /** The message's size in bytes (Infinity when it was too big to write at all). */
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(
      reason === "too_large"
        ? `a cluster message of ${describeBytes(bytes)} is over CLUSTER_MAX_MESSAGE_BYTES (${maxBytes})`
        : `a cluster message nests deeper than ${MAX_MESSAGE_DEPTH} levels`,
    );
    this.name = "UnsendableMessageError";
  }
}

/** What the codec needs: the shared secret, who this instance is, the size cap, and where drops are counted. */
export interface ClusterCodecOptions {
  secret: string;
  instanceId: string;
  maxMessageBytes: number;
  drops: DropCounter;
  now?: () => number;
}

/**
 * The one gate between an instance and Redis: every message it sends is sized and signed here, and every message
 * it receives is sized, verified (signature, age, recipient, replay), then parsed and checked before anything
 * reads it. What fails is counted by reason and goes no further.
 */
export class ClusterCodec {
  readonly maxMessageBytes: number;
  #signer: MessageSigner;
  #replays = new ReplayGuard(REPLAY_WINDOW_MS);
  #drops: DropCounter;
  #me: string;
  #inbox: string;
  #now: () => number;

  constructor(options: ClusterCodecOptions) {
    this.maxMessageBytes = options.maxMessageBytes;
    this.#signer = new MessageSigner(options.secret);
    this.#drops = options.drops;
    this.#me = options.instanceId;
    this.#inbox = keys.inbox(options.instanceId);
    this.#now = options.now ?? Date.now;
  }

  /** The signed wire text of a message for `to` (an instance, "*", "@<target>" or "@@<clientId>"); throws UnsendableMessageError (counted). */
  encode(message: ClusterMessage, to: string): string {
    const max = this.maxMessageBytes;
    // An answer is mostly its response text, measured before it is copied into a bigger string that could not be written.
    const floor = message.type === "answer" ? Buffer.byteLength(message.response) : 0;
    if (floor > max) throw this.#refuse(new UnsendableMessageError("too_large", floor, max));
    if (tooDeep(message, MAX_MESSAGE_DEPTH) !== null) throw this.#refuse(new UnsendableMessageError("malformed", 0, max));
    let body: string;
    try {
      body = JSON.stringify(message);
    } catch {
      throw this.#refuse(new UnsendableMessageError("too_large", Number.POSITIVE_INFINITY, max));
    }
    if (body.length > max) throw this.#refuse(new UnsendableMessageError("too_large", Buffer.byteLength(body), max));
    const text = this.#signer.seal(body, to, this.#now());
    const bytes = Buffer.byteLength(text);
    if (bytes > max) throw this.#refuse(new UnsendableMessageError("too_large", bytes, max));
    return text;
  }

  /** The message a wire text from `channel` carries, or null when it is dropped (counted by reason). */
  decode(text: string, channel: string): ClusterMessage | null {
    const checked = this.#check(text, channel);
    if (typeof checked !== "string") return checked;
    this.#drops.drop(checked);
    return null;
  }

  /** How many nonces the replay guard holds now. */
  get rememberedNonces(): number {
    return this.#replays.size;
  }

  #check(text: string, channel: string): ClusterMessage | DropReason {
    // A string's length never exceeds its UTF-8 size: the cheap test first.
    if (text.length > this.maxMessageBytes || Buffer.byteLength(text) > this.maxMessageBytes) return "too_large";
    const opened = this.#signer.open(text);
    if (typeof opened === "string") return opened;
    const now = this.#now();
    if (Math.abs(now - opened.timestampMs) > REPLAY_WINDOW_MS) return "stale";
    // Signed for another instance (or the events channel) and republished here: a replay of a real message.
    if (!this.#isForMe(opened.to, channel)) return "replayed";
    if (!this.#replays.take(opened.nonce, opened.timestampMs, now)) return "replayed";
    const message = parseClusterMessage(opened.body);
    if (message === null) return "malformed";
    // No instance sends itself a message: one from this instance in its inbox was captured and sent back.
    if (channel === this.#inbox && "from" in message && message.from === this.#me) return "replayed";
    // "@<target>" is a call for whoever owns that target, "@@<clientId>" one for whoever keeps that client: the body
    // must be that call.
    if (opened.to.startsWith("@") && !isCallFor(message, opened.to)) return "malformed";
    return message;
  }

  #isForMe(to: string, channel: string): boolean {
    if (to === "*") return channel === keys.events;
    return channel === this.#inbox && (to === this.#me || to.startsWith("@"));
  }

  #refuse(error: UnsendableMessageError): UnsendableMessageError {
    this.#drops.drop(error.reason);
    return error;
  }
}

// Whether a message is the call an "@<target>" or "@@<clientId>" address says it is.
function isCallFor(message: ClusterMessage, to: string): boolean {
  if (message.type !== "call") return false;
  const { target, clientId } = message.params;
  if (!to.startsWith("@@")) return target === to.slice(1);
  const client = to.slice(2);
  return clientId === client || (clientId === undefined && typeof target === "string" && target.startsWith(`${client}:`));
}

/** "N bytes", or that the value was too big to write at all. */
export function describeBytes(bytes: number): string {
  return Number.isFinite(bytes) ? `${bytes} bytes` : "more bytes than a string can hold";
}
