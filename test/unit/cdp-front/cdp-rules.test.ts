import { readFileSync } from "node:fs";
import { expect } from "chai";
import { PAGE_COMMANDS, PAGE_DOMAINS, paramsRefusal } from "../../../src/cdp-front/cdp-rules.js";

const SECURITY_DOC = new URL("../../../../docs/security.md", import.meta.url);

/** The allowlist as docs/security.md prints it: a row per domain with its reason and commands. */
function allowlistTable(): string {
  const rows = Object.entries(PAGE_DOMAINS).map(([domain, { why, commands }]) => `| \`${domain}\` | ${why} | ${commands.join(", ")} |`);
  return ["| domain | why it is allowed | commands |", "|---|---|---|", ...rows].join("\n");
}

describe("the /cdp allowlist", () => {
  it("docs/security.md prints it as the code has it, each domain with its reason", () => {
    const doc = readFileSync(SECURITY_DOC, "utf8");
    const printed = /<!-- cdp-allowlist -->\n([\s\S]*?)\n<!-- \/cdp-allowlist -->/.exec(doc)?.[1];
    expect(printed, "docs/security.md's cdp-allowlist table (copy the expected text in)").to.equal(allowlistTable());
  });

  it("names none of the commands that reach the hub machine's files or the whole browser", () => {
    for (const method of [
      "DOM.setFileInputFiles",
      "DOM.getFileInfo",
      "Network.loadNetworkResource",
      "Network.clearBrowserCache",
      "Page.setDownloadBehavior",
      "Tracing.start",
      "Security.setIgnoreCertificateErrors",
      "Emulation.addScreen",
      "Extensions.loadUnpacked",
      "Browser.crash",
      "Target.attachToBrowserTarget",
    ])
      expect(PAGE_COMMANDS.has(method), method).to.equal(false);
  });

  it("refuses a drag that carries files, and lets one with data only through", () => {
    expect(paramsRefusal("Input.dispatchDragEvent", { data: { items: [], files: ["/etc/passwd"] } })).to.match(/no files/);
    expect(paramsRefusal("Input.dispatchDragEvent", { data: { items: [{ mimeType: "text/plain", data: "x" }], files: [] } })).to.equal(
      null,
    );
    expect(paramsRefusal("Input.dispatchDragEvent", { data: { items: [], files: "not-a-list" } })).to.match(/no files/);
  });
});
