#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { isCommand, runCommand } from "./cli/commands.js";
import { runEval } from "./cli/eval-command.js";
import { serve } from "./main.js";

const USAGE = `tabwire: a WebSocket JSON-RPC hub for driving Chrome tabs

Usage:
  tabwire serve       start the hub (settings from the environment or .env; see .env.example)
  tabwire eval CODE   run JavaScript in a tab and print {"ok": true, ...result}
                      code: arguments (joined with spaces), --code C, --file F, --stdin or -
                      --target clientId:tabId (default: the only tab), --timeout 30s|500ms|N, --no-await,
                      --max-size BYTES, --ref REF or --selector CSS (run a function on that element),
                      --hub URL / --token T (or TABWIRE_URL / TABWIRE_TOKEN), --pretty
                      exit codes: 1 JavaScript or general error, 2 hub not reachable, 3 target not found, 4 timeout
  tabwire tabs [list | open URL [--client ID] [--background] | close TARGET | activate TARGET]
  tabwire navigate URL    tabwire snapshot    tabwire content [--text]    tabwire status
  tabwire screenshot [-o FILE] [--full-page] [--format png|jpeg|webp] [--selector CSS]
  tabwire console [--follow] [--level LEVEL]   (--follow streams JSON lines until Ctrl-C)
  tabwire agent run "task"
                      every command takes --target (default: the only tab), --hub, --token, --pretty
  tabwire --version   print the version
  tabwire --help      print this help
`;

const [command] = process.argv.slice(2);
if (command === "serve") {
  await serve();
} else if (command === "eval") {
  process.exitCode = await runEval(process.argv.slice(3), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: readStdin,
  });
} else if (command !== undefined && isCommand(command)) {
  process.exitCode = await runCommand(command, process.argv.slice(3), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: readStdin,
  });
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
