import puppeteer from "puppeteer-core";
import { compareEvaluateWith, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

/** Median evaluate("1+1") through the hub against puppeteer-core's page.evaluate on a fresh page of the same Chromium. */
export async function puppeteerFigure(context: BenchContext): Promise<Figure> {
  const browser = await puppeteer.connect({ browserWSEndpoint: context.cdpUrl, defaultViewport: null });
  try {
    const page = await browser.newPage();
    const result = await compareEvaluateWith(context, "puppeteer-core", () => page.evaluate("1+1"));
    await page.close();
    return {
      name: 'evaluate("1+1") round trip: hub / puppeteer-core page.evaluate in-process (same Chromium)',
      label: "evaluate 1+1 vs puppeteer-core",
      unit: "ms",
      goal: "<= 1.1",
      ...result,
    };
  } finally {
    await browser.disconnect();
  }
}
