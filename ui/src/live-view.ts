// The live view of a tab: its screencast drawn on a canvas, which also takes input (see takeover.ts).

import { h, setText } from "./dom.js";
import { errorText } from "./format.js";
import type { Rpc } from "./rpc.js";
import type { Screencast, Screencasts } from "./screencast.js";
import { Scope } from "./scope.js";
import { mayUse } from "./session.js";
import { type FrameGeometry, Takeover } from "./takeover.js";
import type { ScreencastFrame } from "./types.js";

/** What the live view shows. */
export interface LiveViewOptions {
  rpc: Rpc;
  screencasts: Screencasts;
  target: string;
}

const LIVE_PARAMS = { maxWidth: 1280, maxHeight: 800, maxFps: 15 };
const MESSAGE_MS = 5000;

/** Decodes a base64 JPEG into a Blob. */
function jpegBlob(base64: string): Blob {
  const binary = atob(base64);
  const data = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) data[index] = binary.charCodeAt(index);
  return new Blob([data], { type: "image/jpeg" });
}

/** The canvas `#live` with its status line `#live-status`. */
export class LiveView {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly status: HTMLElement;
  private readonly scope = new Scope();
  private readonly screencast: Screencast;
  private geometry: FrameGeometry | null = null;
  private frames = 0;
  private baseStatus = "Connecting…";
  private messageTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: LiveViewOptions) {
    this.canvas = h("canvas", {
      id: "live",
      tabindex: 0,
      width: 1280,
      height: 800,
      "aria-label": "Live view of the tab. Click, scroll and type here to act on the tab; Shift+Tab leaves it.",
      "aria-describedby": "live-hint",
      "data-frames": 0,
    });
    this.status = h("p", { id: "live-status", class: "status", role: "status", "aria-live": "polite" });
    const hint = h(
      "p",
      { id: "live-hint", class: "hint" },
      "Clicks, the wheel and keys on the view go to the tab while it has the focus; Shift+Tab moves the focus out.",
    );
    // Chrome sends no frames for a tab in the background (tabs.open with background: true) until it is in front.
    const activate = h("button", { id: "live-activate", type: "button" }, "Bring the tab to the front");
    activate.addEventListener("click", () => {
      options.rpc
        .call("tabs.activate", { target: options.target })
        .catch((error: unknown) => this.show(`Bring to front: ${errorText(error)}`));
    });
    this.element = h(
      "div",
      { class: "live" },
      h("div", { class: "live-frame" }, this.canvas),
      this.status,
      // A token without act sees the page, never the controls that would drive it.
      mayUse("act") && h("p", { class: "live-actions" }, activate),
      mayUse("act") && hint,
    );
    this.screencast = options.screencasts.create({
      target: options.target,
      params: LIVE_PARAMS,
      draw: (frame) => this.draw(frame),
      onError: (message) => this.show(`Live view: ${message}`),
    });
    if (mayUse("act"))
      new Takeover({
        rpc: options.rpc,
        target: options.target,
        canvas: this.canvas,
        scope: this.scope,
        geometry: () => this.geometry,
        report: (message) => this.show(message),
      });
    this.scope.add(() => clearTimeout(this.messageTimer));
    this.setBase("Connecting…");
  }

  /** The connection (re)opened: (re)start the screencast. */
  connected(): void {
    this.setBase(
      this.frames > 0 ? "" : "Waiting for the first frame… (a tab in the background sends none until it is brought to the front)",
    );
    void this.screencast.start();
  }

  /** The connection closed: the screencast ended with it. */
  disconnected(): void {
    this.setBase("Disconnected: the view is frozen until the hub is back.");
  }

  /** The tab is gone: no more frames will come. */
  tabClosed(): void {
    this.screencast.stop();
    this.setBase("The tab closed.");
  }

  /** Stops the screencast and the input. */
  dispose(): void {
    this.screencast.stop();
    this.scope.dispose();
  }

  private async draw(frame: ScreencastFrame): Promise<void> {
    const bitmap = await createImageBitmap(jpegBlob(frame.data));
    try {
      if (this.scope.isDisposed) return;
      const offsetTop = Number.isFinite(frame.offsetTop) ? Math.max(0, frame.offsetTop) : 0;
      const band = frame.deviceWidth > 0 ? Math.round((offsetTop * bitmap.width) / frame.deviceWidth) : 0;
      if (this.canvas.width !== bitmap.width) this.canvas.width = bitmap.width;
      if (this.canvas.height !== bitmap.height + band) this.canvas.height = bitmap.height + band;
      const context = this.canvas.getContext("2d");
      if (!context) throw new Error("no 2d context");
      if (band > 0) context.clearRect(0, 0, bitmap.width, band);
      context.drawImage(bitmap, 0, band);
    } finally {
      bitmap.close();
    }
    this.geometry = { deviceWidth: frame.deviceWidth, deviceHeight: frame.deviceHeight, offsetTop: frame.offsetTop };
    this.frames += 1;
    this.canvas.dataset.frames = String(this.frames);
    this.canvas.dataset.frameAt = String(Date.now());
    if (this.frames === 1) this.setBase("");
  }

  /** The status that stays (connection, tab closed); an action's message shows over it for a while. */
  private setBase(text: string): void {
    this.baseStatus = text;
    if (this.messageTimer === undefined) setText(this.status, text);
  }

  /** Shows a message for a few seconds, then the base status again. */
  private show(message: string): void {
    clearTimeout(this.messageTimer);
    setText(this.status, message);
    this.status.dataset.kind = "error";
    this.messageTimer = setTimeout(() => {
      this.messageTimer = undefined;
      delete this.status.dataset.kind;
      setText(this.status, this.baseStatus);
    }, MESSAGE_MS);
  }
}
