import { HubError } from "../errors.js";
import { MAX_FRAME_DEPTH, tooDeep } from "../rpc/nesting.js";
import type { Refusal } from "../transport/access-policy.js";
import type { Grant } from "../transport/auth.js";
import { AgentCalls } from "./agent-calls.js";
import type { AgentRecord, AgentRegistry } from "./agent-registry.js";
import { formatTarget, ID_PATTERN } from "../target-id.js";

/** What the agent protocol needs of the socket it runs on. */
export interface AgentSocket {
  sendFrame(frame: object): void;
  close(code: number, reason: string): void;
  /** Lets the agent's own JSON-RPC calls reach the tabs of its base client (nothing before it registers). */
  setScope(scope: ReadonlySet<string>): void;
}

/** How one agent connection is authenticated and registered. */
export interface AgentHandshakeOptions {
  registry: AgentRegistry;
  /** Checks the key presented in register (null: none): its grant, or the refusal (wrong key, or too many failures). */
  checkKey(secret: string | null): Grant | Refusal;
  /** The AUTH_KEY itself, sent in auth_required only when legacy auth is on. */
  authKey: string | null;
  legacyAuth: boolean;
  /** What the key the upgrade carried reaches (scope null: any client id), or null when the agent must still present one. */
  grant: Grant | null;
  /** Why an agent may not register as `baseId:tabId` with a key of that scope (a tab of another client), or null. */
  refusal(baseId: string, tabId: string, keyScope: ReadonlySet<string> | null): string | null;
  serverId: string;
  version: string;
}

// Composite ids are "base:tab" with two ids of the fixed set, so the longest is 128 + 1 + 128 characters.
const MAX_CLIENT_ID_LENGTH = 257;
const POLICY_VIOLATION = 1008;
let connections = 0;

/**
 * The Browser Operator agent wire protocol on one socket (docs/protocol.md section 6): welcome, register with its
 * authentication, registration_ack, ready, ping/pong; status frames are handed to `onStatus`.
 */
export class AgentHandshake {
  #socket: AgentSocket;
  #options: AgentHandshakeOptions;
  #record: AgentRecord | null = null;
  #pending: { clientId: string; capabilities: unknown } | null = null;
  #calls: AgentCalls;

  constructor(socket: AgentSocket, options: AgentHandshakeOptions) {
    this.#socket = socket;
    this.#options = options;
    this.#calls = new AgentCalls((frame) => socket.sendFrame(frame), `hub-${options.serverId.slice(0, 8)}-${++connections}`);
    socket.sendFrame({ type: "welcome", serverId: options.serverId, version: options.version, timestamp: Date.now() });
  }

  /** The agent, once registered. */
  get record(): AgentRecord | null {
    return this.#record;
  }

