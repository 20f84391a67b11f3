import { createClient } from "redis";
import { MessageSigner } from "../../src/cluster/signed-envelope.js";

/** TLS settings of the outsider's connection (a rediss:// Redis). */
type TlsSocket = { tls: true; ca: Buffer };

function outsiderClient(url: string, socket: TlsSocket | undefined) {
  return createClient({ url, socket: socket ?? {} });
}

type RedisClient = ReturnType<typeof outsiderClient>;

/** How an outsider connects: the channels it reads (a glob), TLS for rediss://, and which messages it keeps. */
export interface OutsiderOptions {
  pattern?: string;
  socket?: TlsSocket;
  /** Keeps only the messages this accepts (default all): a long run keeps what it needs. */
  keep?: (channel: string, text: string) => boolean;
}

/** One message seen on a cluster channel: the channel, the wire text, and its body (the text after the header). */
export interface SeenMessage {
  channel: string;
  text: string;
  body: string;
}

/** What an outsider publishes: a channel and a message (text, or raw bytes). */
export interface Publication {
  channel: string;
  message: string | Buffer;
}

const WATCH_TIMEOUT_MS = 10_000;
// Publications in flight at once: node-redis pipelines the commands of one tick into a few writes.
const PIPELINE_DEPTH = 2_000;

/**
 * Someone with access to the cluster's Redis but not its secret: reads every message on the cluster's channels
 * and publishes whatever it likes on them.
 */
export class RedisOutsider {
  readonly seen: SeenMessage[] = [];
  #publisher: RedisClient;
  #watcher: RedisClient;
  #waiters = new Set<() => void>();
  #keep: (channel: string, text: string) => boolean;

  private constructor(publisher: RedisClient, watcher: RedisClient, keep: (channel: string, text: string) => boolean) {
    this.#publisher = publisher;
    this.#watcher = watcher;
    this.#keep = keep;
  }

  /** Connects to Redis and starts reading every channel that matches the pattern (default every cluster channel). */
  static async connect(url: string, options: OutsiderOptions = {}): Promise<RedisOutsider> {
    const { pattern = "tabwire:*", socket, keep = () => true } = options;
    const publisher = outsiderClient(url, socket);
    publisher.on("error", () => {});
    await publisher.connect();
    const watcher = publisher.duplicate();
    watcher.on("error", () => {});
    await watcher.connect();
    const outsider = new RedisOutsider(publisher, watcher, keep);
    await watcher.pSubscribe(pattern, (text, channel) => outsider.#take(channel, text));
    return outsider;
  }

  /** Publishes one message; resolves with how many subscribers got it. */
  publish(channel: string, message: string | Buffer): Promise<number> {
    return this.#publisher.publish(channel, message);
  }

  /** Publishes many messages pipelined, a bounded number in flight at once. */
  async publishAll(publications: readonly Publication[]): Promise<void> {
    for (let from = 0; from < publications.length; from += PIPELINE_DEPTH) {
      await Promise.all(
        publications.slice(from, from + PIPELINE_DEPTH).map(({ channel, message }) => this.#publisher.publish(channel, message)),
      );
    }
  }

  /** Sends a raw command (for reading the cluster's keys). */
  command(args: string[]): Promise<unknown> {
    return this.#publisher.sendCommand(args);
  }

  /** Waits for a message seen on a channel that matches, with a deadline; it may have been seen already. */
  async waitFor(match: (message: SeenMessage) => boolean, what: string, timeoutMs = WATCH_TIMEOUT_MS): Promise<SeenMessage> {
    const found = (): SeenMessage | undefined => this.seen.find(match);
    return (
      found() ??
      new Promise<SeenMessage>((resolve, reject) => {
        const check = (): void => {
          const message = found();
          if (!message) return;
          finish();
          resolve(message);
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`${what} was not seen on Redis within ${timeoutMs} ms`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(check);
        };
        this.#waiters.add(check);
      })
    );
  }

  /** Disconnects both connections. */
  async close(): Promise<void> {
    await Promise.all([this.#watcher, this.#publisher].map((client) => (client.isOpen ? client.close() : Promise.resolve())));
  }

  #take(channel: string, text: string): void {
    if (!this.#keep(channel, text)) return;
    const newline = text.indexOf("\n");
    this.seen.push({ channel, text, body: newline < 0 ? text : text.slice(newline + 1) });
    for (const check of [...this.#waiters]) check();
  }
}

/** The JSON body of a seen message as an object (cluster messages are objects). */
export function bodyOf(message: SeenMessage): Record<string, unknown> {
  return JSON.parse(message.body) as Record<string, unknown>;
}

/** Signs `body` as an instance would, with the given secret and time: what someone who stole a secret could send. */
export function signed(secret: string, body: unknown, envelope: { to: string; atMs?: number }): string {
  return new MessageSigner(secret).seal(typeof body === "string" ? body : JSON.stringify(body), envelope.to, envelope.atMs ?? Date.now());
}

/** A JSON array nested `levels` deep, written without recursion. */
export function deepJson(levels: number): string {
  return `${"[".repeat(levels)}1${"]".repeat(levels)}`;
}
