#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { serve } from "./main.js";

const USAGE = `tabwire: a WebSocket JSON-RPC hub for driving Chrome tabs

Usage:
  tabwire serve       start the hub (settings from the environment or .env; see .env.example)
  tabwire --version   print the version
  tabwire --help      print this help
`;

const [command] = process.argv.slice(2);
if (command === "serve") {
  await serve();
} else if (command === "--version" || command === "-v") {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else if (command === undefined || command === "--help" || command === "-h" || command === "help") {
  process.stdout.write(USAGE);
} else {
  process.stderr.write(`tabwire: unknown command "${command}"\n\n${USAGE}`);
  process.exitCode = 1;
}
