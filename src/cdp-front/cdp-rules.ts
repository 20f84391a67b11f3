/**
 * What a /cdp connection may send (docs/cdp.md): everything on its own targets' sessions, except what reaches past
 * its client (the hub's files, other contexts, the browser itself); at the browser level, an allowlist, each command
 * kept to the client's context.
 */

/** Refused wherever they are sent: they reach the hub's machine or the whole browser. */
export const REFUSED: ReadonlySet<string> = new Set([
  // Another client's context, or a session past every filter.
  "Target.createBrowserContext",
  "Target.disposeBrowserContext",
  "Target.attachToBrowserTarget",
  "Target.exposeDevToolsProtocol",
  "Target.sendMessageToTarget",
  "Target.setRemoteLocations",
  "Target.openDevTools",
  "Target.autoAttachRelated",
  // The browser process and the machine.
  "Browser.crash",
  "Browser.crashGpuProcess",
  "Browser.getBrowserCommandLine",
  "Browser.executeBrowserCommand",
  "Browser.getHistograms",
  "Browser.getHistogram",
  "Browser.setDockTile",
  "Browser.addPrivacySandboxEnrollmentOverride",
  "Browser.addPrivacySandboxCoordinatorKeyConfig",
  // Files of the hub's machine: read into a page, or written where the caller says.
  "DOM.setFileInputFiles",
  "Network.loadNetworkResource",
  "Page.setDownloadBehavior",
]);

/** Refused by domain: the machine's hardware and processes. */
export const REFUSED_DOMAINS: ReadonlySet<string> = new Set(["SystemInfo", "Tethering"]);

/** Browser-level commands given the client's browser context in place of whatever the caller named. */
export const IN_CLIENT_CONTEXT: ReadonlySet<string> = new Set([
  "Storage.getCookies",
  "Storage.setCookies",
  "Storage.clearCookies",
  "Browser.grantPermissions",
  "Browser.resetPermissions",
  "Browser.setPermission",
  "Browser.setDownloadBehavior",
  "Browser.cancelDownload",
]);

/** Target commands that name one target by `targetId`: only the client's own pages. */
export const BY_TARGET_ID: ReadonlySet<string> = new Set(["Target.activateTarget", "Target.closeTarget", "Target.getTargetInfo"]);

/** Whether a command is refused outright. */
export function isRefused(method: string): boolean {
  return REFUSED.has(method) || REFUSED_DOMAINS.has(method.slice(0, method.indexOf(".")));
}

/** Whether a command on a session is run by the browser-level rules (it acts on targets, contexts or the browser). */
export function isBrowserScoped(method: string): boolean {
  return method.startsWith("Target.") || method.startsWith("Browser.") || IN_CLIENT_CONTEXT.has(method);
}
