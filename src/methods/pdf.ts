import { ProtocolError } from "../cdp/callback-registry.js";
import { HubError } from "../errors.js";
import { aloneOnTab } from "../runtime/capture-lock.js";
import { acquireTab, defineMethod } from "../services.js";

const PRINT_TIMEOUT_MS = 60_000;

/** Paper sizes in inches, as Chrome's print dialog names them. */
const PAPER: Readonly<Record<string, { width: number; height: number }>> = {
  Letter: { width: 8.5, height: 11 },
  Legal: { width: 8.5, height: 14 },
  Tabloid: { width: 11, height: 17 },
  A3: { width: 11.69, height: 16.54 },
  A4: { width: 8.27, height: 11.69 },
  A5: { width: 5.83, height: 8.27 },
};

/** `pdf`: the tab's document printed to a PDF (Page.printToPDF), base64. */
export const pdf = defineMethod("pdf", { runs: "tab", needs: "read", reads: true }, async (params, call) => {
  const { tab } = await acquireTab(call, params.target);
  const paper = PAPER[params.format ?? "Letter"] ?? PAPER.Letter!;
  // Printing holds the tab until Chrome answers, even past a caller who stopped waiting: a print started while another
  // runs fails.
  const printing = aloneOnTab(tab, call.budget, () =>
    tab.send(
      "Page.printToPDF",
      {
        landscape: params.landscape ?? false,
        printBackground: params.printBackground ?? false,
        paperWidth: paper.width,
        paperHeight: paper.height,
        ...(params.scale === undefined ? {} : { scale: params.scale }),
        ...(params.pageRanges === undefined ? {} : { pageRanges: params.pageRanges }),
      },
      { timeoutMs: PRINT_TIMEOUT_MS },
    ),
  );
  // A print that ends after its caller stopped waiting is nobody's error.
  printing.catch(() => undefined);
  const { data } = await call.budget.race(printing).catch((error: unknown) => {
    // A page range the document does not have, or cannot be read.
    if (error instanceof ProtocolError && /page range/i.test(error.protocolMessage)) {
      const message = `${error.protocolMessage}: give pages as a print dialog takes them ('1-3, 5'), within the document`;
      throw new HubError("INVALID_PARAMS", message, { errors: [{ path: "/pageRanges", message }] });
    }
    // Chrome's answer to a print cut short by the page going to another document.
    if (error instanceof ProtocolError && /Printing failed/.test(error.protocolMessage))
      throw new HubError("PAGE_NAVIGATED", "the page navigated while it was printed; print it again");
    throw error;
  });
  return { data, bytes: Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0) };
});
