import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

// The first word of a sealed state, the version of this format: "ts1.<iv>.<tag>.<ciphertext>", each base64url.
const VERSION = "ts1";
const IV_BYTES = 12;

/**
 * Seals persistent clients' states for Redis with AES-256-GCM under a key derived from CLUSTER_SECRET: what Redis
 * holds of a client (its cookies, its storage) is neither readable nor changeable by whoever reads or writes Redis.
 * The client id is bound in, so one client's sealed state cannot be passed off as another's.
 */
export class StateSealer {
  #key: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), "tabwire persistent client state", 32));
  }

  /** The sealed text of a client's state. */
  seal(clientId: string, text: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(clientId, "utf8"));
    const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
  }

  /** The state a sealed text holds, or null when it was not sealed for this client with this secret. */
  open(clientId: string, sealed: string): string | null {
    const [version, iv = "", tag = "", body = "", ...rest] = sealed.split(".");
    if (version !== VERSION || rest.length > 0) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(iv, "base64url"), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(clientId, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      return null;
    }
  }
}
