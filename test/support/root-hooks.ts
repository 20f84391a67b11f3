import { stopSharedHub } from "./test-hub.js";

/** Mocha root hooks: the shared hub and its Chromium stop after the whole run. */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopSharedHub();
  },
};
