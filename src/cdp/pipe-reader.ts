import type { OversizedMessage } from "./transport.js";

/** What a PipeReader hands on. */
export interface PipeReaderHandlers {
  message(text: string): void;
  oversized(message: OversizedMessage): void;
}

// Enough of each end of an oversized message to read its id, method and sessionId.
const EDGE_BYTES = 1024;
const NUL = 0;
const HEAD_PATTERNS = { id: /^\{"id":(\d+)[,}]/, method: /^\{"method":"([^"\\]+)"/ };
// Chrome appends the sessionId of a flattened session at the very end of the message it serializes; a value of the
// page cannot end the message that way, as Chrome closes its own objects after it.
const SESSION_ID_AT_END = /,"sessionId":"([^"\\]+)"\}$/;

/** Reads what an oversized message is from its first and last bytes, as Chrome lays them out. */
export function describeOversized(head: string, tail: string, bytes: number): OversizedMessage {
  const id = HEAD_PATTERNS.id.exec(head)?.[1];
  return {
    id: id === undefined ? undefined : Number(id),
    sessionId: SESSION_ID_AT_END.exec(tail)?.[1],
    method: HEAD_PATTERNS.method.exec(head)?.[1],
    bytes,
  };
}

/** The two ends of a message being let go, and how long it was. */
interface Discarding {
  head: Buffer;
  tail: Buffer;
  bytes: number;
}

/**
 * Splits Chrome's pipe output (JSON messages, each ended by a NUL byte) into messages. A message past
 * `maxMessageBytes` is not kept: only its first and last bytes are, so that its command can be failed.
 */
export class PipeReader {
  #maxMessageBytes: number;
  #handlers: PipeReaderHandlers;
  #parts: Buffer[] = [];
  #length = 0;
  #discarding: Discarding | null = null;

  constructor(maxMessageBytes: number, handlers: PipeReaderHandlers) {
    this.#maxMessageBytes = maxMessageBytes;
    this.#handlers = handlers;
  }

  /** Reads one chunk from the pipe; hands on every message it completes, in order. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NUL, start); end !== -1; end = chunk.indexOf(NUL, start)) {
      this.#keep(chunk.subarray(start, end));
      this.#finish();
      start = end + 1;
    }
    if (start < chunk.length) this.#keep(chunk.subarray(start));
  }

  /** How many bytes of an unfinished message are held. */
  get heldBytes(): number {
    return this.#discarding ? this.#discarding.head.length + this.#discarding.tail.length : this.#length;
  }

  #keep(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#discarding) {
      this.#discarding.bytes += part.length;
      this.#discarding.tail = lastBytes(this.#discarding.tail, part);
      return;
    }
    this.#parts.push(part);
    this.#length += part.length;
    if (this.#length > this.#maxMessageBytes) this.#startDiscarding();
  }

  #startDiscarding(): void {
    this.#discarding = { head: firstBytes(this.#parts), tail: this.#parts.reduce(lastBytes, Buffer.alloc(0)), bytes: this.#length };
    this.#parts = [];
    this.#length = 0;
  }

  #finish(): void {
    const discarded = this.#discarding;
    const parts = this.#parts;
    const length = this.#length;
    this.#discarding = null;
    this.#parts = [];
    this.#length = 0;
    if (discarded) {
      this.#handlers.oversized(describeOversized(discarded.head.toString("utf8"), discarded.tail.toString("utf8"), discarded.bytes));
    } else if (length > 0) {
      const whole = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, length);
      this.#handlers.message(whole.toString("utf8"));
    }
  }
}

// The ends are copies: they must not keep alive the big chunks they were cut from.
function firstBytes(parts: readonly Buffer[]): Buffer {
  const head: Buffer[] = [];
  let length = 0;
  for (const part of parts) {
    if (length >= EDGE_BYTES) break;
    head.push(part.subarray(0, EDGE_BYTES - length));
    length += Math.min(part.length, EDGE_BYTES - length);
  }
  return Buffer.concat(head, length);
}

function lastBytes(tail: Buffer, part: Buffer): Buffer {
  if (part.length >= EDGE_BYTES) return Buffer.from(part.subarray(-EDGE_BYTES));
  return Buffer.concat([tail, part]).subarray(-EDGE_BYTES);
}
