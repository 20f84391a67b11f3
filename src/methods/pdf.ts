import { acquireTab, defineMethod } from "../services.js";

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
export const pdf = defineMethod("pdf", { runs: "tab" }, async (params, call) => {
  const { tab } = await acquireTab(call, params.target);
  const paper = PAPER[params.format ?? "Letter"] ?? PAPER.Letter!;
  const { data } = await tab.send(
    "Page.printToPDF",
    {
      landscape: params.landscape ?? false,
      printBackground: params.printBackground ?? false,
      paperWidth: paper.width,
      paperHeight: paper.height,
      ...(params.scale === undefined ? {} : { scale: params.scale }),
      ...(params.pageRanges === undefined ? {} : { pageRanges: params.pageRanges }),
    },
    { budget: call.budget },
  );
  return { data, bytes: Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0) };
});
