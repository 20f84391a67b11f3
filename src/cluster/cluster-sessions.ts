import type { FrameMessage, ResumedMessage, ResumeMessage, UntunnelMessage } from "./messages.js";
import type { RedisLink } from "./redis-link.js";
import type { ClusterRegistry } from "./registry.js";
import { SessionHosts, type SessionServing } from "./session-hosts.js";
import { SessionRecords, sessionIdOn } from "./session-records.js";
import { SessionRelays } from "./session-relays.js";

/** The messages of a resume through another instance. */
export type SessionMessage = ResumeMessage | ResumedMessage | FrameMessage | UntunnelMessage;

/**
 * Resumable sessions in a cluster: a session that drops is recorded in Redis; a caller who comes back through
 * another instance is given it there (its socket tunnelled to the instance that keeps it), or told it ended with
 * its instance.
 */
export class ClusterSessions {
  #records: SessionRecords;
  #relays: SessionRelays;
  #hosts: SessionHosts;
  #me: string;

  constructor(options: { link: RedisLink; registry: ClusterRegistry; windowMs: number; timeoutMs: number }) {
    const { link, registry, windowMs, timeoutMs } = options;
    this.#records = new SessionRecords({ link, instanceId: registry.instanceId, windowMs, timeoutMs });
    this.#relays = new SessionRelays({ registry, records: this.#records, timeoutMs });
    this.#hosts = new SessionHosts({ registry, timeoutMs });
    this.#me = registry.instanceId;
  }

  /** Lets a session dropped here be resumed through another instance, and one kept elsewhere be resumed here. */
  serve(serving: SessionServing): void {
    this.#hosts.serve(serving);
    serving.resumes.useCluster({
      newSessionId: () => sessionIdOn(this.#me),
      away: (session) => this.#records.away(session),
      gone: (id) => this.#records.gone(id),
      resume: (wanted, sink, budget) => this.#relays.resume(wanted, sink, budget),
    });
  }

  onMessage(message: SessionMessage): void {
    switch (message.type) {
      case "resume":
        return this.#hosts.onResume(message);
      case "resumed":
        return this.#relays.onResumed(message);
      case "frame":
        return message.direction === "up" ? this.#hosts.onFrame(message) : this.#relays.onFrame(message);
      case "untunnel":
        // From a socket's instance to the session's keeper, or from the keeper back (it closes the socket).
        this.#hosts.onUntunnel(message);
        return this.#relays.onUntunnel(message);
    }
  }

  /** The instances this one's tunnels go to or come from. */
  instances(): string[] {
    return [...this.#relays.keepers(), ...this.#hosts.callers()];
  }

  /** An instance died: sockets here whose session it kept close; sessions here whose socket it had are kept again. */
  instanceGone(instance: string): void {
    this.#relays.keeperGone(instance);
    this.#hosts.callerGone(instance);
  }

  /** This instance leaves: the sessions of its sockets stay with their keepers for a resume through another instance. */
  closeAll(): void {
    this.#relays.closeAll();
  }
}
