// What a view or panel set up and must undo when it goes: timers, listeners, subscriptions.

/** Collects clean-up functions and runs them all, once, on dispose(). */
export class Scope {
  private cleanups: Array<() => void> = [];
  private disposed = false;

  /** Whether dispose() ran: late async work checks it before touching the page. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Adds a clean-up function; runs it at once when the scope is already disposed. */
  add(cleanup: () => void): void {
    if (this.disposed) cleanup();
    else this.cleanups.push(cleanup);
  }

  /** setInterval that ends with the scope. */
  every(ms: number, tick: () => void): void {
    const timer = setInterval(tick, ms);
    this.add(() => clearInterval(timer));
  }

  /** addEventListener that is removed with the scope (for listener options, e.g. a non-passive wheel, use add()). */
  listen<K extends keyof HTMLElementEventMap>(target: HTMLElement, type: K, listener: (event: HTMLElementEventMap[K]) => void): void;
  listen(target: EventTarget, type: string, listener: (event: Event) => void): void;
  listen(target: EventTarget, type: string, listener: (event: Event) => void): void {
    target.addEventListener(type, listener);
    this.add(() => target.removeEventListener(type, listener));
  }

  /** Runs the clean-ups, newest first; later calls do nothing. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const cleanup of this.cleanups.reverse()) {
      try {
        cleanup();
      } catch (error) {
        console.error("clean-up failed", error);
      }
    }
    this.cleanups = [];
  }
}

/** A function that runs `fn` once, `ms` after the last of a burst of calls; cancel() drops a pending run. */
export interface Debounced {
  (): void;
  cancel(): void;
}

/** Debounces fn: calls within `ms` of each other make one call, `ms` after the last. */
export function debounce(fn: () => void, ms: number): Debounced {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const debounced = (() => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  }) as Debounced;
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}
