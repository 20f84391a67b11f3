// Taking over a tab from its live view: clicks, wheel and keys on the canvas become click, scroll, type and press calls.

import { errorText } from "./format.js";
import { keyAction } from "./keys.js";
import type { Rpc } from "./rpc.js";
import type { Scope } from "./scope.js";

/** Where the last drawn frame stood: the viewport in CSS pixels, below a band of offsetTop (DIP) the canvas also shows. */
export interface FrameGeometry {
  deviceWidth: number;
  deviceHeight: number;
  offsetTop: number;
}

/** A box on the dashboard's page, as getBoundingClientRect gives it. */
export type Box = Pick<DOMRect, "left" | "top" | "width" | "height">;

/**
 * Maps a point of the dashboard's page (clientX, clientY) on the canvas's displayed box to the tab's viewport in CSS
 * pixels. The canvas shows the device screen: an offsetTop band (0 on desktop) above a viewport of deviceWidth by
 * deviceHeight. A point outside the viewport gives null.
 */
export function pagePoint(geometry: FrameGeometry, box: Box, client: { x: number; y: number }): { x: number; y: number } | null {
  if (box.width <= 0 || box.height <= 0 || geometry.deviceWidth <= 0) return null;
  const offsetTop = Number.isFinite(geometry.offsetTop) ? Math.max(0, geometry.offsetTop) : 0;
  const x = ((client.x - box.left) / box.width) * geometry.deviceWidth;
  const y = ((client.y - box.top) / box.height) * (geometry.deviceHeight + offsetTop) - offsetTop;
  if (x < 0 || y < 0 || x > geometry.deviceWidth || y > geometry.deviceHeight) return null;
  return { x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 };
}

/** What the take-over acts on and where it reports. */
export interface TakeoverOptions {
  rpc: Rpc;
  target: string;
  canvas: HTMLCanvasElement;
  scope: Scope;
  /** The geometry of the frame on the canvas now; null before the first frame (input is ignored then). */
  geometry: () => FrameGeometry | null;
  /** Shows an action's error (briefly) to the user. */
  report: (message: string) => void;
}

const TYPE_FLUSH_MS = 50;
const WHEEL_INTERVAL_MS = 100;
const LINE_PX = 40;

/** Sends the canvas's input to the tab, in order: each action waits for the one before it. */
export class Takeover {
  private queue: Promise<void> = Promise.resolve();
  private typed = "";
  private typeTimer: ReturnType<typeof setTimeout> | undefined;
  private wheelTimer: ReturnType<typeof setTimeout> | undefined;
  private wheel = { deltaX: 0, deltaY: 0, x: 0, y: 0 };

  constructor(private readonly options: TakeoverOptions) {
    const { canvas, scope } = options;
    scope.listen(canvas, "click", (event) => this.onClick(event));
    scope.listen(canvas, "keydown", (event) => this.onKey(event));
    scope.listen(canvas, "blur", () => this.flushTyping());
    const onWheel = (event: WheelEvent): void => this.onWheel(event);
    canvas.addEventListener("wheel", onWheel, { passive: false });
    scope.add(() => canvas.removeEventListener("wheel", onWheel));
    scope.add(() => {
      clearTimeout(this.typeTimer);
      clearTimeout(this.wheelTimer);
    });
  }

  private point(event: MouseEvent): { x: number; y: number } | null {
    const geometry = this.options.geometry();
    if (!geometry) return null;
    return pagePoint(geometry, this.options.canvas.getBoundingClientRect(), { x: event.clientX, y: event.clientY });
  }

  private onClick(event: MouseEvent): void {
    if (event.button !== 0) return;
    this.options.canvas.focus();
    const point = this.point(event);
    if (!point) return;
    const modifiers = [
      ...(event.altKey ? ["Alt"] : []),
      ...(event.ctrlKey ? ["Control"] : []),
      ...(event.metaKey ? ["Meta"] : []),
      ...(event.shiftKey ? ["Shift"] : []),
    ];
    this.flushTyping();
    this.send("click", { ...point, ...(modifiers.length > 0 ? { modifiers } : {}) });
  }

  private onWheel(event: WheelEvent): void {
    event.preventDefault();
    const point = this.point(event);
    if (!point) return;
    const scale = event.deltaMode === WheelEvent.DOM_DELTA_LINE ? LINE_PX : event.deltaMode === WheelEvent.DOM_DELTA_PAGE ? 800 : 1;
    this.wheel.deltaX += event.deltaX * scale;
    this.wheel.deltaY += event.deltaY * scale;
    this.wheel.x = point.x;
    this.wheel.y = point.y;
    if (this.wheelTimer === undefined) this.flushWheel();
  }

  /** Sends the wheel turned since the last scroll, then waits WHEEL_INTERVAL_MS before the next one. */
  private flushWheel(): void {
    const { deltaX, deltaY, x, y } = this.wheel;
    this.wheelTimer = undefined;
    if (deltaX === 0 && deltaY === 0) return;
    this.wheel = { deltaX: 0, deltaY: 0, x, y };
    this.flushTyping();
    this.send("scroll", { x, y, deltaX: Math.round(deltaX), deltaY: Math.round(deltaY) });
    this.wheelTimer = setTimeout(() => this.flushWheel(), WHEEL_INTERVAL_MS);
  }

  private onKey(event: KeyboardEvent): void {
    const action = keyAction(event);
    if (action.kind === "ignore") return;
    event.preventDefault();
    if (action.kind === "type") {
      this.typed += action.text;
      if (this.typeTimer === undefined) this.typeTimer = setTimeout(() => this.flushTyping(), TYPE_FLUSH_MS);
      return;
    }
    this.flushTyping();
    this.send("press", { key: action.key });
  }

  /** Sends the characters typed since the last flush as one `type` call. */
  private flushTyping(): void {
    clearTimeout(this.typeTimer);
    this.typeTimer = undefined;
    if (!this.typed) return;
    const text = this.typed;
    this.typed = "";
    this.send("type", { text });
  }

  /** Queues a call of an action on the tab; its error is reported, and the queue goes on. */
  private send(method: "click" | "scroll" | "type" | "press", params: object): void {
    const { rpc, target, report, scope } = this.options;
    this.queue = this.queue.then(async () => {
      if (scope.isDisposed) return;
      try {
        await rpc.call(method, { target, ...params });
      } catch (error) {
        if (!scope.isDisposed) report(`${method} failed: ${errorText(error)}`);
      }
    });
  }
}
