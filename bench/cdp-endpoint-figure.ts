import puppeteer from "puppeteer-core";
import { compareLatency, type BenchContext } from "./compare.js";
import type { Figure } from "./figure.js";

/**
 * puppeteer-core's page.evaluate("1+1") through the hub's /cdp endpoint against the same call straight on Chrome, each
 * on a page of its own in the same Chromium, rounds interleaved.
 */
export async function cdpEndpointFigure(context: BenchContext, hubUrl: string): Promise<Figure> {
  const viaHub = await puppeteer.connect({ browserWSEndpoint: `${hubUrl}/cdp`, defaultViewport: null });
  const direct = await puppeteer.connect({ browserWSEndpoint: context.cdpUrl, defaultViewport: null });
  try {
    const [hubPage, directPage] = await Promise.all([viaHub.newPage(), direct.newPage()]);
    const evaluated = (page: typeof hubPage) => async (): Promise<void> => {
      const value: unknown = await page.evaluate("1+1");
      if (value !== 2) throw new Error(`page.evaluate("1+1") gave ${JSON.stringify(value)}`);
    };
    const result = await compareLatency({
      viaHub: evaluated(hubPage),
      viaAlternative: evaluated(directPage),
      warmupCalls: 200,
      calls: context.calls,
      rounds: context.rounds,
    });
    await Promise.all([hubPage.close(), directPage.close()]);
    return {
      name: 'puppeteer-core page.evaluate("1+1") through the hub\'s /cdp / straight on Chrome (same Chromium)',
      label: "puppeteer via /cdp vs direct",
      unit: "ms",
      goal: "<= 1.4",
      ...result,
    };
  } finally {
    await Promise.all([viaHub.disconnect(), direct.disconnect()]);
  }
}
