import { chromium } from "playwright-core";
import { compareEvaluateWith, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

/** Median evaluate("1+1") through the hub against playwright-core's page.evaluate over connectOverCDP, same Chromium. */
export async function playwrightFigure(context: BenchContext): Promise<Figure> {
  const browser = await chromium.connectOverCDP(context.cdpUrl);
  try {
    const defaultContext = browser.contexts()[0];
    if (!defaultContext) throw new Error("playwright-core found no browser context over CDP");
    const page = await defaultContext.newPage();
    const result = await compareEvaluateWith(context, "playwright-core", () => page.evaluate("1+1"));
    await page.close();
    return {
      name: 'evaluate("1+1") round trip: hub / playwright-core page.evaluate in-process (connectOverCDP, same Chromium)',
      label: "evaluate 1+1 vs playwright-core",
      unit: "ms",
      goal: "<= 0.8",
      ...result,
    };
  } finally {
    // Over CDP this only disconnects: the browser and the hub's tabs stay.
    await browser.close();
  }
}
