/**
 * How many `?ephemeral=true` clients each token holds at once (MAX_EPHEMERAL_CLIENTS_PER_TOKEN): each is a browser
 * context of its own, so a token that opened them in a loop would fill the hub's memory for everyone.
 */
export class EphemeralQuota {
  #max: number;
  #held = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Takes a place for the token (its grant's key; "" on a hub without tokens): the function that gives it back, or null when none is left. */
  take(tokenKey: string): (() => void) | null {
    const held = this.#held.get(tokenKey) ?? 0;
    if (held >= this.#max) return null;
    this.#held.set(tokenKey, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#held.get(tokenKey) ?? 1) - 1;
      if (left > 0) this.#held.set(tokenKey, left);
      else this.#held.delete(tokenKey);
    };
  }

  /** The most a token may hold, for the refusal's message. */
  get max(): number {
    return this.#max;
  }
}
