import type { TabwireClient } from "../client/index.js";
import { activeTab, checkedTarget, connectHub, describeFailure, type CliIo } from "./cli-support.js";
import { parseEvalArgs, type EvalOptions } from "./eval-options.js";

/** `tabwire eval`: runs code in a tab (or on one element) and prints `{"ok": true, ...result}`; returns the exit code. */
export async function runEval(args: string[], io: CliIo): Promise<number> {
  let options: EvalOptions | undefined;
  try {
    options = await parseEvalArgs(args, io.stdin);
    const client = await connectHub(options);
    try {
      // The tab the CLI picked is named in the result; one the user named is not repeated.
      const picked = options.target === undefined ? await activeTab(client) : null;
      const result = await evaluateWith(client, options, picked ?? checkedTarget(options.target as string));
      io.stdout(
        `${JSON.stringify({ ok: true, ...result, ...(picked ? { target: picked } : {}) }, null, options.pretty ? 2 : undefined)}\n`,
      );
      return 0;
    } finally {
      await client.close();
    }
  } catch (error) {
    const { body, exitCode } = describeFailure(error);
    io.stderr(`${JSON.stringify(body, null, options?.pretty ? 2 : undefined)}\n`);
    return exitCode;
  }
}

function evaluateWith(client: TabwireClient, options: EvalOptions, target: string): Promise<object> {
  const common = {
    target,
    awaitPromise: options.awaitPromise,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxSize ? { maxSize: options.maxSize } : {}),
  };
  if (options.ref !== undefined || options.selector !== undefined) {
    const element = options.ref !== undefined ? { ref: options.ref } : { selector: options.selector };
    return client.call("callOn", { ...common, ...element, functionDeclaration: options.code });
  }
  return client.evaluate({ ...common, expression: options.code });
}
