import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { typeCheck } from "../support/type-check.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

// What a TypeScript user outside this repository writes; the @ts-expect-error lines fail the compile if the types are loose.
const CONSUMER = `import { TabwireClient, TabwireError, type EvaluateResult } from "tabwire/client";

export async function use(): Promise<number> {
  const client = await TabwireClient.connect({ url: "ws://127.0.0.1:8080", token: "t" });
  const result: EvaluateResult = await client.call("evaluate", { target: "local:A", expression: "1 + 1" }, { signal: AbortSignal.timeout(1000) });
  const { tabs } = await client.call("tabs.list");
  const { root } = await client.call("snapshot", { target: "local:A" });
  const firstRole: string | undefined = root.children?.[0]?.role;
  client.on("console.message", (message) => console.log(message.text));
  // @ts-expect-error: no such method
  await client.call("evaluat", {});
  // @ts-expect-error: evaluate needs an expression
  await client.call("evaluate", { target: "local:A" });
  // @ts-expect-error: a tab's target is a string
  const wrong: number = tabs[0]!.target;
  const failed = await client.call("evaluate", { target: "local:A", expression: "x" }).catch((error: unknown) => error);
  await client.close();
  return failed instanceof TabwireError ? failed.code : result.type === "number" && firstRole ? tabs.length + wrong : 0;
}
`;

describe("tabwire/client types for users outside the repository", function () {
  this.timeout(60_000);

  it("a consumer package imports tabwire/client with its declarations and type-checks strictly", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-consumer-"));
    try {
      await mkdir(path.join(dir, "node_modules"));
      await symlink(ROOT, path.join(dir, "node_modules", "tabwire"), "dir");
      await writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module", private: true }));
      await writeFile(path.join(dir, "use.ts"), CONSUMER);
      const outcome = await typeCheck(dir, "use.ts");
      expect(outcome).to.equal("compiled");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
