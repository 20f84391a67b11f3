import { readFile } from "node:fs/promises";
import { CHAIN_START, verifyChain } from "../audit-chain.js";
import type { CliIo } from "./cli-support.js";

const HASH = /^[0-9a-f]{64}$/;
const USAGE = "usage: tabwire audit verify FILE... [--after HASH]  (the files oldest first: audit.log2 audit.log1 audit.log)";

/**
 * `tabwire audit verify FILE...`: checks that the audit log's lines are chained unbroken (exit 0, printing the line
 * count and the chain's head), or names the first line where the chain breaks (exit 1). Exit 2: bad usage or a file
 * that cannot be read.
 */
export async function runAudit(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  const afterAt = rest.indexOf("--after");
  const after = afterAt < 0 ? CHAIN_START : rest[afterAt + 1];
  const names = afterAt < 0 ? rest : rest.filter((_, index) => index !== afterAt && index !== afterAt + 1);
  if (
    action !== "verify" ||
    names.length === 0 ||
    after === undefined ||
    !HASH.test(after) ||
    names.some((name) => name.startsWith("--"))
  ) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  let files: { name: string; text: string }[];
  try {
    files = await Promise.all(names.map(async (name) => ({ name, text: await readFile(name, "utf8") })));
  } catch (error) {
    io.stderr(`tabwire audit: cannot read ${(error as NodeJS.ErrnoException).path ?? "a file"}: ${(error as Error).message}\n`);
    return 2;
  }
  const checked = verifyChain(files, after);
  if (!checked.ok) {
    io.stderr(`${JSON.stringify({ ok: false, file: checked.file, line: checked.line, error: checked.why })}\n`);
    return 1;
  }
  io.stdout(`${JSON.stringify({ ok: true, lines: checked.lines, head: checked.head })}\n`);
  return 0;
}
