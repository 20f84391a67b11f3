/** What a token may do (ACCESS_FILE): each hub method needs one of these, or only its connection. */
export const CAPABILITIES = ["read", "act", "script", "agents", "admin"] as const;

/** One capability of a token: `read`, `act`, `script`, `agents` or `admin` (docs/security.md). */
export type Capability = (typeof CAPABILITIES)[number];

/** What a method needs of its caller's token: a capability, or `connection` for calls about the connection itself. */
export type Need = Capability | "connection";

/** Whether a word is one of the capabilities. */
export function isCapability(word: unknown): word is Capability {
  return CAPABILITIES.includes(word as Capability);
}

/** Whether a token's capabilities (null: every one) cover a need. */
export function allows(capabilities: ReadonlySet<Capability> | null | undefined, need: Need): boolean {
  return need === "connection" || capabilities == null || capabilities.has(need);
}