  /** Takes a control frame or an answer to one of the hub's calls; false for the rest (JSON-RPC for the router). */
  intercept(frame: Record<string, unknown>): boolean {
    if (typeof frame.type === "string") {
      const deep = tooDeep(frame, MAX_FRAME_DEPTH);
      if (deep === null) this.#onControl(frame);
      else
        this.#socket.sendFrame({
          type: "error",
          message: `the ${String(frame.type).slice(0, 50)} frame nests deeper than ${MAX_FRAME_DEPTH} levels at ${deep.slice(0, 200)}; flatten it`,
        });
      return true;
    }
    return this.#calls.settle(frame);
  }

  #onControl(frame: Record<string, unknown>): void {
    switch (frame.type) {
      case "register":
        return this.#register(frame);
      case "auth_verify":
        return this.#verify(frame);
      case "ready":
        if (this.#record) this.#options.registry.markReady(this.#record);
        return;
      case "ping":
        return this.#socket.sendFrame({ type: "pong", timestamp: Date.now() });
      case "status":
        if (this.#record) this.#options.registry.reportStatus(this.#record, frame);
        return;
      default:
        this.#socket.sendFrame({ type: "error", message: `unknown frame type ${JSON.stringify(String(frame.type).slice(0, 50))}` });
    }
  }

  /** Fails the calls waiting on the agent and forgets it (a newer registration of the tab is left alone). */
  onClose(): void {
    const agent = this.#record?.clientId ?? "the agent";
    this.#calls.close(new HubError("AGENT_UNAVAILABLE", `${agent} disconnected during the call; wait for it to reconnect and retry`));
    if (this.#record) this.#options.registry.remove(this.#record);
  }

  #register(frame: Record<string, unknown>): void {
    const clientId = frame.clientId;
    const problem = checkClientId(clientId) ?? checkCapabilities(frame.capabilities);
    if (problem || typeof clientId !== "string")
      return this.#reject(typeof clientId === "string" ? clientId.slice(0, 300) : null, problem ?? "");
    if (this.#record) return this.#reject(clientId, "this connection has registered already; open a new one per tab");
    const { legacyAuth, authKey, grant } = this.#options;
    if (grant) return this.#admit(clientId, frame.capabilities, grant);
    const secret = typeof frame.secretKey === "string" ? frame.secretKey : null;
    if (secret !== null || !legacyAuth || authKey === null) {
      const checked = this.#options.checkKey(secret);
      return "status" in checked ? this.#reject(clientId, checked.message) : this.#admit(clientId, frame.capabilities, checked);
    }
    this.#pending = { clientId, capabilities: frame.capabilities };
    // The shape the Browser Operator eval-server used, which its DevTools client waits for.
    this.#socket.sendFrame({ type: "registration_ack", clientId, status: "auth_required", serverSecretKey: authKey });
  }

  // Legacy challenge: the agent compares the server's secret with its own and says whether they match.
  #verify(frame: Record<string, unknown>): void {
    const pending = this.#pending;
    this.#pending = null;
    if (!pending) return this.#socket.sendFrame({ type: "error", message: "auth_verify without a pending register" });
    // The legacy challenge proves AUTH_KEY, which reaches every client id.
    if (frame.verified === true) this.#admit(pending.clientId, pending.capabilities, { scope: null, capabilities: null });
    else this.#reject(pending.clientId, "the agent's secret does not match the hub's");
  }

  /** Registers the agent if its key reaches its base id and its tab is not another client's. */
  #admit(clientId: string, capabilities: unknown, grant: Grant): void {
    const colon = clientId.indexOf(":");
    const baseId = colon < 0 ? clientId : clientId.slice(0, colon);
    const tabId = colon < 0 ? "default" : clientId.slice(colon + 1);
    if (grant.scope !== null && !grant.scope.has(baseId)) {
      return this.#reject(clientId, `this key may not register client ${baseId}; use a key of AGENT_KEYS bound to it`);
    }
    const refusal = this.#options.refusal(baseId, tabId, grant.scope);
    if (refusal !== null) return this.#reject(clientId, refusal);
    this.#accept(baseId, tabId, capabilities);
  }

  #accept(baseId: string, tabId: string, capabilities: unknown): void {
    const composite = formatTarget(baseId, tabId);
    const record: AgentRecord = {
      clientId: composite,
      baseId,
      tabId,
      state: "connected",
      connectedAt: Date.now(),
      capabilities: capabilities ?? {},
      link: { replace: () => this.#socket.close(1000, "replaced by a newer connection of the same tab"), calls: this.#calls },
    };
    this.#record = record;
    this.#socket.setScope(new Set([baseId]));
    this.#options.registry.register(record);
    this.#socket.sendFrame({ type: "registration_ack", clientId: composite, status: "accepted", tabId, isComposite: true });
  }

  #reject(clientId: string | null, reason: string): void {
    this.#socket.sendFrame({ type: "registration_ack", clientId, status: "rejected", reason });
    this.#socket.close(POLICY_VIOLATION, reason.slice(0, 120));
  }
}

function checkClientId(clientId: unknown): string | null {
  if (typeof clientId !== "string" || clientId.length === 0) return "clientId must be a non-empty string";
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return `clientId is longer than ${MAX_CLIENT_ID_LENGTH} characters`;
  const parts = clientId.split(":");
  if (parts.length > 2 || parts.some((part) => !ID_PATTERN.test(part) || part.includes(".."))) {
    return "clientId must be base or base:tabId, each of A-Z a-z 0-9 . _ - (no '..')";
  }
  return null;
}

function checkCapabilities(capabilities: unknown): string | null {
  if (capabilities === undefined || (typeof capabilities === "object" && capabilities !== null)) return null;
  return "capabilities must be an object or an array";
}
