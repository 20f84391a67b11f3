import type { Protocol } from "devtools-protocol";
import { raceSignal } from "../budget.js";
import { ProtocolError } from "../cdp/callback-registry.js";
import type { CdpConnection } from "../cdp/connection.js";
import type { FrameSession } from "../cdp/remote-frames.js";
import { HubError } from "../errors.js";
import { runHubScript } from "./hub-script.js";
import type { ValidatedParams } from "../protocol/types.js";
import { UTF8_LENGTH_IN_PAGE } from "./utf8-cut.js";

/** What `content` returns a document as. */
export type ContentFormat = ValidatedParams<"content">["format"];

/** One frame's document as read: the text (cut in the page past the call's size) and how many UTF-8 bytes were cut. */
export interface FrameText {
  text: string;
  cutBytes: number;
}

/** One iframe's document (or why it could not be read), with the iframes inside it. */
export interface FrameDocument {
  url: string;
  origin: string;
  isCrossOrigin: boolean;
  content: string;
  /** UTF-8 bytes of the document cut in the page (0 when it came whole). */
  cutBytes: number;
  unreadable?: string;
  children: FrameDocument[];
}

/** The page answered the read with an exception instead of its document. */
export class FrameUnreadableError extends Error {}

/** How an IframeReader reads: the format, the size cap, the call's signal, and the top document's origin frames are compared with. */
export interface IframeReaderOptions {
  format: ContentFormat;
  maxBytes: number;
  signal: AbortSignal;
  topOrigin: string;
}

const WORLD_NAME = "tabwire-content";
// Runs in the page: the document whole when it has at most max characters, else [its first max characters (never half
// a surrogate pair), its full UTF-8 byte length].
const CUT_IN_PAGE = `(text, max) => {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return [text.slice(0, last >= 0xd800 && last < 0xdc00 ? max - 1 : max), (${UTF8_LENGTH_IN_PAGE})(text)];
}`;
// Attach and detach are bounded by their own deadlines, not the call's signal: a late attach answer must still be
// detached, and cleanup must run after a timeout or a cancel too.
const ATTACH_TIMEOUT_MS = 5_000;
const DETACH_TIMEOUT_MS = 1_000;

// Read in an isolated world so page scripts that replace XMLSerializer or outerHTML cannot change what is returned.
const EXPRESSIONS: Readonly<Record<ContentFormat, string>> = {
  html: `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "") + (document.documentElement ? document.documentElement.outerHTML : "")`,
  text: `document.body ? document.body.innerText : (document.documentElement ? document.documentElement.textContent ?? "" : "")`,
};

/**
 * Reads one frame's document, as serialized HTML or rendered text, in an isolated world of that frame; a document
 * longer than `maxBytes` characters is cut in the page, so a huge one never crosses CDP whole.
 */
export async function readFrame(
  session: FrameSession,
  frameId: string,
  how: { format: ContentFormat; maxBytes: number; signal: AbortSignal },
): Promise<FrameText> {
  const { format, maxBytes, signal } = how;
  const { executionContextId } = await session.send("Page.createIsolatedWorld", { frameId, worldName: WORLD_NAME }, { signal });
  const expression = `(${CUT_IN_PAGE})(${EXPRESSIONS[format]}, ${maxBytes})`;
  const { result, exceptionDetails } = await runHubScript("the hub's read of the document", () =>
    session.send("Runtime.evaluate", { expression, contextId: executionContextId, returnByValue: true }, { signal }),
  );
  const value: unknown = result.value;
  if (typeof value === "string" && !exceptionDetails) return { text: value, cutBytes: 0 };
  if (Array.isArray(value) && typeof value[0] === "string" && typeof value[1] === "number") {
    return { text: value[0], cutBytes: value[1] - Buffer.byteLength(value[0], "utf8") };
  }
  throw new FrameUnreadableError(exceptionDetails?.exception?.description ?? exceptionDetails?.text ?? "the document gave no string");
}

/**
 * Reads every iframe under a tab's main frame, depth first: same-process frames through the session that owns them,
 * out-of-process (cross-site) ones through a session attached to their iframe target, detached again afterwards.
 */
