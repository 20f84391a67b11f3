import type { TabwireClient } from "../../src/client/index.js";
import type { Hub } from "../../src/hub.js";
import { startFixtureServer, type FixtureServer } from "./fixture-server.js";
import { connectClient, sharedHub } from "./test-hub.js";

/** What a suite of tests on fixture pages shares: the shared hub, a fixture server of its own, one typed client. */
export class PageSuite {
  hub!: Hub;
  fixtures!: FixtureServer;
  client!: TabwireClient;
}

/** Registers the suite's before and after hooks and answers its parts, set once `before` has run. */
export function pageSuite(): PageSuite {
  const suite = new PageSuite();
  before(async () => {
    suite.hub = await sharedHub();
    suite.fixtures = await startFixtureServer();
    suite.client = await connectClient(suite.hub);
  });
  after(async () => {
    await suite.client?.close();
    await suite.fixtures?.close();
  });
  return suite;
}
