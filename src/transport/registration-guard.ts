/** What an agent socket may send before it has registered. */
export const UNREGISTERED_BYTES = 64 * 1024;
const MESSAGE_TOO_BIG = 1009;
const POLICY_VIOLATION = 1008;

/**
 * Bounds an agent socket until it registers: UNREGISTERED_BYTES of frames (then close 1009) within
 * AGENT_REGISTER_TIMEOUT_MS (then close 1008), so a socket that never proves who it is costs little and not for long.
 */
export class RegistrationGuard {
  #bytes = 0;
  #timer: NodeJS.Timeout;
  #isRegistered: () => boolean;
  #close: (code: number, reason: string) => void;

  constructor(options: { timeoutMs: number; isRegistered: () => boolean; close: (code: number, reason: string) => void }) {
    this.#isRegistered = options.isRegistered;
    this.#close = options.close;
    this.#timer = setTimeout(() => {
      if (!this.#isRegistered())
        this.#close(POLICY_VIOLATION, `register within ${options.timeoutMs} ms of connecting (AGENT_REGISTER_TIMEOUT_MS)`);
    }, options.timeoutMs);
  }

  /** Whether a frame of `bytes` may be handled; past the budget of an unregistered socket it closes the socket. */
  admit(bytes: number): boolean {
    if (this.#isRegistered()) return true;
    this.#bytes += bytes;
    if (this.#bytes <= UNREGISTERED_BYTES) return true;
    this.#close(MESSAGE_TOO_BIG, `an agent may send ${UNREGISTERED_BYTES} bytes before it registers; send register first`);
    return false;
  }

  /** The socket closed: no more deadline. */
  stop(): void {
    clearTimeout(this.#timer);
  }
}
