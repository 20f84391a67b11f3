#!/usr/bin/env node
import type { CliIo } from "./cli/cli-support.js";
import { COMMAND_HELP, USAGE, wantsHelp } from "./cli/usage.js";

// Each path imports only what it runs: the hub (main.js), the MCP SDK and the client cost a short command
// such as `tabwire --help` or `tabwire eval` several times the CPU of the command itself.
const [command, ...rest] = process.argv.slice(2);
// The commands this file runs itself, besides those of cli/commands.ts.
const OWN_COMMANDS = ["serve", "mcp", "eval", "audit", "timeline", "help", "--help", "--version"];
const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: readStdin,
};
const help = command === undefined ? undefined : COMMAND_HELP[command];
if (help !== undefined && wantsHelp(rest)) {
  process.stdout.write(`${help}\n`);
} else if (command === "serve") {
  const { serve } = await import("./main.js");
  await serve();
} else if (command === "mcp") {
  const { runMcpBridge } = await import("./cli/mcp-command.js");
  process.exitCode = await runMcpBridge(rest, async () => (await import("./main.js")).startEmbeddedHub());
} else if (command === "eval") {
  const { runEval } = await import("./cli/eval-command.js");
  process.exitCode = await runEval(rest, io);
} else if (command === "audit") {
  const { runAudit } = await import("./cli/audit-command.js");
  process.exitCode = await runAudit(rest, io);
} else if (command === "timeline") {
  const { runTimeline } = await import("./cli/timeline-command.js");
  process.exitCode = await runTimeline(rest, io);
} else if (command === "--version" || command === "-v") {
  const { HUB_VERSION } = await import("./version.js");
  process.stdout.write(`${HUB_VERSION}\n`);
} else if (command === undefined || command === "--help" || command === "-h" || command === "help") {
  process.stdout.write(USAGE);
} else {
  const { COMMAND_NAMES, isCommand, runCommand } = await import("./cli/commands.js");
  if (isCommand(command)) {
    process.exitCode = await runCommand(command, rest, io);
  } else {
    const { closestName } = await import("./cli/suggest.js");
    const meant = closestName(command, [...OWN_COMMANDS, ...COMMAND_NAMES]);
    const next = meant === undefined ? `\n\n${USAGE}` : `; did you mean ${meant}?\n(tabwire --help lists the commands)\n`;
    process.stderr.write(`tabwire: unknown command "${command}"${next}`);
    process.exitCode = 1;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
