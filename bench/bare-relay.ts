import WebSocket, { WebSocketServer } from "ws";

/**
 * The floor for any hub in a process of its own: a bare relay from a WebSocket to one held CDP session, with the CDP
 * params docs/protocol.md asks of evaluate (block-wrapped code, a user gesture, awaited promises) and nothing else: no
 * validation, budgets, cancellation, logs or metrics. The bench holds the hub against it, and it against raw CDP.
 * Started with CDP_URL (Chrome's browser WebSocket) and TAB_ID; prints `listening on ws://host:port/rpc`.
 */
const cdp = new WebSocket(process.env.CDP_URL ?? "", { perMessageDeflate: false });
interface CdpAnswer {
  id?: number;
  result?: { result?: { type: string; value?: unknown }; sessionId?: string };
}
const pending = new Map<number, (message: CdpAnswer) => void>();
let nextId = 1;

function send(method: string, params: object, sessionId?: string): Promise<CdpAnswer> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    cdp.send(JSON.stringify({ id, method, params, sessionId }));
  });
}

cdp.on("message", (data: Buffer) => {
  const message = JSON.parse(data.toString()) as CdpAnswer;
  const resolve = message.id === undefined ? undefined : pending.get(message.id);
  if (!resolve || message.id === undefined) return;
  pending.delete(message.id);
  resolve(message);
});

cdp.once("open", async () => {
  const attached = await send("Target.attachToTarget", { targetId: process.env.TAB_ID, flatten: true });
  const sessionId = attached.result?.sessionId;
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  server.on("connection", (ws) =>
    ws.on("message", async (data: Buffer) => {
      const request = JSON.parse(data.toString()) as { id: number; params: { expression: string } };
      const params = { expression: `{${request.params.expression}\n}`, returnByValue: true, awaitPromise: true, userGesture: true };
      const answer = await send("Runtime.evaluate", params, sessionId);
      const value = answer.result?.result;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { type: value?.type, value: value?.value } }));
    }),
  );
  server.once("listening", () => process.stdout.write(`listening on ws://127.0.0.1:${(server.address() as { port: number }).port}/rpc\n`));
});
