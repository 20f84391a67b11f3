#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { isCommand, runCommand } from "./cli/commands.js";
import type { CliIo } from "./cli/cli-support.js";
import { runEval } from "./cli/eval-command.js";
import { runMcpBridge } from "./cli/mcp-command.js";
import { COMMAND_HELP, USAGE, wantsHelp } from "./cli/usage.js";
import { serve, startEmbeddedHub } from "./main.js";

const [command, ...rest] = process.argv.slice(2);
const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: readStdin,
};
const help = command === undefined ? undefined : COMMAND_HELP[command];
if (help !== undefined && wantsHelp(rest)) {
  process.stdout.write(`${help}\n`);
} else if (command === "serve") {
  await serve();
} else if (command === "mcp") {
  process.exitCode = await runMcpBridge(rest, startEmbeddedHub);
} else if (command === "eval") {
  process.exitCode = await runEval(rest, io);
} else if (command !== undefined && isCommand(command)) {
  process.exitCode = await runCommand(command, rest, io);
} else if (command === "--version" || command === "-v") {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else if (command === undefined || command === "--help" || command === "-h" || command === "help") {
  process.stdout.write(USAGE);
} else {
  process.stderr.write(`tabwire: unknown command "${command}"\n\n${USAGE}`);
  process.exitCode = 1;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
