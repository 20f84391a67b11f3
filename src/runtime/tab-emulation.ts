import type { Budget } from "../budget.js";
import type { Browser } from "../cdp/browser.js";
import { ProtocolError } from "../cdp/callback-registry.js";
import type { SessionPool } from "../cdp/session-pool.js";
import type { TabSession } from "../cdp/tab-session.js";
import { HubError } from "../errors.js";

/** What a tab is made to look like: its screen, its user agent, locale and time zone, its place, its colours and its CPU. */
export interface Emulation {
  viewport?: { width: number; height: number; deviceScaleFactor?: number; mobile?: boolean };
  userAgent?: string;
  locale?: string;
  timezone?: string;
  geolocation?: { latitude: number; longitude: number; accuracy?: number };
  colorScheme?: "light" | "dark" | "no-preference";
  cpuThrottling?: number;
}

/** What a tab's network is made to be: offline, or slower. */
export interface NetworkConditions {
  offline: boolean;
  latencyMs: number;
  downloadBps: number;
  uploadBps: number;
}

/** What the hub keeps of one tab: its emulation and its network conditions. */
export interface TabSettings {
  emulation: Emulation;
  network: NetworkConditions | null;
}

/** Where each tab's settings are written down to outlive the hub (see ClientStore); null: the tab went. */
export interface TabSettingsRecord {
  tabSettings(tabId: string, settings: object | null): Promise<void>;
}

type Options = { budget?: Budget; timeoutMs?: number };

const REAPPLY_TIMEOUT_MS = 5_000;

/**
 * The emulation and network conditions set on each tab, kept by the hub: Chrome holds them per CDP session, so the
 * hub sets them again on the tab's new session whenever its pooled one is replaced, and forgets them with the tab.
 */
export class TabEmulation {
  #byTab = new Map<string, TabSettings>();
  #record: TabSettingsRecord | null = null;

