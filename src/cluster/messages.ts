import { randomToken } from "./random-token.js";

/** Every Redis key and channel of the cluster starts with this. */
export const PREFIX = "tabwire:";

/** The names the cluster uses in Redis. */
export const keys = {
  /** Sorted set: instance id -> the time (Redis clock, ms) its records expire. */
  instances: `${PREFIX}instances`,
  /** String with a TTL: what the instance says of itself (JSON). */
  instance: (id: string): string => `${PREFIX}instance:${id}`,
  /** Hash with a TTL: the instance's tabs and agents as the lists show them (`tab:<target>` / `agent:<target>` -> JSON). */
  targets: (id: string): string => `${PREFIX}targets:${id}`,
  /**
   * String with a TTL: `<instance>|<epoch>`, the owner of one claim: `tab:<clientId:tabId>`, `agent:<clientId:tabId>`
   * or `client:<clientId>` (the instance that keeps a persistent client).
   */
  owner: (claim: string): string => `${PREFIX}owner:${claim}`,
  /** Channel of one instance: calls, answers, notifications and evictions sent to it. */
  inbox: (id: string): string => `${PREFIX}to:${id}`,
  /** Channel every instance listens to: tab and agent events. */
  events: `${PREFIX}events`,
  /** Set: the persistent clients whose state Redis keeps. */
  persisted: `${PREFIX}persisted`,
  /** String: a persistent client's saved state, sealed with CLUSTER_SECRET. */
  state: (clientId: string): string => `${PREFIX}state:${clientId}`,
  /** String with a TTL: the client was made not persistent (the instance that kept it stops at its next save). */
  removed: (clientId: string): string => `${PREFIX}removed:${clientId}`,
  /** String with a TTL: a dropped resumable /rpc session, where it lives and what it had (JSON, see session-records.ts). */
  session: (sessionId: string): string => `${PREFIX}session:${sessionId}`,
} as const;

/** A request forwarded to the instance that owns its target. */
export interface CallMessage {
  type: "call";
  /** Hub-made and random (newCallId): whoever reads Redis cannot guess the next one. */
  id: string;
  from: string;
  /** The caller's connection id on its own instance. */
  conn: string;
  scope: string[] | null;
  peer: string;
  method: string;
  params: Record<string, unknown>;
}

/** The caller gave up on a forwarded request (cancel, or its connection closed). */
export interface CancelMessage {
  type: "cancel";
  id: string;
  from: string;
  conn: string;
}

/** The owner's answer to a forwarded request: the JSON-RPC response as the owner's router wrote it. */
export interface AnswerMessage {
  type: "answer";
  id: string;
  /** The instance that ran the call: the caller takes an answer only from the instance it sent the call to. */
  from: string;
  response: string;
}

/** A notification for a caller's connection (console.message, agent.status, tab.closed...). */
export interface NotifyMessage {
  type: "notify";
  conn: string;
  method: string;
  params: Record<string, unknown>;
}

/** A caller's connection closed: what it holds on the owner (subscriptions, calls) goes too. */
export interface ClosedMessage {
  type: "closed";
  from: string;
  conn: string;
}

/** A newer claim took one of the instance's targets (an agent reconnected elsewhere). */
export interface EvictMessage {
  type: "evict";
  target: string;
  epoch: string;
}

/** A tab or agent event of one instance, for the events.subscribe watchers of the others. */
export interface EventMessage {
  type: "event";
  from: string;
  topic: "tabs" | "agents";
  clientId: string;
  method: string;
  params: Record<string, unknown>;
}

/** A caller's new connection asks the instance that keeps a dropped session to give it the session (session.resume). */
export interface ResumeMessage {
  type: "resume";
  id: string;
  from: string;
  /** The new connection, as its instance names the tunnel. */
  conn: string;
  /** The grant of the caller's token: only the grant that made the session may take it. */
  binding: string;
  session: string;
  lastSeq: number;
}

/** The keeper's answer to a resume: the session.resume result as JSON. */
export interface ResumedMessage {
  type: "resumed";
  id: string;
  from: string;
  answer: string;
}

/**
 * WebSocket frames of a tunnel, in order: `up` from the caller's socket to the session on its keeper, `down` from the
 * session to the socket, already numbered (notifications) or answered.
 */
export interface FrameMessage {
  type: "frame";
  direction: "up" | "down";
  from: string;
  conn: string;
  texts: string[];
}

/** A tunnel ends: `dropped` when the caller's socket dropped (the session is kept for a resume again), else it closed. */
export interface UntunnelMessage {
  type: "untunnel";
  from: string;
  conn: string;
  /** The socket dropped (keep the session), or closed (end it); from the keeper, a WebSocket close code to close it with. */
  dropped: boolean;
  code?: number;
  reason?: string;
}

/** Anything sent between instances. */
export type ClusterMessage =
  | CallMessage
  | CancelMessage
  | AnswerMessage
  | NotifyMessage
  | ClosedMessage
  | EvictMessage
  | EventMessage
  | ResumeMessage
  | ResumedMessage
  | FrameMessage
  | UntunnelMessage;

/** A new call id: 128 random bits, so an answer cannot be forged for a call whose id was guessed. */
export function newCallId(): string {
  return randomToken();
}
