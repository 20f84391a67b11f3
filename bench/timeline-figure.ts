import { answered } from "./compare.js";
import type { Figure } from "./figure.js";
import { startHubProcess, type HubProcess } from "./load.js";
import { alternatedEvaluateCpu, blockRatio } from "./evaluate-cpu.js";
import { cpuDuring } from "./process-cpu.js";
import { median, timeSequential } from "./stats.js";
import { WsCaller } from "./ws-caller.js";

const WARMUP_CALLS = 2_000;
const BLOCK_CALLS = 200;
const WARMUP_CLICKS = 20;
const BLOCK_CLICKS = 20;
// A page a click changes: each click flips its colour, so that its before and after pictures differ as a real step's do.
const CLICK_PAGE = `data:text/html,${encodeURIComponent(
  "<body style='margin:0'><button id=b style='width:300px;height:100px' onclick=\"document.body.style.background = document.body.style.background ? '' : 'tomato'\">flip</button><p>" +
    "Lorem ipsum dolor sit amet. ".repeat(40) +
    "</p></body>",
)}`;

/** One hub of the comparison: its process, and an evaluate and a click on a tab of its own. */
interface Side {
  pid: number;
  call: (method: string, params: object) => Promise<Record<string, unknown>>;
  evaluate: () => Promise<void>;
  click: () => Promise<void>;
  target: string;
}

/**
 * What the tabs' timelines cost: hubs of the same build on the bench's Chrome, the same client calling each in
 * alternated blocks after a warm-up. Hub CPU per evaluate("1+1") with the timeline on (the default) against
 * TIMELINE_ENABLED=false; then per click (the `acts` trait) with TIMELINE_PICTURES=on against off: the time the caller
 * waits and the hub's CPU, and the size of a picture.
 */
export async function timelineFigures(cdpUrl: string, rounds: number): Promise<Figure[]> {
  const hubs: HubProcess[] = [];
  const callers: WsCaller[] = [];
  const open = async (env: Record<string, string>): Promise<Side> => {
    const hub = await startHubProcess({ env: { CDP_URL: cdpUrl, ...env } });
    hubs.push(hub);
    const caller = await WsCaller.open(`${hub.url}/rpc`);
    callers.push(caller);
    const call = (method: string, params: object): Promise<Record<string, unknown>> =>
      answered(caller.send({ jsonrpc: "2.0", method, params }));
    const { target } = (await call("tabs.open", { url: CLICK_PAGE })).result as { target: string };
    return {
      pid: hub.pid,
      call,
      target,
      evaluate: async () => void (await call("evaluate", { target, expression: "1+1" })),
      click: async () => void (await call("click", { target, selector: "#b" })),
    };
  };
  try {
    const off = await open({ TIMELINE_ENABLED: "false" });
    const on = await open({});
    const pictured = await open({ TIMELINE_PICTURES: "on" });
    const cpu = await evaluateCpu(off, on, rounds);
    const clicks = await clickCosts(on, pictured, rounds);
    const bytes = await pictureBytes(pictured);
    return [
      {
        name: `CPU per evaluate("1+1"): the hub keeping the tab's timeline (the default) / TIMELINE_ENABLED=false (${rounds * 5} alternated blocks of ${BLOCK_CALLS})`,
        label: "CPU per evaluate, timeline on vs off",
        unit: "µs",
        goal: "<= 1.05",
        hub: median(cpu.on),
        alternative: median(cpu.off),
        ratio: blockRatio(cpu.on, cpu.off),
      },
      {
        name: `a click as its caller waits for it: TIMELINE_PICTURES=on (a before and an after picture, median ${Math.round(bytes / 1024)} KB each) / off (${rounds} alternated blocks of ${BLOCK_CLICKS})`,
        label: "click, timeline pictures on vs off",
        unit: "ms",
        goal: "(report)",
        hub: median(clicks.pictured),
        alternative: median(clicks.plain),
        ratio: median(clicks.pictured) / median(clicks.plain),
      },
      {
        name: `hub CPU per click: TIMELINE_PICTURES=on / off (${rounds} alternated blocks of ${BLOCK_CLICKS})`,
        label: "hub CPU per click, pictures on vs off",
        unit: "ms",
        goal: "(report)",
        hub: median(clicks.picturedCpu),
        alternative: median(clicks.plainCpu),
        ratio: median(clicks.picturedCpu) / median(clicks.plainCpu),
      },
    ];
  } finally {
    await Promise.all(callers.map((caller) => caller.close()));
    await Promise.all(hubs.map((hub) => hub.stop()));
  }
}

/** Hub CPU per evaluate (µs) with the timeline off and on, block by block, after a warm-up. */
async function evaluateCpu(off: Side, on: Side, rounds: number): Promise<{ off: number[]; on: number[] }> {
  const [offCpu = [], onCpu = []] = await alternatedEvaluateCpu([off, on], {
    blocks: rounds * 5,
    blockCalls: BLOCK_CALLS,
    warmupCalls: WARMUP_CALLS,
  });
  return { off: offCpu, on: onCpu };
}

/** A click's median wall time and the hub's CPU per click (ms) without pictures and with them, block by block. */
async function clickCosts(
  plain: Side,
  pictured: Side,
  rounds: number,
): Promise<Record<"plain" | "pictured" | "plainCpu" | "picturedCpu", number[]>> {
  for (const side of [plain, pictured]) await timeSequential(WARMUP_CLICKS, side.click);
  const clicks = { plain: [] as number[], pictured: [] as number[], plainCpu: [] as number[], picturedCpu: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const [side, wall, cpuOf] of [
      [plain, clicks.plain, clicks.plainCpu],
      [pictured, clicks.pictured, clicks.picturedCpu],
    ] as const) {
      let times: number[] = [];
      const nanos = await cpuDuring(side.pid, async () => void (times = await timeSequential(BLOCK_CLICKS, side.click)));
      wall.push(median(times));
      cpuOf.push(nanos / BLOCK_CLICKS / 1e6);
    }
  }
  return clicks;
}

/** The median size of the pictures the pictured hub's clicks got, in bytes of JPEG. */
async function pictureBytes(side: Side): Promise<number> {
  const answer = await side.call("timeline.get", { target: side.target, limit: 1_000 });
  const { entries } = answer.result as { entries: { before?: { data: string }; after?: { data: string } }[] };
  const sizes = entries
    .flatMap((entry) => [entry.before, entry.after])
    .flatMap((picture) => (picture ? [Buffer.from(picture.data, "base64").length] : []));
  return median(sizes);
}