  constructor(pool: SessionPool, browser: Browser) {
    pool.onAttach((tab) => this.#reapply(tab));
    browser.on("pageCrashed", (tabId) => this.#forget(tabId));
    // A tab lost with the connection may come back with it (CDP_URL): its written-down settings wait for it.
    browser.on("pageDestroyed", (tabId, reason) => (reason === "closed" || this.#record === null) && this.#forget(tabId));
    browser.on("disconnected", () => this.#record === null && this.#byTab.clear());
  }

  /** Takes back the settings a hub before this one wrote down, and writes every change down in `record` from now on. */
  recordIn(record: TabSettingsRecord, kept: ReadonlyMap<string, unknown>): void {
    this.#record = record;
    for (const [tabId, settings] of kept) if (isTabSettings(settings)) this.#byTab.set(tabId, settings);
  }

  /** Forgets the settings of tabs that are not among `tabIds` (a restarted hub's, once Chrome has listed its pages). */
  keepTabs(tabIds: ReadonlySet<string>): void {
    for (const tabId of [...this.#byTab.keys()]) if (!tabIds.has(tabId)) this.#forget(tabId);
  }

  /** Sets what `change` names on the tab, keeping what earlier calls set. */
  async emulate(tab: TabSession, change: Emulation, budget: Budget): Promise<void> {
    await applyEmulation(tab, change, { budget });
    const settings = this.#settingsOf(tab.tabId);
    settings.emulation = { ...settings.emulation, ...change };
    await this.#write(tab.tabId, budget);
  }

  /** Undoes every emulation of the tab (its network conditions stay). */
  async reset(tab: TabSession, budget: Budget): Promise<void> {
    const options = { budget };
    await Promise.all([
      tab.send("Emulation.clearDeviceMetricsOverride", undefined, options),
      tab.send("Emulation.setTouchEmulationEnabled", { enabled: false }, options),
      tab.send("Emulation.setLocaleOverride", {}, options),
      tab.send("Emulation.setTimezoneOverride", { timezoneId: "" }, options),
      tab.send("Emulation.clearGeolocationOverride", undefined, options),
      tab.send("Emulation.setEmulatedMedia", { features: [] }, options),
      tab.send("Emulation.setCPUThrottlingRate", { rate: 1 }, options),
      tab.send("Emulation.setUserAgentOverride", { userAgent: "" }, options),
    ]);
    this.#settingsOf(tab.tabId).emulation = {};
    await this.#write(tab.tabId, budget);
  }

  /** Sets the tab's network conditions; all-zero and online is no throttling at all. */
  async setNetwork(tab: TabSession, conditions: NetworkConditions, budget: Budget): Promise<void> {
    await applyNetwork(tab, conditions, { budget });
    this.#settingsOf(tab.tabId).network = conditions;
    await this.#write(tab.tabId, budget);
  }

  async #write(tabId: string, budget: Budget): Promise<void> {
    const settings = this.#byTab.get(tabId);
    if (this.#record && settings) await budget.race(this.#record.tabSettings(tabId, settings));
  }

  #forget(tabId: string): void {
    if (this.#byTab.delete(tabId)) this.#record?.tabSettings(tabId, null).catch(() => undefined);
  }

  #settingsOf(tabId: string): TabSettings {
    let settings = this.#byTab.get(tabId);
    if (!settings) this.#byTab.set(tabId, (settings = { emulation: {}, network: null }));
    return settings;
  }

  /** Sets a tab's emulation and network conditions again on its new session, before any call uses it. */
  async #reapply(tab: TabSession): Promise<void> {
    const settings = this.#byTab.get(tab.tabId);
    if (!settings) return;
    const options = { timeoutMs: REAPPLY_TIMEOUT_MS };
    await Promise.all([applyEmulation(tab, settings.emulation, options), settings.network && applyNetwork(tab, settings.network, options)]);
  }
}

// Written by a hub before this one: only its shape is checked, Chrome refuses a value it does not take at the reapply.
function isTabSettings(value: unknown): value is TabSettings {
  if (typeof value !== "object" || value === null) return false;
  const { emulation, network } = value as Record<string, unknown>;
  return typeof emulation === "object" && emulation !== null && (network === null || typeof network === "object");
}

async function applyEmulation(tab: TabSession, emulation: Emulation, options: Options): Promise<void> {
  const sends: Promise<unknown>[] = [];
  const { viewport, userAgent, locale, timezone, geolocation, colorScheme, cpuThrottling } = emulation;
  if (viewport) {
    const mobile = viewport.mobile ?? false;
    const metrics = { width: viewport.width, height: viewport.height, deviceScaleFactor: viewport.deviceScaleFactor ?? 0, mobile };
    sends.push(tab.send("Emulation.setDeviceMetricsOverride", metrics, options));
    sends.push(tab.send("Emulation.setTouchEmulationEnabled", { enabled: mobile, ...(mobile ? { maxTouchPoints: 5 } : {}) }, options));
  }
  if (userAgent !== undefined) sends.push(invalidAs("userAgent", tab.send("Emulation.setUserAgentOverride", { userAgent }, options)));
  if (locale !== undefined) sends.push(invalidAs("locale", tab.send("Emulation.setLocaleOverride", { locale }, options)));
  if (timezone !== undefined)
    sends.push(invalidAs("timezone", tab.send("Emulation.setTimezoneOverride", { timezoneId: timezone }, options)));
  if (geolocation) sends.push(tab.send("Emulation.setGeolocationOverride", { accuracy: 10, ...geolocation }, options));
  if (colorScheme)
    sends.push(tab.send("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: colorScheme }] }, options));
  if (cpuThrottling !== undefined) sends.push(tab.send("Emulation.setCPUThrottlingRate", { rate: cpuThrottling }, options));
  await Promise.all(sends);
}

async function applyNetwork(tab: TabSession, conditions: NetworkConditions, options: Options): Promise<void> {
  // Chrome applies them while the tab's Network domain is on: the network log turned it on at the attach, before this.
  await tab.send(
    "Network.emulateNetworkConditions",
    {
      offline: conditions.offline,
      latency: conditions.latencyMs,
      downloadThroughput: conditions.downloadBps > 0 ? conditions.downloadBps : -1,
      uploadThroughput: conditions.uploadBps > 0 ? conditions.uploadBps : -1,
    },
    options,
  );
}

/** A value Chrome refuses (an unknown time zone or locale) is the caller's INVALID_PARAMS. */
function invalidAs(field: string, sent: Promise<unknown>): Promise<unknown> {
  return sent.catch((error: unknown) => {
    if (error instanceof ProtocolError) {
      const message = `Chrome does not know this ${field}: ${error.protocolMessage}`;
      throw new HubError("INVALID_PARAMS", message, { errors: [{ path: `/${field}`, message }] });
    }
    throw error;
  });
}
