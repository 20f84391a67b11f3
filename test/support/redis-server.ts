import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";

/** A redis-server child on a loopback port, with no persistence. */
export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:<port>, or rediss:// with TLS */
  url: string;
  /** Stops it (SIGKILL: Redis is gone at once, as in a crash) and waits for the process to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Stops it for good. */
  stop(): Promise<void>;
}

const REDIS_SERVER = "/usr/bin/redis-server";
const START_TIMEOUT_MS = 10_000;

/** Fails at once, with the install command, when the test machine has no redis-server. */
export function requireRedisServer(): void {
  if (existsSync(REDIS_SERVER)) return;
  throw new Error("redis-server is missing: install it with `sudo apt-get install -y redis-server` (or run `npm run setup`)");
}

/** The PEM files of a TLS Redis: its certificate and key, and the CA that signed it. */
export interface RedisTlsFiles {
  certFile: string;
  keyFile: string;
  caFile: string;
}

/** Starts `redis-server` on a free loopback port (no RDB, no AOF), TLS only when `tls` is given, and waits until it accepts connections. */
export async function startRedisServer(options: { tls?: RedisTlsFiles } = {}): Promise<RedisServer> {
  requireRedisServer();
  const port = await freePort();
  const { tls } = options;
  const listen = tls
    ? [
        "--port",
        "0",
        "--tls-port",
        String(port),
        "--tls-cert-file",
        tls.certFile,
        "--tls-key-file",
        tls.keyFile,
        "--tls-ca-cert-file",
        tls.caFile,
        "--tls-auth-clients",
        "no",
      ]
    : ["--port", String(port)];
  let child = await launch(listen);
  return {
    port,
    url: `${tls ? "rediss" : "redis"}://127.0.0.1:${port}`,
    kill: () => exited(child, "SIGKILL"),
    async restart() {
      if (child.exitCode === null && child.signalCode === null) await exited(child, "SIGKILL");
      child = await launch(listen);
    },
    stop: () => exited(child, "SIGTERM"),
  };
}

async function launch(listen: string[]): Promise<ChildProcess> {
  const args = [...listen, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"];
  const child = spawn(REDIS_SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms: ${seen.slice(-500)}`)),
      START_TIMEOUT_MS,
    );
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.once("exit", (code) => fail(new Error(`redis-server exited with ${code}: ${seen.slice(-500)}`)));
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (!seen.includes("Ready to accept connections")) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.stdout?.off("data", onData);
      resolve();
    };
    child.stdout?.on("data", onData);
  });
  // Keep reading its log so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  return done;
}

/** A port nothing listens on now (the kernel picks it; redis-server binds it right after). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
