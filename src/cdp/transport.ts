/**
 * The most bytes one message from Chrome may have. A CDP answer is held whole (its bytes, then its string, then
 * its parsed value) before anyone can look at it, and V8 refuses strings past about 512 MiB: half of that leaves
 * room for the copies and is far beyond any answer a caller should want (results are capped much lower).
 */
export const CDP_MESSAGE_MAX_BYTES = 256 * 1024 * 1024;

/** What is known of a message from Chrome that was too large to keep: read from its first and last bytes. */
export interface OversizedMessage {
  /** The command it answers; undefined for an event. */
  id: number | undefined;
  /** The flattened session it belongs to, if any. */
  sessionId: string | undefined;
  /** The event's name, when it is an event. */
  method: string | undefined;
  /** Its size in bytes. */
  bytes: number;
}

/** What a transport reports to its connection. */
export interface TransportListener {
  /** One whole message from Chrome, as JSON text. */
  message(text: string): void;
  /** A message past the cap: its bytes were let go as they arrived. */
  oversized(message: OversizedMessage): void;
  /** The transport closed (Chrome went away, or `close` was called); reported once. */
  closed(): void;
}

/** How CdpConnection reaches Chrome: a pipe to the embedded Chrome or a WebSocket to a Chrome the user runs. */
export interface CdpTransport {
  /** Where Chrome is, for messages and logs. */
  readonly description: string;
  /** The most bytes one message from Chrome may have. */
  readonly maxMessageBytes: number;
  /** Starts delivering Chrome's messages to `listener`; called once. */
  listen(listener: TransportListener): void;
  /** Sends one JSON message; messages sent in one tick leave in one write. */
  send(text: string): void;
  /** Closes the transport; `closed` follows. */
  close(): void;
}
