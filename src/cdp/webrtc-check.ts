import type { Browser } from "./browser.js";
import { CDP_COMMAND_TIMEOUT_MS } from "./callback-registry.js";

// Either switch keeps WebRTC's UDP (STUN, media) inside a proxy, where an HTTP proxy carries none of it.
const GUARD_SWITCHES = ["--webrtc-ip-handling-policy=disable_non_proxied_udp", "--force-webrtc-ip-handling-policy"];
// What Chrome answers Browser.getBrowserCommandLine when it was started without --enable-automation.
const NO_AUTOMATION = "enable-automation";

/**
 * An egress proxy holds what goes over TCP; WebRTC sends UDP from the browser itself, around any proxy, unless Chrome
 * was started with a switch that forbids it. The embedded Chrome always is; a Chrome of the operator's (CDP_URL) is
 * checked once per connection, by its command line, before a policed context is made in it.
 */
export class WebRtcCheck {
  #browser: Browser;
  #answer: Promise<string | null> | null = null;

  constructor(browser: Browser) {
    this.#browser = browser;
    // Another connection may be another Chrome: asked again.
    browser.on("connected", () => (this.#answer = null));
  }

  /** Why a policy cannot be enforced in this Chrome (a sentence to put in an error), or null when it can. */
  whyNot(): Promise<string | null> {
    this.#answer ??= this.#read().catch((error: unknown) => {
      // A failure to ask (Chrome away, a timeout) is asked again next time; the context is not made meanwhile.
      this.#answer = null;
      return `the hub cannot read Chrome's command line to check it (${(error as Error).message})`;
    });
    return this.#answer;
  }

  async #read(): Promise<string | null> {
    let switches: string[];
    try {
      const answer = await this.#browser
        .connection()
        .send("Browser.getBrowserCommandLine", undefined, { timeoutMs: CDP_COMMAND_TIMEOUT_MS });
      switches = answer.arguments;
    } catch (error) {
      if (!(error as Error).message.includes(NO_AUTOMATION)) throw error;
      return "the Chrome at CDP_URL does not show its command line (start it with --enable-automation), so the hub cannot see that WebRTC is held to the proxy (--webrtc-ip-handling-policy=disable_non_proxied_udp)";
    }
    if (switches.some((each) => GUARD_SWITCHES.includes(each))) return null;
    return "the Chrome at CDP_URL was not started with --webrtc-ip-handling-policy=disable_non_proxied_udp, so WebRTC would reach any host around the egress proxy; start it with that switch";
  }
}
