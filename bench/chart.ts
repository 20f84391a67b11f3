import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { launchChromeWithPort, resolveChromePath } from "../src/cdp/chrome-launcher.js";
import { answered } from "./compare.js";
import { goalBound, isGoalMet, type Figure } from "./figure.js";
import { WsCaller } from "./ws-caller.js";

/** Where the chart goes, next to results.json. */
export const CHART_URL = new URL("../../bench/chart.png", import.meta.url);
const RESULTS_URL = new URL("../../bench/results.json", import.meta.url);

/** What the chart says of the run besides its figures. */
export interface ChartHeading {
  machine: string;
  date: string;
  rounds: number;
}

const WIDTH = 1280;
const ROW_HEIGHT = 58;
const TOP = 92;
const BOTTOM = 64;
const PLOT_LEFT = 430;
const PLOT_RIGHT = 960;
const LIST_HEADING_HEIGHT = 40;
const LIST_ROW_HEIGHT = 24;
const LIST_VALUE_LEFT = 700;
const MET = "#2e7d32";
const MISSED = "#c62828";

/**
 * Draws the figures that have a goal on a ratio as bars of tabwire / alternative on a log scale, with each goal's
 * region, and lists the others below: reported ratios, and figures of tabwire alone with their goal if they have one.
 */
export function chartSvg(figures: readonly Figure[], heading: ChartHeading): { svg: string; width: number; height: number } {
  const isBar = (f: Figure): boolean => goalBound(f.goal) !== null && Number.isFinite(f.alternative);
  const rows = figures.filter(isBar);
  const listed = figures.filter((f) => !isBar(f));
  const plotBottom = TOP + rows.length * ROW_HEIGHT;
  const listTop = plotBottom + BOTTOM + (listed.length > 0 ? LIST_HEADING_HEIGHT : 0);
  const height = listTop + listed.length * LIST_ROW_HEIGHT + (listed.length > 0 ? LIST_ROW_HEIGHT : 0);
  const scale = logScale([1, ...rows.flatMap((f) => [f.ratio, goalBound(f.goal) ?? 1])]);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    text("tabwire against its alternatives: ratio tabwire / alternative, same Chromium, same run", {
      x: 24,
      y: 34,
      size: 19,
      weight: "bold",
    }),
    text(`median of ${heading.rounds} interleaved rounds; ${heading.machine}; ${heading.date}`, { x: 24, y: 58, size: 13, fill: "#555" }),
    text("bar: from parity (1x) to the ratio, green when the goal is met; shaded: where the goal is met", {
      x: 24,
      y: 78,
      size: 13,
      fill: "#555",
    }),
    ...axis(scale, plotBottom),
    ...rows.flatMap((figure, i) => row(figure, TOP + i * ROW_HEIGHT, scale)),
    ...(listed.length > 0
      ? [
          text("without a bar: reported ratios, and figures of tabwire alone (load on one hub)", {
            x: 24,
            y: listTop - 16,
            size: 15,
            weight: "bold",
          }),
        ]
      : []),
    ...listed.flatMap((figure, i) => listRow(figure, listTop + i * LIST_ROW_HEIGHT)),
    "</svg>",
  ];
  return { svg: parts.join("\n"), width: WIDTH, height };
}

interface LogScale {
  ticks: number[];
  x: (value: number) => number;
}

/** A base-2 log scale over the plot that holds every value, its ends on powers of two. */
function logScale(values: readonly number[]): LogScale {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  const low = Math.floor(Math.log2(Math.min(...positive) / 1.2));
  const high = Math.ceil(Math.log2(Math.max(...positive) * 1.2));
  const ticks = Array.from({ length: high - low + 1 }, (_, i) => 2 ** (low + i));
  const x = (value: number): number => {
    const exponent = Math.min(high, Math.max(low, Math.log2(Math.max(value, 2 ** low))));
    return PLOT_LEFT + ((exponent - low) / (high - low)) * (PLOT_RIGHT - PLOT_LEFT);
  };
  return { ticks, x };
}

function axis(scale: LogScale, bottom: number): string[] {
  return scale.ticks
    .flatMap((tick) => {
      const x = scale.x(tick).toFixed(1);
      const stroke = tick === 1 ? `stroke="#444" stroke-width="1.5"` : `stroke="#ddd"`;
      return [
        `<line x1="${x}" y1="${TOP - 4}" x2="${x}" y2="${bottom}" ${stroke}/>`,
        text(`${tick}x`, { x: Number(x), y: bottom + 20, size: 12, anchor: "middle", fill: "#444" }),
      ];
    })
    .concat(
      text("tabwire / alternative (log scale)", {
        x: (PLOT_LEFT + PLOT_RIGHT) / 2,
        y: bottom + 42,
        size: 13,
        anchor: "middle",
        fill: "#444",
      }),
    );
}

