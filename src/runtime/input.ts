import type { Protocol } from "devtools-protocol";
import type { Budget } from "../budget.js";
import type { TabSession } from "../cdp/tab-session.js";
import type { Point } from "./actionable.js";
import { keyOf, modifierBits, type KeyChord, type KeyDefinition, type Modifier } from "./keys.js";

/** A mouse button as CDP names it. */
export type MouseButton = "left" | "middle" | "right";

const BUTTON_BITS: Record<MouseButton, number> = { left: 1, right: 2, middle: 4 };

/** Trusted input on one tab: CDP's Input domain, every event within the call's budget. */
export class TabInput {
  #tab: TabSession;
  #budget: Budget;

  constructor(tab: TabSession, budget: Budget) {
    this.#tab = tab;
    this.#budget = budget;
  }

  /** Moves the pointer to `point` (the page sees pointermove, mouseover, mouseenter, mousemove). */
  async move(point: Point, buttons = 0, modifiers = 0): Promise<void> {
    await this.#mouse({ type: "mouseMoved", ...point, buttons, modifiers });
  }

  /**
   * Presses and releases `button` at `point` `clickCount` times, the count rising as a user's double click does. The
   * events are sent together, not each after the last one's answer: Chrome queues a tab's input in order, and the
   * round trips saved are most of a click's time.
   */
  async click(point: Point, how: { button: MouseButton; clickCount: number; modifiers: readonly Modifier[] }): Promise<void> {
    const modifiers = modifierBits(how.modifiers);
    const sent = [this.move(point, 0, modifiers)];
    for (let count = 1; count <= how.clickCount; count++) {
      sent.push(
        this.#mouse({ type: "mousePressed", ...point, button: how.button, buttons: BUTTON_BITS[how.button], clickCount: count, modifiers }),
      );
      sent.push(this.#mouse({ type: "mouseReleased", ...point, button: how.button, buttons: 0, clickCount: count, modifiers }));
    }
    await Promise.all(sent);
  }

  /** Presses the left button at `from`, moves to `to` in `steps` moves, and releases there. */
  async drag(from: Point, to: Point, steps: number): Promise<void> {
    await this.move(from);
    await this.#mouse({ type: "mousePressed", ...from, button: "left", buttons: 1, clickCount: 1 });
    for (let step = 1; step <= steps; step++) {
      const point = { x: from.x + ((to.x - from.x) * step) / steps, y: from.y + ((to.y - from.y) * step) / steps };
      await this.#mouse({ type: "mouseMoved", ...point, button: "left", buttons: 1 });
    }
    await this.#mouse({ type: "mouseReleased", ...to, button: "left", buttons: 0, clickCount: 1 });
  }

  /** Turns the mouse wheel at `point` by the deltas (CSS pixels; positive scrolls down and right). */
  async wheel(point: Point, delta: { x: number; y: number }): Promise<void> {
    await this.#mouse({ type: "mouseWheel", ...point, deltaX: delta.x, deltaY: delta.y });
  }

  /** Presses a chord: its modifiers down in order, the key down and up, the modifiers up in reverse. */
  async press(chord: KeyChord): Promise<void> {
    const held: Modifier[] = [];
    for (const modifier of chord.modifiers) {
      held.push(modifier);
      await this.#keyDown(keyOf(modifier) as KeyDefinition, modifierBits(held));
    }
    const modifiers = modifierBits(held);
    // With Control, Alt or Meta held a key is a shortcut, not text.
    const typesText = (modifiers & ~modifierBits(["Shift"])) === 0;
    await this.#keyDown(chord.key, modifiers, typesText);
    await this.#keyUp(chord.key, modifiers);
    for (const modifier of [...held].reverse()) {
      held.pop();
      await this.#keyUp(keyOf(modifier) as KeyDefinition, modifierBits(held));
    }
  }

  /**
   * Types text a character at a time: key events for characters with a key, Input.insertText for the others.
   * Without a delay the events go together, as a click's do (Chrome queues a tab's input in order).
   */
  async type(text: string, delayMs: number): Promise<void> {
    const sent: Promise<void>[] = [];
    for (const character of text) {
      const key = character === "\n" ? keyOf("Enter") : keyOf(character);
      if (key) sent.push(this.#keyDown(key, 0, true), this.#keyUp(key, 0));
      else sent.push(this.insertText(character));
      if (delayMs > 0) {
        await Promise.all(sent.splice(0));
        await this.#budget.race(new Promise((resolve) => setTimeout(resolve, delayMs)));
      }
    }
    await Promise.all(sent);
  }

  /** Enters text as an input method does: one beforeinput and input event, no key events. */
  async insertText(text: string): Promise<void> {
    await this.#tab.send("Input.insertText", { text }, { budget: this.#budget });
  }

  async #keyDown(key: KeyDefinition, modifiers: number, typesText = false): Promise<void> {
    const text = typesText ? key.text : undefined;
    await this.#tab.send(
      "Input.dispatchKeyEvent",
      {
        type: text === undefined ? "rawKeyDown" : "keyDown",
        key: key.key,
        code: key.code,
        windowsVirtualKeyCode: key.keyCode,
        modifiers,
        ...(text === undefined ? {} : { text, unmodifiedText: text }),
        ...(key.location === undefined ? {} : { location: key.location }),
      },
      { budget: this.#budget },
    );
  }

  async #keyUp(key: KeyDefinition, modifiers: number): Promise<void> {
    await this.#tab.send(
      "Input.dispatchKeyEvent",
      {
        type: "keyUp",
        key: key.key,
        code: key.code,
        windowsVirtualKeyCode: key.keyCode,
        modifiers,
        ...(key.location === undefined ? {} : { location: key.location }),
      },
      { budget: this.#budget },
    );
  }

  async #mouse(event: Protocol.Input.DispatchMouseEventRequest): Promise<void> {
    await this.#tab.send("Input.dispatchMouseEvent", event, { budget: this.#budget });
  }
}
