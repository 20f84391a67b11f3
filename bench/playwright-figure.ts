import { chromium } from "playwright-core";
import { compareLatency, evaluateViaHub, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

/** Median evaluate("1+1") through the hub against playwright-core's page.evaluate over connectOverCDP, same Chromium. */
export async function playwrightFigure(context: BenchContext): Promise<Figure> {
  const browser = await chromium.connectOverCDP(context.cdpUrl);
  try {
    const defaultContext = browser.contexts()[0];
    if (!defaultContext) throw new Error("playwright-core found no browser context over CDP");
    const page = await defaultContext.newPage();
    const viaPlaywright = async (): Promise<void> => {
      const value = await page.evaluate("1+1");
      if (value !== 2) throw new Error(`playwright-core evaluated 1+1 to ${JSON.stringify(value)}`);
    };
    const result = await compareLatency({
      viaHub: () => evaluateViaHub(context),
      viaAlternative: viaPlaywright,
      warmupCalls: 200,
      calls: context.calls,
      rounds: context.rounds,
    });
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
