// The overview's live thumbnails: a small, slow screencast per tab card, shown in its img.thumb.

import type { Screencast, Screencasts } from "./screencast.js";
import type { ScreencastFrame } from "./types.js";

const THUMB_PARAMS = { maxWidth: 320, maxHeight: 200, maxFps: 1, quality: 50 };

interface Thumb {
  img: HTMLImageElement;
  screencast: Screencast;
  frames: number;
}

/** Keeps one screencast per shown tab: started for new cards, stopped for cards that went. */
export class Thumbnails {
  private readonly thumbs = new Map<string, Thumb>();

  constructor(private readonly screencasts: Screencasts) {}

  /** Makes the screencasts match the cards shown: target → its img.thumb. */
  sync(shown: Map<string, HTMLImageElement>): void {
    for (const [target, thumb] of this.thumbs) {
      if (shown.get(target) !== thumb.img) {
        thumb.screencast.stop();
        this.thumbs.delete(target);
      }
    }
    for (const [target, img] of shown) {
      if (this.thumbs.has(target)) continue;
      const thumb: Thumb = { img, frames: 0, screencast: this.create(target, img) };
      this.thumbs.set(target, thumb);
      if (this.screencasts.rpc.isOpen) void thumb.screencast.start();
    }
  }

  /** The connection (re)opened: start every thumbnail's screencast again. */
  connected(): void {
    for (const thumb of this.thumbs.values()) void thumb.screencast.start();
  }

  /** Stops every screencast. */
  dispose(): void {
    for (const thumb of this.thumbs.values()) thumb.screencast.stop();
    this.thumbs.clear();
  }

  private create(target: string, img: HTMLImageElement): Screencast {
    return this.screencasts.create({
      target,
      params: THUMB_PARAMS,
      draw: (frame) => this.draw(target, frame),
      onError: (message) => {
        img.title = `No live preview: ${message}`;
        img.dataset.error = message;
      },
    });
  }

  /** Shows a frame in the img and waits until it is decoded (so frames are decoded one at a time). */
  private async draw(target: string, frame: ScreencastFrame): Promise<void> {
    const thumb = this.thumbs.get(target);
    if (!thumb) return;
    const { img } = thumb;
    img.src = `data:image/jpeg;base64,${frame.data}`;
    thumb.frames += 1;
    img.dataset.frames = String(thumb.frames);
    delete img.dataset.error;
    img.removeAttribute("title");
    await img.decode().catch(() => undefined);
  }
}
