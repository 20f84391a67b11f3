import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { TabwireClient } from "../../src/client/index.js";
import { EVENT_BUDGET_MS } from "../support/budgets.js";
import { startChildHub, type ChildHub } from "../support/child-hub.js";
import { eventually } from "../support/eventually.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { failure } from "../support/rpc-client.js";
import { openTab } from "../support/tabs.js";

const CLI = fileURLToPath(new URL("../../src/cli.js", import.meta.url));
const ALPHA = "audit-alpha-token-value";
const BETA = "audit-beta-token-value";
const AGENT_KEY = "audit-agent-key-value";
const EXPRESSION = "document.title = 'changed-by-audit-test'";
const COOKIE_VALUE = "cookie-value-never-logged";

type AuditLine = {
  prev: string;
  message: string;
  method?: string;
  outcome?: string;
  who?: string;
  target?: string;
  clientId?: string;
  codeSha256?: string;
};

/** `tabwire audit verify FILE...`: its exit code and what it printed. */
async function verify(...files: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, "audit", "verify", ...files]);
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, out: failed.stderr };
  }
}

describe("audit.log: a chained line per call that changes something, and tabwire audit verify", function () {
  this.timeout(2 * EVENT_BUDGET_MS);
  let fixtures: FixtureServer;
  let home: string;
  const hubs: ChildHub[] = [];
  const open: TabwireClient[] = [];

  const startHub = async (): Promise<ChildHub> => {
    const hub = await startChildHub({ HUB_TOKENS: `${ALPHA}:alpha,${BETA}:beta`, AUTH_KEY: AGENT_KEY }, { dir: home });
    hubs.push(hub);
    return hub;
  };
  const client = async (hub: ChildHub, token: string): Promise<TabwireClient> => {
    const connected = await TabwireClient.connect({ url: hub.url, token, reconnect: false });
    open.push(connected);
    return connected;
  };
  const auditFile = (): string => path.join(home, "logs", "audit.log");
  const calls = async (): Promise<AuditLine[]> =>
    (await readFile(auditFile(), "utf8").catch(() => ""))
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as AuditLine)
      .filter((line) => line.message === "call");

  before(async () => {
    [fixtures, home] = await Promise.all([startFixtureServer(), mkdtemp(path.join(os.tmpdir(), "tabwire-audit-"))]);
  });
  after(async () => {
    await Promise.all(open.map((each) => each.close().catch(() => undefined)));
    await Promise.all(hubs.map((hub) => hub.stop()));
    await fixtures?.close();
    await rm(home, { recursive: true, force: true });
  });

  it("writes who did what to which target and how it ended, never reads, code or secrets; verify passes, then names an edited or removed line", async () => {
    const hub = await startHub();
    const alpha = await client(hub, ALPHA);
    const beta = await client(hub, BETA);
    const tab = await openTab(alpha, fixtures.url("index.html"), { clientId: "alpha" });
    await alpha.call("navigate", { target: tab.target, url: fixtures.url("other.html") });
    await alpha.call("evaluate", { target: tab.target, expression: EXPRESSION });
    await alpha.call("cookies.set", { clientId: "alpha", cookies: [{ name: "session", value: COOKIE_VALUE, url: fixtures.url("") }] });
    // Reads are not written.
    await alpha.call("snapshot", { target: tab.target });
    await alpha.call("tabs.list", {});
    await alpha.call("screenshot", { target: tab.target });
    // Another tenant's attempts are, with their refusal.
    expect(
      (await failure(beta.call("cookies.set", { clientId: "alpha", cookies: [{ name: "x", value: "y", url: fixtures.url("") }] }))).code,
    ).to.equal(-32007);
    expect((await failure(beta.call("evaluate", { target: tab.target, expression: "1" }))).code).to.equal(-32002);
    await alpha.call("tabs.close", { target: tab.target });

    await eventually(async () => (await calls()).some((line) => line.method === "tabs.close"), EVENT_BUDGET_MS, "the calls in audit.log");
    const lines = await calls();
    expect(lines.map((line) => [line.method, line.outcome])).to.deep.equal([
      ["tabs.open", "ok"],
      ["navigate", "ok"],
      ["evaluate", "ok"],
      ["cookies.set", "ok"],
      ["cookies.set", "FORBIDDEN"],
      ["evaluate", "TARGET_NOT_FOUND"],
      ["tabs.close", "ok"],
    ]);
    const [opened, navigated, evaluated, cookie, refused] = lines as [AuditLine, AuditLine, AuditLine, AuditLine, AuditLine];
    expect(opened).to.include({ clientId: "alpha" });
    expect(navigated).to.include({ target: tab.target });
    expect(evaluated).to.include({ target: tab.target, codeSha256: createHash("sha256").update(EXPRESSION).digest("hex") });
    // Who: the token's id, never the token; alpha's and beta's differ.
    expect(cookie.who).to.match(/^token-\d+$/);
    expect(refused.who).to.match(/^token-\d+$/);
    expect(refused.who).not.to.equal(cookie.who);
    const text = await readFile(auditFile(), "utf8");
    for (const secret of [ALPHA, BETA, AGENT_KEY, COOKIE_VALUE, EXPRESSION, "changed-by-audit-test"]) expect(text).not.to.include(secret);

    const intact = await verify(auditFile());
    expect(intact.code).to.equal(0);
    const all = text.split("\n").filter((line) => line.length > 0);
    expect(JSON.parse(intact.out)).to.include({ ok: true, lines: all.length });

    // Someone edits line 3 (a refusal made to look like success), or removes it: verify names line 4, or line 3.
    const edited = path.join(home, "edited.log");
    await writeFile(
      edited,
      [
        ...all.slice(0, 2),
        (all[2] as string).replace(/"outcome":"[A-Z_a-z]+"/, '"outcome":"ok"').replace("}", ',"x":1}'),
        ...all.slice(3),
      ].join("\n") + "\n",
    );
    const afterEdit = await verify(edited);
    expect(afterEdit.code).to.equal(1);
    expect(JSON.parse(afterEdit.out)).to.include({ ok: false, line: 4 });
    const removed = path.join(home, "removed.log");
    await writeFile(removed, [...all.slice(0, 2), ...all.slice(3)].join("\n") + "\n");
    const afterRemoval = await verify(removed);
    expect(afterRemoval.code).to.equal(1);
    expect(JSON.parse(afterRemoval.out)).to.include({ ok: false, line: 3 });
  });

  it("a restarted hub goes on with the same chain", async () => {
    await Promise.all(open.splice(0).map((each) => each.close().catch(() => undefined)));
    await Promise.all(hubs.splice(0).map((hub) => hub.stop()));
    const before = (await calls()).length;
    const hub = await startHub();
    const alpha = await client(hub, ALPHA);
    await openTab(alpha, fixtures.url("index.html"), { clientId: "alpha" });
    await eventually(async () => (await calls()).length > before, EVENT_BUDGET_MS, "the new hub's line");
    const checked = await verify(auditFile());
    expect(checked.code).to.equal(0);
    expect(JSON.parse(checked.out).lines).to.be.above(before);
  });
});
