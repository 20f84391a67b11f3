import { stopSharedHub } from "./test-hub.js";
import { takeViolations } from "./wire-contract.js";

/** Mocha root hooks: every answer and notification a test saw is the document's; the shared hub stops after the run. */
export const mochaHooks = {
  afterEach(): void {
    const violations = takeViolations();
    if (violations.length > 0) throw new Error(`the hub answered outside protocol/tabwire.openrpc.json:\n${violations.join("\n")}`);
  },
  async afterAll(): Promise<void> {
    await stopSharedHub();
  },
};
