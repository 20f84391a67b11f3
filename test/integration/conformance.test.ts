import { fileURLToPath } from "node:url";
import { expect } from "chai";
import type { Hub } from "../../src/hub.js";
import { TestAgent } from "../fixtures/wire-agent.js";
import { startTestHub } from "../support/test-hub.js";
import { FrameSocket, loadTranscripts, mergedSettings, openAgentSocket, runCase, type Endpoint } from "../support/transcript.js";

const TRANSCRIPTS = loadTranscripts(fileURLToPath(new URL("../../../test/conformance/", import.meta.url)));
// The agent that never answers, which the transcripts' long-running calls (cancel, timeoutMs) go to.
const SINK = "conformance:sink";
const CALLER = "conformance:caller";

describe("JSON-RPC conformance transcripts (test/conformance) on /rpc and /agent", function () {
  this.timeout(15_000);
  let hub: Hub;
  let sink: TestAgent;

  before(async () => {
    hub = await startTestHub(mergedSettings(TRANSCRIPTS));
    sink = await TestAgent.connect({ url: `${hub.url}/agent`, clientId: SINK });
    expect(await sink.registration()).to.include({ status: "accepted" });
    sink.ready();
    // The hub reads one socket's frames in order, so once this is answered the sink is ready.
    await sink.call("ping");
  });
  after(async () => {
    await sink?.close();
    await hub?.stop();
  });

  const endpoints: { endpoint: Endpoint; open: () => Promise<FrameSocket> }[] = [
    { endpoint: "rpc", open: () => FrameSocket.open(`${hub.url}/rpc`) },
    { endpoint: "agent", open: () => openAgentSocket(`${hub.url}/agent`, CALLER) },
  ];
  for (const { endpoint, open } of endpoints) {
    describe(`/${endpoint}`, () => {
      let socket: FrameSocket;
      before(async () => {
        socket = await open();
      });
      after(async () => socket?.close());

      for (const transcript of TRANSCRIPTS) {
        for (const each of transcript.cases.filter((c) => c.only === null || c.only === endpoint)) {
          it(`${transcript.file}: ${each.title}`, () => runCase(socket, each, endpoint));
        }
      }
    });
  }
});
