import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { CHAIN_START, chainHeadOf, chainedLine, lineHash, verifyChain } from "../../src/audit-chain.js";

/** Lines chained as the hub writes them, from `after`. */
function chain(count: number, after = CHAIN_START): string[] {
  const lines: string[] = [];
  let prev = after;
  for (let n = 1; n <= count; n++) {
    const line = chainedLine(prev, JSON.stringify({ message: "call", method: "click", n }));
    lines.push(line);
    prev = lineHash(line);
  }
  return lines;
}

const file = (name: string, lines: string[]): { name: string; text: string } => ({ name, text: `${lines.join("\n")}\n` });

describe("audit.log's chain of lines", () => {
  it("verifies an unbroken chain and gives its head, across files given oldest first", () => {
    const lines = chain(6);
    const whole = verifyChain([file("audit.log", lines)]);
    expect(whole).to.deep.equal({ ok: true, lines: 6, head: lineHash(lines[5] as string) });
    expect(verifyChain([file("audit.log1", lines.slice(0, 4)), file("audit.log", lines.slice(4))])).to.deep.equal(whole);
    // The newer file alone starts mid-chain: given the head of the older one, it verifies.
    const head = lineHash(lines[3] as string);
    expect(verifyChain([file("audit.log", lines.slice(4))])).to.include({ ok: false, line: 1 });
    expect(verifyChain([file("audit.log", lines.slice(4))], head)).to.include({ ok: true, lines: 2 });
  });

  it("names the line after one edited, the place of one removed or added, and a first line removed", () => {
    const lines = chain(6);
    const edited = [...lines];
    edited[2] = (edited[2] as string).replace('"click"', '"hover"');
    expect(verifyChain([file("audit.log", edited)])).to.include({ ok: false, file: "audit.log", line: 4 });
    expect(verifyChain([file("audit.log", [...lines.slice(0, 2), ...lines.slice(3)])])).to.include({ ok: false, line: 3 });
    const added = [...lines.slice(0, 3), chainedLine(lineHash(lines[2] as string), '{"message":"made up"}'), ...lines.slice(3)];
    expect(verifyChain([file("audit.log", added)])).to.include({ ok: false, line: 5 });
    expect(verifyChain([file("audit.log", lines.slice(1))])).to.include({ ok: false, line: 1 });
    expect(verifyChain([file("audit.log", [...lines.slice(0, 2), "not json", ...lines.slice(2)])])).to.include({ ok: false, line: 3 });
    expect(verifyChain([file("audit.log", [...lines.slice(0, 2), '{"message":"no prev"}'])])).to.include({ ok: false, line: 3 });
  });

  it("goes on from the last line of an existing file (a restarted hub)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tabwire-audit-chain-"));
    try {
      const name = path.join(dir, "audit.log");
      expect(chainHeadOf(name)).to.equal(CHAIN_START);
      const lines = chain(3);
      await writeFile(name, `${lines.join("\n")}\n`);
      expect(chainHeadOf(name)).to.equal(lineHash(lines[2] as string));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
