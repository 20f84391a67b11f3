import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { typeCheck } from "../support/type-check.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

// The dashboard is a build of its own (ui/, no import from src/), so it writes the shapes it reads again. Each pair
// says: what the hub answers or sends (the generated protocol types) is what the dashboard's copy expects, so a field
// the hub renames, drops or retypes fails this compile instead of the page.
const PAIRS: Array<[hub: string, dashboard: string]> = [
  ['Result<"tabs.list">["tabs"][number]', "Ui.Tab"],
  ['Result<"clients.list">["clients"][number]', "Ui.ClientInfo"],
  ['Result<"hub.stats">', "Ui.HubStats"],
  ['Result<"network.list">["requests"][number]', "Ui.NetworkRequest"],
  ['Result<"snapshot">', "Ui.SnapshotResult"],
  ['Notifications["screencast.frame"]', "Ui.ScreencastFrame"],
  ['Notifications["agent.activity"]', "Ui.AgentActivity"],
  ['Notifications["agent.connected"]', "Ui.AgentEvent"],
  ['Notifications["agent.ready"]', "Ui.AgentEvent"],
  ['Notifications["agent.disconnected"]', "Ui.AgentEvent"],
  ['Notifications["tab.opened"]', "Ui.TabOpened"],
  ['Notifications["tab.updated"]', "Ui.TabUpdated"],
  ['Notifications["console.message"]', "Ui.ConsoleMessage"],
  ['Notifications["network.requests"]', "Ui.NetworkRequests"],
  ['Result<"timeline.get">', "UiTimeline.TimelinePage"],
  ['Result<"timeline.get">["entries"][number]', "UiTimeline.TimelineEntry"],
  ["TimelineHeader", "UiTimeline.TimelineHeader"],
];

function checkFile(): string {
  const at = (file: string): string => JSON.stringify(path.join(ROOT, file));
  return [
    `import type { Notifications, Result } from ${at("src/protocol/types.js")};`,
    `import type { TimelineHeader } from ${at("src/timeline/timeline-file.js")};`,
    `import type * as Ui from ${at("ui/src/types.js")};`,
    `import type * as UiTimeline from ${at("ui/src/timeline-data.js")};`,
    "",
    "// Compiles only when From can be given where To is expected.",
    "function fits<To>(value: To): To {",
    "  return value;",
    "}",
    ...PAIRS.map(([hub, dashboard], index) => `export const pair${index} = (hub: ${hub}): ${dashboard} => fits<${dashboard}>(hub);`),
    "",
  ].join("\n");
}

describe("the dashboard's copies of the hub's shapes", function () {
  this.timeout(60_000);

  it("take what the hub answers and sends: every result and notification the dashboard reads type-checks against its copy", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-ui-types-"));
    try {
      await writeFile(path.join(dir, "check.ts"), checkFile());
      const outcome = await typeCheck(dir, "check.ts", { lib: ["ES2022", "DOM"], skipLibCheck: true });
      expect(outcome).to.equal("compiled");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