export class IframeReader {
  #connection: CdpConnection;
  #options: IframeReaderOptions;
  #iframeTargets: Protocol.Target.TargetInfo[] = [];
  #attaches: Promise<string>[] = [];

  constructor(connection: CdpConnection, options: IframeReaderOptions) {
    this.#connection = connection;
    this.#options = options;
  }

  /** The iframes under `root` (the tab's frame tree), each with its own iframes nested. */
  async read(tab: FrameSession, root: Protocol.Page.FrameTree): Promise<FrameDocument[]> {
    const { signal } = this.#options;
    try {
      const { targetInfos } = await this.#connection.send("Target.getTargets", undefined, { signal });
      this.#iframeTargets = targetInfos.filter((info) => info.type === "iframe");
      return await this.#childrenOf(tab, root);
    } finally {
      const released = this.#detachAll();
      if (!signal.aborted) await raceSignal(released, signal).catch(() => undefined);
    }
  }

  async #childrenOf(session: FrameSession, tree: Protocol.Page.FrameTree): Promise<FrameDocument[]> {
    const documents: FrameDocument[] = [];
    for (const child of tree.childFrames ?? []) documents.push(await this.#readTree(session, child));
    // Chrome leaves out-of-process children out of the parent's frame tree; their targets name the parent frame.
    for (const target of this.#iframeTargets.filter((info) => info.parentFrameId === tree.frame.id)) {
      documents.push(await this.#readRemote(target));
    }
    return documents;
  }

  async #readTree(session: FrameSession, tree: Protocol.Page.FrameTree): Promise<FrameDocument> {
    const { frame } = tree;
    const document = this.#describe(frame.url + (frame.urlFragment ?? ""), frame.securityOrigin);
    try {
      const read = await readFrame(session, frame.id, this.#options);
      document.content = read.text;
      document.cutBytes = read.cutBytes;
    } catch (error) {
      document.unreadable = unreadableReason(error);
    }
    document.children = await this.#childrenOf(session, tree);
    return document;
  }

  async #readRemote(target: Protocol.Target.TargetInfo): Promise<FrameDocument> {
    let session: FrameSession;
    let frameTree: Protocol.Page.FrameTree;
    try {
      session = await this.#attach(target.targetId);
      ({ frameTree } = await session.send("Page.getFrameTree", undefined, { signal: this.#options.signal }));
    } catch (error) {
      return { ...this.#describe(target.url, originOf(target.url)), unreadable: unreadableReason(error) };
    }
    return this.#readTree(session, frameTree);
  }

  #describe(url: string, origin: string): FrameDocument {
    return { url, origin, isCrossOrigin: origin !== this.#options.topOrigin, content: "", cutBytes: 0, children: [] };
  }

  async #attach(targetId: string): Promise<FrameSession> {
    const attaching = this.#connection
      .send("Target.attachToTarget", { targetId, flatten: true }, { timeoutMs: ATTACH_TIMEOUT_MS })
      .then(({ sessionId }) => sessionId);
    this.#attaches.push(attaching);
    const sessionId = await raceSignal(attaching, this.#options.signal);
    return this.#connection.createSession(sessionId, targetId);
  }

  #detachAll(): Promise<unknown> {
    const attaches = this.#attaches.splice(0);
    return Promise.allSettled(attaches.map((attaching) => attaching.then((sessionId) => this.#detach(sessionId))));
  }

  #detach(sessionId: string): Promise<unknown> {
    this.#connection.dropSession(sessionId, new HubError("TARGET_CLOSED", "the iframe's CDP session was detached"));
    return this.#connection.send("Target.detachFromTarget", { sessionId }, { timeoutMs: DETACH_TIMEOUT_MS });
  }
}

/** Why one frame could not be read; anything but Chrome's or the page's refusal (a timeout, a cancel) is rethrown. */
function unreadableReason(error: unknown): string {
  if (error instanceof ProtocolError || error instanceof FrameUnreadableError) return error.message;
  throw error;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}
