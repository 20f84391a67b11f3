import { HubError, isHubError } from "../errors.js";
import { shortUrl } from "../cdp/pending-load.js";
import { formatTarget } from "../target-id.js";
import { navigateTab } from "../runtime/navigate-tab.js";
import { checkUrlAllowed } from "../runtime/url-policy.js";
import { callerClient, defineMethod } from "../services.js";

const CLOSE_TIMEOUT_MS = 2_000;
// How long past the call's budget a Target.createTarget answer is still waited for, to close a tab that came late.
const LATE_TAB_GRACE_MS = 10_000;

/** `tabs.open`: a new tab for a client, in that client's browser context, loaded to `waitUntil`; a tab whose load fails is closed again. */
export const tabsOpen = defineMethod("tabs.open", { runs: "client", needs: "act", changesListings: true }, async (params, call) => {
  const { browser, clients, pool, config } = call.services;
  checkUrlAllowed(params.url, config);
  const clientId = callerClient(call, params.clientId, "open tabs");
  const open = clients.tabCount(clientId);
  if (open >= config.maxTabsPerClient) {
    throw new HubError(
      "OVERLOADED",
      `client ${clientId} has ${open} tabs open (MAX_TABS_PER_CLIENT=${config.maxTabsPerClient}); close some with tabs.close first`,
      { limit: config.maxTabsPerClient },
    );
  }
  // A policed client's tab starts blank: its session is attached (to answer the proxy's sign-in) before its first request.
  const direct = params.url === "about:blank" || (params.waitUntil === "none" && !call.services.egress.isPoliced(clientId));
  const browserContextId = await clients.contexts.acquire(clientId, call.budget);
  const connection = browser.connection();
  // Chrome makes the tab even when the call ends first: the command outlives the budget, so a late tab is closed.
  const creating = connection.send(
    "Target.createTarget",
    {
      url: direct ? params.url : "about:blank",
      background: params.background,
      ...(browserContextId === undefined ? {} : { browserContextId }),
    },
    { timeoutMs: call.budget.remainingMs() + LATE_TAB_GRACE_MS },
  );
  let targetId: string;
  try {
    targetId = (await call.budget.race(creating)).targetId;
  } catch (error) {
    void creating.then(({ targetId: late }) => browser.closePage(late, AbortSignal.timeout(CLOSE_TIMEOUT_MS))).catch(() => {});
    throw error;
  }
  try {
    const since = Date.now();
    if (!direct)
      await navigateTab(await pool.acquire(targetId, call.budget), params, call.budget).catch((error: unknown) => {
        throw call.services.egress.explain(error, clientId, { url: params.url, since });
      });
    const { targetInfo } = await connection.send("Target.getTargetInfo", { targetId }, { budget: call.budget });
    browser.notePage(targetInfo);
    if (!params.background) clients.activity.activated(targetId);
    return { target: formatTarget(clientId, targetId), clientId, tabId: targetId, url: targetInfo.url };
  } catch (error) {
    // closePage re-sends the close that Chrome drops while the page is still navigating, as it often is here.
    // Within the budget the answer waits for it, so the caller's next tabs.list no longer shows the tab.
    const closing = browser.closePage(targetId, AbortSignal.timeout(CLOSE_TIMEOUT_MS)).catch(() => {});
    if (!call.budget.isOver) await call.budget.race(closing).catch(() => {});
    throw isHubError(error, "TIMEOUT")
      ? new HubError(
          "TIMEOUT",
          `${shortUrl(params.url)} did not load within ${call.budget.timeoutMs} ms; the new tab was closed again`,
          error.data,
        )
      : error;
  }
});