function row(figure: Figure, top: number, scale: LogScale): string[] {
  const bound = goalBound(figure.goal) ?? 1;
  const atMost = figure.goal.trim().startsWith("<=");
  const met = isGoalMet(figure) === true;
  const colour = met ? MET : MISSED;
  const middle = top + ROW_HEIGHT / 2;
  const [regionFrom, regionTo] = atMost ? [PLOT_LEFT, scale.x(bound)] : [scale.x(bound), PLOT_RIGHT];
  const [barFrom, barTo] = [scale.x(Math.min(1, figure.ratio)), scale.x(Math.max(1, figure.ratio))];
  const goal = figure.goal.replace("<=", "\u2264").replace(">=", "\u2265");
  return [
    `<rect x="${regionFrom.toFixed(1)}" y="${top + 6}" width="${(regionTo - regionFrom).toFixed(1)}" height="${ROW_HEIGHT - 12}" fill="#e8f5e9"/>`,
    `<line x1="${scale.x(bound).toFixed(1)}" y1="${top + 6}" x2="${scale.x(bound).toFixed(1)}" y2="${top + ROW_HEIGHT - 6}" stroke="${MET}" stroke-width="2" stroke-dasharray="5,3"/>`,
    `<rect x="${barFrom.toFixed(1)}" y="${middle - 10}" width="${Math.max(2, barTo - barFrom).toFixed(1)}" height="20" fill="${colour}"/>`,
    text(figure.label, { x: 24, y: middle - 4, size: 14, weight: "bold" }),
    text(`${atMost ? "lower" : "higher"} is better; goal ${goal}`, { x: 24, y: middle + 15, size: 12, fill: "#666" }),
    text(`${formatRatio(figure.ratio)}x  ${met ? "goal met" : "goal missed"}`, {
      x: PLOT_RIGHT + 16,
      y: middle - 4,
      size: 14,
      weight: "bold",
      fill: colour,
    }),
    text(`tabwire ${formatValue(figure.hub)} vs ${formatValue(figure.alternative)} ${figure.unit}`, {
      x: PLOT_RIGHT + 16,
      y: middle + 15,
      size: 12,
      fill: "#666",
    }),
  ];
}

/** One line of text: the figure, its value (against its alternative), and its goal on that value when it has one. */
function listRow(figure: Figure, top: number): string[] {
  const y = top + LIST_ROW_HEIGHT - 6;
  const hasAlternative = Number.isFinite(figure.alternative);
  const shown = hasAlternative
    ? `${formatValue(figure.hub)} vs ${formatValue(figure.alternative)} ${figure.unit} (${formatRatio(figure.ratio)}x)`
    : `${formatValue(figure.hub)} ${figure.unit}`;
  const met = isGoalMet(figure);
  const goal = `goal ${figure.goal.replace("<=", "\u2264").replace(">=", "\u2265")}${hasAlternative ? "" : ` ${figure.unit}`}: ${met ? "met" : "missed"}`;
  return [
    text(figure.label, { x: 24, y, size: 13 }),
    text(shown, { x: LIST_VALUE_LEFT, y, size: 13, weight: "bold" }),
    ...(met === null ? [] : [text(goal, { x: PLOT_RIGHT + 16, y, size: 13, weight: "bold", fill: met ? MET : MISSED })]),
  ];
}

interface TextStyle {
  x: number;
  y: number;
  size: number;
  weight?: string;
  fill?: string;
  anchor?: string;
}

function text(content: string, style: TextStyle): string {
  const { x, y } = style;
  const escaped = content.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `<text x="${x}" y="${y}" font-size="${style.size}" font-weight="${style.weight ?? "normal"}" fill="${style.fill ?? "#111"}" text-anchor="${style.anchor ?? "start"}">${escaped}</text>`;
}

function formatRatio(value: number): string {
  return value >= 10 ? value.toFixed(0) : value.toFixed(2);
}

function formatValue(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(2);
}

/** Renders the chart in a new tab of the Chromium at `cdpUrl` (Page.captureScreenshot) and writes it as a PNG. */
export async function writeChart(figures: readonly Figure[], heading: ChartHeading, cdpUrl: string): Promise<void> {
  const { svg, width, height } = chartSvg(figures, heading);
  const browser = await WsCaller.open(cdpUrl);
  let targetId: string | undefined;
  try {
    const created = await answered(browser.send({ method: "Target.createTarget", params: { url: "about:blank" } }));
    targetId = (created.result as { targetId: string }).targetId;
    const attached = await answered(browser.send({ method: "Target.attachToTarget", params: { targetId, flatten: true } }));
    const sessionId = (attached.result as { sessionId: string }).sessionId;
    const send = (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> =>
      answered(browser.send({ method, params, sessionId }));
    await send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 2, mobile: false });
    const tree = await send("Page.getFrameTree", {});
    const frameId = (tree.result as { frameTree: { frame: { id: string } } }).frameTree.frame.id;
    await send("Page.setDocumentContent", {
      frameId,
      html: `<!doctype html><style>html, body { margin: 0; overflow: hidden } svg { display: block }</style>${svg}`,
    });
    const shot = await send("Page.captureScreenshot", { format: "png", clip: { x: 0, y: 0, width, height, scale: 1 } });
    writeFileSync(CHART_URL, Buffer.from((shot.result as { data: string }).data, "base64"));
  } finally {
    if (targetId) await browser.send({ method: "Target.closeTarget", params: { targetId } });
    await browser.close();
  }
}

/** Redraws bench/chart.png from bench/results.json with a Chromium of its own, without running the bench again. */
async function redraw(): Promise<void> {
  const results = JSON.parse(readFileSync(RESULTS_URL, "utf8")) as ChartHeading & {
    figures: Array<Omit<Figure, "label" | "alternative" | "ratio"> & { label?: string; alternative: number | null; ratio: number | null }>;
  };
  // JSON has no NaN: a figure with no alternative was written with null there.
  const figures = results.figures.map((f) => ({
    ...f,
    label: f.label ?? f.name,
    alternative: f.alternative ?? Number.NaN,
    ratio: f.ratio ?? Number.NaN,
  }));
  const chrome = await launchChromeWithPort(resolveChromePath(process.env.CHROME_PATH ?? null), []);
  try {
    await writeChart(figures, results, chrome.wsUrl);
  } finally {
    await chrome.kill();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await redraw();
