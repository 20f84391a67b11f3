// Lint for tabwire: the house rules of docs/architecture.md, checked so that a reader need not.
import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

const BASICS = [
  "budget.ts",
  "capabilities.ts",
  "access-file.ts",
  "config.ts",
  "config-error.ts",
  "config-values.ts",
  "deadline-queue.ts",
  "errors.ts",
  "audit-chain.ts",
  "egress-rules.ts",
  "ids.ts",
  "limit-settings.ts",
  "log.ts",
  "log-file.ts",
  "target-id.ts",
  "tick-cork.ts",
  "timeline-settings.ts",
  "trace-settings.ts",
  "tracing.ts",
  "version.ts",
];

// Each layer of src/ and what it may import (docs/architecture.md, "Which way dependencies point").
const LAYERS = [
  { target: BASICS, allow: [...BASICS] },
  { target: ["protocol"], allow: [] },
  { target: ["rpc"], allow: [...BASICS, "protocol"] },
  { target: ["cdp"], allow: [...BASICS] },
  { target: ["egress"], allow: [...BASICS] },
  { target: ["transport"], allow: [...BASICS, "rpc"] },
  { target: ["runtime"], allow: [...BASICS, "protocol", "cdp"] },
  { target: ["agents"], allow: [...BASICS, "protocol", "rpc", "transport"] },
  { target: ["clients"], allow: [...BASICS, "protocol", "cdp", "agents"] },
  { target: ["events"], allow: [...BASICS, "protocol", "rpc", "cdp", "runtime", "agents", "clients"] },
  { target: ["timeline"], allow: [...BASICS, "protocol", "rpc", "cdp", "runtime", "agents", "clients", "events"] },
  {
    target: ["services.ts", "metrics.ts", "call-tally.ts", "client-calls.ts"],
    allow: [
      ...BASICS,
      ...[
        "protocol",
        "rpc",
        "cdp",
        "transport",
        "runtime",
        "agents",
        "clients",
        "events",
        "timeline",
        "egress",
        "services.ts",
        "metrics.ts",
        "call-tally.ts",
        "client-calls.ts",
      ],
    ],
  },
  {
    target: ["methods"],
    allow: [
      ...BASICS,
      "protocol",
      "rpc",
      "cdp",
      "runtime",
      "agents",
      "clients",
      "events",
      "timeline",
      "egress",
      "services.ts",
      "metrics.ts",
    ],
  },
  {
    target: ["cluster", "http"],
    allow: [
      ...[...BASICS, "protocol", "rpc", "cdp", "transport", "runtime", "agents", "clients", "events", "timeline", "egress"],
      ...["services.ts", "metrics.ts"],
    ],
  },
  { target: ["client"], allow: ["protocol"] },
  { target: ["cli"], allow: [...BASICS, "client"] },
];

const zones = LAYERS.flatMap(({ target, allow }) =>
  target.map((part) => ({
    target: `./src/${part}`,
    from: "./src",
    except: [...new Set([part, ...allow])].map((name) => `./${name}`),
    message: `see docs/architecture.md: src/${part} may import only ${allow.join(", ") || "nothing of the hub"}`,
  })),
);

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "logs/**", "test/support/summary-reporter.cjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "import-x/no-cycle": "error",
      "import-x/no-self-import": "error",
      "import-x/no-restricted-paths": ["error", { zones }],
      "max-lines": ["error", { max: 400, skipBlankLines: true, skipComments: true }],
      "max-params": ["error", 3],
    },
  },
  {
    // The /rpc fuzzer's generator: one class whose private methods each make one kind of frame from one seeded
    // generator; split across files they would pass the generator's state around. Its corpus is fuzz-corpus.ts.
    files: ["test/support/fuzz-frames.ts"],
    rules: { "max-lines": ["error", { max: 560, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The examples are plain Node scripts a user runs as they are.
    files: ["examples/**/*.mjs"],
    languageOptions: { globals: { console: "readonly", process: "readonly" } },
  },
  {
    // chai's assertions are property reads: expect(x).to.be.true.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-expressions": "off" },
  },
  {
    // Test files are describe() blocks: a suite is one long function by nature.
    files: ["src/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts", "ui/**/*.ts"],
    rules: { "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true }] },
  },
);
