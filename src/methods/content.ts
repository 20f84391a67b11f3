import { readPageContent } from "../runtime/page-content.js";
import { acquireTab, defineMethod } from "../services.js";

/** `content`: the tab's document as serialized HTML or rendered text, optionally with every iframe's, optionally cut to a size. */
export const content = defineMethod("content", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const { tab } = await acquireTab(call, params.target);
  const maxSize = params.maxSize ?? call.services.config.maxResultBytes;
  return readPageContent({ tab, connection: call.services.browser.connection() }, { ...params, maxSize }, call.budget);
});
