import { randomBytes, timingSafeEqual } from "node:crypto";
import type { LookupFunction } from "node:net";
import { RequestError, Server, type PrepareRequestFunctionOpts, type PrepareRequestFunctionResult } from "proxy-chain";
import { log } from "../log.js";
import { decideEgress, type NamedPolicy } from "./egress-decision.js";

/** A request the proxy refused: the client's, the URL (or `host:port` for a tunnel), and the rule of the policy. */
export interface EgressRefusal {
  clientId: string;
  url: string;
  host: string;
  port: number;
  policy: string;
  rule: string;
  /** When it was refused (epoch milliseconds). */
  at: number;
}

/** What one client's proxy asks its owner at each request. */
export interface EgressProxyOptions {
  clientId: string;
  /** Every policy that applies now (read at each request, so a narrowing holds from the next one on). */
  policies(): readonly NamedPolicy[];
  /** The upstream proxy the allowed traffic leaves through, if any. */
  upstreamProxy(): string | undefined;
  hosts: ReadonlyMap<string, string>;
  onRefused(refusal: EgressRefusal): void;
}

/** The name of the proxy's credential: only the password is secret. */
export const EGRESS_PROXY_USER = "tabwire";

/**
 * One policed client's egress proxy (proxy-chain): on 127.0.0.1, a random port, with a random password of its own so
 * that no other local process or client can use it; every request and CONNECT is decided by the client's policies,
 * the name resolved here and the connection made to that very address, so a DNS answer cannot change in between.
 */
export class EgressProxy {
  readonly password = randomBytes(24).toString("base64url");
  #options: EgressProxyOptions;
  #server: Server;

  constructor(options: EgressProxyOptions) {
    this.#options = options;
    this.#server = new Server({
      port: 0,
      host: "127.0.0.1",
      authRealm: "tabwire egress",
      prepareRequestFunction: (request) => this.#prepare(request),
    });
    // proxy-chain reports failures of allowed requests (a target that refused, a reset): the page sees them as such.
    // Only the error's code: a message about the upstream proxy may carry its URL, and with it its password.
    this.#server.on("requestFailed", ({ error }: { error: NodeJS.ErrnoException }) =>
      log.debug("egress proxy request failed", { clientId: options.clientId, code: error.code ?? error.name }),
    );
  }

  /** Starts listening; resolves to the port. */
  async listen(): Promise<number> {
    await this.#server.listen();
    return this.#server.port;
  }

  /** `http://127.0.0.1:<port>`, for Target.createBrowserContext. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.port}`;
  }

  /** Ends every open connection and tunnel, so that the next request is decided by the policies of now. */
  cut(): void {
    this.#server.closeConnections();
  }

  /** Stops the proxy and ends its connections. */
  async close(): Promise<void> {
    await this.#server.close(true);
  }

  async #prepare(request: PrepareRequestFunctionOpts): Promise<PrepareRequestFunctionResult> {
    if (!this.#isOwner(request.username, request.password)) return { requestAuthentication: true };
    const { hostname, port, isHttp } = request;
    const upstream = this.#options.upstreamProxy();
    const decision = await decideEgress(
      this.#options.policies(),
      { host: hostname, port, scheme: isHttp ? "http" : "https" },
      { hosts: this.#options.hosts, viaUpstream: upstream !== undefined },
    );
    const url = isHttp ? (request.request.url ?? `http://${hostname}:${port}/`) : `${hostname}:${port}`;
    if (!decision.allowed) {
      const { host, policy, rule } = decision;
      this.#options.onRefused({ clientId: this.#options.clientId, url, host, port, policy, rule, at: Date.now() });
      // A proxy's answer to a plain HTTP request is shown to the page as the site's own: end it without one, so
      // the browser sees a network error. A refused CONNECT is a failed tunnel either way.
      if (isHttp) request.request.socket.destroy();
      throw new RequestError(`refused by the egress policy (${policy}: ${rule})`, 403);
    }
    if (upstream !== undefined) return { upstreamProxyUrl: upstream };
    return decision.address === null ? {} : { dnsLookup: pinnedLookup(decision.address) as never };
  }

  #isOwner(username: string, password: string): boolean {
    const given = Buffer.from(password);
    const expected = Buffer.from(this.password);
    return username === EGRESS_PROXY_USER && given.length === expected.length && timingSafeEqual(given, expected);
  }
}

// The lookup the connection uses: the address the policy was checked against, whatever DNS says by now.
function pinnedLookup(address: string): LookupFunction {
  const family = address.includes(":") ? 6 : 4;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
