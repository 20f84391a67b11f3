import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { TabwireClient } from "../../src/client/index.js";
import { TestRpcClient } from "../support/rpc-client.js";
import { requireChromium } from "../support/test-hub.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

describe("the README's start command", function () {
  this.timeout(40_000);

  it("npm start is the hub's serve command", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).to.equal("node dist/src/cli.js serve");
    expect(pkg.scripts.test).to.match(/^npm run build && npm run lint && mocha/);
  });

  it("it serves a hub that answers evaluate on a tab opened with tabs.open, and stops cleanly on SIGTERM", async () => {
    requireChromium();
    const child = spawn(process.execPath, ["dist/src/cli.js", "serve"], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", LOG_LEVEL: "warn", LOG_DIR: path.join(os.tmpdir(), "tabwire-readme-logs") },
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = "";
        const timer = setTimeout(() => reject(new Error(`no listening line within 20 s: ${seen}`)), 20_000);
        child.stdout.on("data", (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /tabwire listening on (ws:\/\/\S+)\/rpc/.exec(seen);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      const client = await TabwireClient.connect({ url, reconnect: false });
      const { target } = await client.call("tabs.open", { url: "data:text/html,<title>readme</title>" });
      expect(await client.evaluate({ target, expression: "document.title" })).to.deep.equal({ type: "string", value: "readme" });
      // The close code is the wire's business (the typed client only says `disconnected`): a bare socket reads it.
      const wire = await TestRpcClient.connect(url);
      const closed = once(wire.ws, "close");
      const disconnected = new Promise<void>((resolve) => client.on("disconnected", resolve));
      process.kill(-(child.pid as number), "SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).to.equal(0);
      expect((await closed)[0]).to.equal(1001);
      await disconnected;
    } finally {
      if (child.exitCode === null) process.kill(-(child.pid as number), "SIGKILL");
    }
  });
});
