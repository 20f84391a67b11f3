import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createClient, type RedisClientOptions } from "redis";
import { log } from "../log.js";

type RedisClient = ReturnType<typeof createClient>;

/** Raised when Redis cannot answer a command now (down, reconnecting, or too slow). */
export class RedisUnavailableError extends Error {
  constructor(what: string) {
    super(`Redis is unreachable (${what})`);
    this.name = "RedisUnavailableError";
  }
}

/** What the link listens to, and what it tells its owner about the connection to Redis. */
export interface RedisLinkOptions {
  url: string;
  /** REDIS_CA_FILE: the CA a rediss:// server's certificate is checked against (null: the system's CAs). */
  caFile: string | null;
  channels: string[];
  onMessage(message: string, channel: string): void;
  /** Both connections are up and subscribed (after the first connect or a reconnect). */
  onReady(): void;
  /** The subscriber connection dropped: messages published meanwhile are lost. */
  onDown(): void;
}

// Back off quickly to at most one try a second, so a restarted Redis is found again within a second.
const RECONNECT_MAX_MS = 1_000;
const CONNECT_WAIT_MS = 3_000;

/**
 * Two connections to one Redis: one for commands and publishing, one for subscriptions (Redis puts a subscribed
 * connection in a mode of its own). Commands never queue while Redis is away, and every one has a deadline.
 */
export class RedisLink {
  #options: RedisLinkOptions;
  #commands: RedisClient;
  #subscriber: RedisClient;
  #subscribed = false;
  #subscribing: Promise<void> | null = null;
  #shas = new Map<string, string>();
  #lastError = "";
  #firstReady: Promise<void>;

  constructor(options: RedisLinkOptions) {
    this.#options = options;
    this.#commands = createClient(redisClientOptions(options.url, options.caFile));
    this.#subscriber = this.#commands.duplicate();
    let ready = (): void => {};
    this.#firstReady = new Promise((resolve) => (ready = resolve));
    for (const client of [this.#commands, this.#subscriber]) {
      client.on("error", (error: Error) => this.#onError(error));
      client.on("ready", () => void this.#onClientReady().then(() => this.isReady && ready()));
    }
    this.#subscriber.on("reconnecting", () => options.onDown());
  }

  /** Connects, waiting a few seconds at most: a hub starts even while Redis is down, and joins once it is up. */
  async connect(): Promise<void> {
    for (const client of [this.#commands, this.#subscriber]) client.connect().catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#firstReady, new Promise<void>((resolve) => (timer = setTimeout(resolve, CONNECT_WAIT_MS)))]);
    clearTimeout(timer);
    if (!this.isReady) log.warn("cluster: Redis is not reachable yet; this instance serves its own targets and joins once it is");
  }

  /** Whether commands can be sent now. */
  get isReady(): boolean {
    return this.#commands.isReady && this.#subscriber.isReady && this.#subscribed;
  }

  /** Sends one command; rejects with RedisUnavailableError when Redis is away or has not answered within `timeoutMs`. */
  command(args: string[], timeoutMs: number): Promise<unknown> {
    if (!this.#commands.isReady) return Promise.reject(new RedisUnavailableError("not connected"));
    return withDeadline(this.#commands.sendCommand(args), timeoutMs, args[0] ?? "command");
  }

  /** Runs a Lua script by its digest, loading it when Redis does not have it (after a restart). */
  async script(source: string, input: { keys: string[]; args: string[] }, timeoutMs: number): Promise<unknown> {
    const { keys, args } = input;
    let sha = this.#shas.get(source);
    if (!sha) this.#shas.set(source, (sha = createHash("sha1").update(source).digest("hex")));
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.command(["EVALSHA", sha, ...tail], timeoutMs);
    } catch (error) {
      if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      return this.command(["EVAL", source, ...tail], timeoutMs);
    }
  }

  /** Publishes a message; resolves with how many subscribers got it. */
  async publish(channel: string, message: string, timeoutMs: number): Promise<number> {
    return Number(await this.command(["PUBLISH", channel, message], timeoutMs));
  }

  /** Closes both connections. */
  close(): void {
    for (const client of [this.#commands, this.#subscriber]) {
      if (client.isOpen) client.destroy();
    }
  }

  async #onClientReady(): Promise<void> {
    this.#lastError = "";
    if (this.#subscriber.isReady) await (this.#subscribing ??= this.#subscribe());
    if (this.isReady) this.#options.onReady();
  }

  // Subscribed once (both clients' ready events come here); after a reconnect the client subscribes again by itself.
  async #subscribe(): Promise<void> {
    try {
      await this.#subscriber.subscribe(this.#options.channels, (message, channel) => this.#options.onMessage(message, channel));
      this.#subscribed = true;
    } catch (error) {
      this.#subscribing = null;
      log.warn("cluster: cannot subscribe", { error: (error as Error).message });
    }
  }

  #onError(error: Error): void {
    // A reconnecting client reports every failed try; one line per distinct problem is enough.
    if (error.message !== this.#lastError) log.warn("cluster: Redis connection problem", { error: error.message });
    this.#lastError = error.message;
  }
}

/** The options of the link's Redis clients: TLS with REDIS_CA_FILE as the only CA when it is set (rediss:// only). */
export function redisClientOptions(url: string, caFile: string | null): RedisClientOptions {
  const reconnectStrategy = (retries: number): number => Math.min(50 * 2 ** retries, RECONNECT_MAX_MS);
  const common = { reconnectStrategy, connectTimeout: CONNECT_WAIT_MS };
  // The URL's rediss:// turns TLS on; the CA replaces the system's, so only a server that CA signed is accepted.
  const socket = caFile === null ? common : { ...common, tls: true as const, ca: readFileSync(caFile) };
  return { url, disableOfflineQueue: true, socket };
}

function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RedisUnavailableError(`${what} got no answer within ${timeoutMs} ms`)), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(
          error instanceof Error && !/^(NOSCRIPT|ERR|WRONGTYPE)/.test(error.message)
            ? new RedisUnavailableError(error.message)
            : (error as Error),
        );
      },
    );
  });
}
