import type { Budget } from "../budget.js";
import type { CommandName, CommandParams, CommandResult } from "../cdp/connection.js";
import { protocolFailureOf } from "../cdp/protocol-errors.js";
import type { TabSession } from "../cdp/tab-session.js";

// Chrome attaches the next document within milliseconds of refusing: how often the command is tried again meanwhile.
const RETRY_MS = 50;

/**
 * Sends a Page command that moves or stops the tab, again every 50 ms while Chrome refuses it because the tab's frame
 * is between two documents (a navigation committing in another process), until the budget ends.
 */
export async function sendWhenAttached<M extends CommandName>(
  tab: TabSession,
  command: { method: M; params?: CommandParams<M> },
  budget: Budget,
): Promise<CommandResult<M>> {
  for (;;) {
    try {
      return await tab.send(command.method, command.params, { budget });
    } catch (error) {
      if (protocolFailureOf(error) !== "not-attached" || tab.cdp.closedBy) throw error;
    }
    await budget.race(pause(RETRY_MS));
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
