import { isHubError } from "../errors.js";
import { formatTarget } from "../target-id.js";
import type { RouteContext } from "./api.js";
import { field } from "./http-io.js";

/** The tab a request's body names, as the eval-server's callers give it: clientId and tabId. */
function tabOf(body: Record<string, unknown>): { clientId: string; tabId: string; target: string } {
  const clientId = field(body, "clientId") as string;
  const tabId = field(body, "tabId") as string;
  return { clientId, tabId, target: formatTarget(clientId, tabId) };
}

/** POST /tabs/open: tabs.open for the body's client. */
export async function openTab({ body, call }: RouteContext): Promise<unknown> {
  const opened = await call("tabs.open", {
    clientId: field(body, "clientId"),
    url: field(body, "url", false),
    background: body.background === true,
  });
  return { clientId: opened.clientId, tabId: opened.tabId, compositeClientId: opened.target, url: opened.url, status: "opened" };
}

/** POST /tabs/close: tabs.close. */
export async function closeTab({ body, call }: RouteContext): Promise<unknown> {
  const { clientId, tabId, target } = tabOf(body);
  await call("tabs.close", { target });
  return { clientId, tabId, status: "closed", success: true };
}

/** POST /page/content: content as HTML or text. */
export async function pageContent({ body, call }: RouteContext): Promise<unknown> {
  const { clientId, tabId, target } = tabOf(body);
  const page = await call("content", { target, format: body.format === "text" ? "text" : "html" });
  return { clientId, tabId, content: page.content, format: page.format, length: page.length, timestamp: Date.now() };
}

/** POST /page/screenshot: a PNG of the viewport or the whole page, as a data URL. */
export async function pageScreenshot({ body, call }: RouteContext): Promise<unknown> {
  const { clientId, tabId, target } = tabOf(body);
  const shot = await call("screenshot", { target, fullPage: body.fullPage === true });
  const imageData = `data:${shot.mimeType};base64,${shot.data}`;
  return { clientId, tabId, imageData, format: shot.format, fullPage: body.fullPage === true, timestamp: Date.now() };
}

/** POST /page/execute: evaluate; as the eval-server did, a page exception is a 200 with exceptionDetails. */
export async function pageExecute({ body, call }: RouteContext): Promise<unknown> {
  const { clientId, tabId, target } = tabOf(body);
  const expression = field(body, "expression") as string;
  try {
    const result = await call("evaluate", { target, expression, awaitPromise: body.awaitPromise !== false });
    return { clientId, tabId, result };
  } catch (error) {
    if (!isHubError(error, "EVALUATION_FAILED")) throw error;
    const data = error.data as { stack?: string; lineNumber?: number; columnNumber?: number };
    const exceptionDetails = {
      text: error.message,
      lineNumber: data.lineNumber,
      columnNumber: data.columnNumber,
      exception: { description: data.stack },
    };
    return { clientId, tabId, result: { type: "object", subtype: "error", description: error.message }, exceptionDetails };
  }
}
