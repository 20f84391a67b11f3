import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import ts from "typescript";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import type { TestRpcClient } from "../support/rpc-client.js";
import { closeTab } from "../support/tabs.js";
import { connect, sharedHub } from "../support/test-hub.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RUN_TIMEOUT_MS = 20_000;

/** The README's client snippet: the ```ts block of its "Client" section. */
async function readmeSnippet(): Promise<string> {
  const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
  const snippet = /## Client\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (snippet === undefined) throw new Error("the README's Client section has no ts block");
  return snippet;
}

/** The type errors of a TypeScript file of the consumer project, checked as strictly as the hub's own code. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    // The snippet is what is checked; the packages' own declarations are theirs (and checking them takes most of the time).
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    typeRoots: [path.join(ROOT, "node_modules/@types")],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

/** Runs a module of the consumer project with node; its output and exit code, or a failure past the deadline. */
async function runModule(file: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [file], { cwd, env: { ...process.env, TABWIRE_TOKEN: "" }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe("the README's client snippet, in another project that installed the clone as the README says (real hub, real Chromium)", function () {
  this.timeout(60_000);
  let hub: Hub;
  let rpc: TestRpcClient;
  let site: FixtureServer;
  let project: string;

  before(async () => {
    hub = await sharedHub();
    rpc = await connect(hub);
    site = await startFixtureServer();
    project = await mkdtemp(path.join(os.tmpdir(), "tabwire-consumer-"));
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    await promisify(execFile)("npm", ["install", "--offline", "--no-audit", "--no-fund", ROOT], { cwd: project });
  });
  after(async () => {
    await rpc.close();
    await site.close();
    await rm(project, { recursive: true, force: true });
  });

  it("type-checks against tabwire/client's types (strict)", async () => {
    const file = path.join(project, "snippet.ts");
    await writeFile(file, await readmeSnippet());
    expect(typeErrors(file)).to.deep.equal([]);
  });

  it("prints the page's console messages, the title's value, and the click's answer, then ends", async () => {
    // The snippet's page and hub, swapped for a copy of example.com served on localhost and the test's hub.
    const snippet = (await readmeSnippet())
      .replace("https://example.com/", site.url("example-domain.html"))
      .replace("ws://127.0.0.1:8080", hub.url);
    const { outputText } = ts.transpileModule(snippet, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(path.join(project, "snippet.mjs"), outputText);
    const run = await runModule("snippet.mjs", project);
    const tabs = (await rpc.call("tabs.list")) as { tabs: { target: string; url: string }[] };
    for (const tab of tabs.tabs.filter((t) => t.url.startsWith(site.origin))) await closeTab(rpc, tab.target);
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).to.include("log hello from the page");
    expect(lines).to.include("Example Domain");
    expect(
      lines.find((line) => line.startsWith("{")),
      run.stdout,
    ).to.include(site.url("other.html"));
  });
});
