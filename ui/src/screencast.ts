// Screencasts of tabs: screencast.start and .stop, frames routed by subscription, drawn one at a time, newest first.

import { errorText, isDisconnect } from "./format.js";
import type { Rpc } from "./rpc.js";
import type { ScreencastFrame } from "./types.js";

/** screencast.start's optional params. */
export interface ScreencastParams {
  maxWidth?: number;
  maxHeight?: number;
  maxFps?: number;
  quality?: number;
}

/** What one screencast shows and where its frames go. */
export interface ScreencastSpec {
  target: string;
  params: ScreencastParams;
  /** Draws a frame; the next frame is handed over only once the promise settles (frames that came meanwhile but the newest are dropped). */
  draw: (frame: ScreencastFrame) => Promise<void> | void;
  /** Told when the screencast could not start, or a frame could not be drawn. */
  onError?: (message: string) => void;
}

/** Routes screencast.frame notifications of one connection to the screencasts that asked for them. */
export class Screencasts {
  private readonly live = new Map<string, Screencast>();
  /** The newest frame of a subscription whose start answer has not been read yet (a frame may overtake it). */
  private readonly early = new Map<string, ScreencastFrame>();

  constructor(readonly rpc: Rpc) {
    rpc.on<ScreencastFrame>("screencast.frame", (frame) => this.route(frame));
    rpc.onState((state) => {
      if (state !== "open") this.dropAll();
    });
  }

  /** Makes a screencast (not started: call start(), and again after each reconnection). */
  create(spec: ScreencastSpec): Screencast {
    return new Screencast(this, spec);
  }

  /** Records which screencast a subscription id feeds; a frame that came first is handed over. */
  register(subscriptionId: string, screencast: Screencast): void {
    this.live.set(subscriptionId, screencast);
    const frame = this.early.get(subscriptionId);
    this.early.delete(subscriptionId);
    if (frame) screencast.receive(frame);
  }

  /** Forgets a subscription id. */
  unregister(subscriptionId: string): void {
    this.live.delete(subscriptionId);
    this.early.delete(subscriptionId);
  }

  private route(frame: ScreencastFrame): void {
    const screencast = this.live.get(frame.subscriptionId);
    if (screencast) {
      screencast.receive(frame);
      return;
    }
    if (this.early.size >= 16) this.early.clear();
    this.early.set(frame.subscriptionId, frame);
  }

  /** The connection closed: every subscription ended on the hub with it. */
  private dropAll(): void {
    for (const screencast of this.live.values()) screencast.lost();
    this.live.clear();
    this.early.clear();
  }
}

/** One screencast of one tab. start() after each (re)connection; stop() when it is no longer shown. */
export class Screencast {
  private subscriptionId: string | null = null;
  private newest: ScreencastFrame | null = null;
  private drawing = false;
  private stopped = false;
  /** Counts start() calls, so that an answer to an older one is recognised and its subscription stopped. */
  private attempt = 0;

  constructor(
    private readonly hub: Screencasts,
    private readonly spec: ScreencastSpec,
  ) {}

  /** The tab it shows. */
  get target(): string {
    return this.spec.target;
  }

  /** Starts (or restarts) the screencast on the hub; errors go to spec.onError. */
  async start(): Promise<void> {
    if (this.stopped) return;
    this.release();
    const attempt = ++this.attempt;
    try {
      const params = { target: this.spec.target, ...this.spec.params };
      const { subscriptionId } = await this.hub.rpc.call<{ subscriptionId: string }>("screencast.start", params);
      if (this.stopped || attempt !== this.attempt) {
        this.stopOnHub(subscriptionId);
        return;
      }
      this.subscriptionId = subscriptionId;
      this.hub.register(subscriptionId, this);
    } catch (error) {
      if (!this.stopped && attempt === this.attempt) this.spec.onError?.(errorText(error));
    }
  }

  /** Stops it for good: on the hub, and no frame is drawn after this. */
  stop(): void {
    this.stopped = true;
    this.newest = null;
    this.release();
  }

  /** The connection closed: the hub ended the subscription; start() makes a new one. */
  lost(): void {
    this.subscriptionId = null;
    this.attempt += 1;
    this.newest = null;
  }

  /** A frame came: it replaces any frame not drawn yet, and is drawn as soon as the one being drawn is done. */
  receive(frame: ScreencastFrame): void {
    if (this.stopped || frame.subscriptionId !== this.subscriptionId) return;
    this.newest = frame;
    if (!this.drawing) void this.drawFrames();
  }

  private async drawFrames(): Promise<void> {
    this.drawing = true;
    try {
      while (this.newest && !this.stopped) {
        const frame = this.newest;
        this.newest = null;
        try {
          await this.spec.draw(frame);
        } catch (error) {
          this.spec.onError?.(`frame not drawn: ${errorText(error)}`);
        }
      }
    } finally {
      this.drawing = false;
    }
  }

  /** Ends the current subscription, if any, on the hub. */
  private release(): void {
    const id = this.subscriptionId;
    this.subscriptionId = null;
    if (id) this.stopOnHub(id);
  }

  private stopOnHub(subscriptionId: string): void {
    this.hub.unregister(subscriptionId);
    if (!this.hub.rpc.isOpen) return;
    this.hub.rpc.call("screencast.stop", { subscriptionId }).catch((error: unknown) => {
      if (!isDisconnect(error)) console.warn(`screencast.stop ${subscriptionId}: ${errorText(error)}`);
    });
  }
}
