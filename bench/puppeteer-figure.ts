import puppeteer from "puppeteer-core";
import { compareLatency, evaluateViaHub, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

/** Median evaluate("1+1") through the hub against puppeteer-core's page.evaluate on a fresh page of the same Chromium. */
export async function puppeteerFigure(context: BenchContext): Promise<Figure> {
  const browser = await puppeteer.connect({ browserWSEndpoint: context.cdpUrl, defaultViewport: null });
  try {
    const page = await browser.newPage();
    const viaPuppeteer = async (): Promise<void> => {
      const value = await page.evaluate("1+1");
      if (value !== 2) throw new Error(`puppeteer-core evaluated 1+1 to ${JSON.stringify(value)}`);
    };
    const result = await compareLatency({
      viaHub: () => evaluateViaHub(context),
      viaAlternative: viaPuppeteer,
      warmupCalls: 200,
      calls: context.calls,
      rounds: context.rounds,
    });
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
