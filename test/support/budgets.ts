import { samplesOf } from "./metrics-text.js";

/**
 * A call's budget in a test whose point is that an event (an agent leaving, a tab crashing, Chrome killed) answers
 * it first: far above what a slow machine needs, so the answer's code tells "answered by the event" from "answered
 * at the end of the budget" (TIMEOUT, or mocha's timeout first) without a tight clock.
 */
export const EVENT_BUDGET_MS = 60_000;

/** docs/protocol.md section 4: the hub answers within `timeoutMs` + 250 ms, with the result or TIMEOUT. */
export const ANSWER_GRACE_MS = 250;

/**
 * What a slow, shared machine adds to the hub's own timers: its event loop busy with other work or a GC when one is
 * due. Three times the lag seen on a busy day, for a rule about time measured by the hub itself (`hubAnswerMs`).
 */
export const TIMER_LAG_MS = 500;

/**
 * What a slow, shared machine adds to a time measured from the test's side of a socket, or between two processes:
 * the sockets, the test's own event loop, the other processes on two busy cores.
 */
export const REPLY_SLACK_MS = 1_500;

/**
 * The hub's own measure, in ms, of the calls to `method` it answered so far, from each one's arrival to its answer
 * (the sum of tabwire_request_duration_seconds, from GET /metrics): read before and after one call, its difference
 * is that call's time inside the hub, which neither the sockets nor the test's event loop add to.
 */
export async function hubAnswerMs(baseUrl: string, call: { method: string; outcome?: string; token?: string }): Promise<number> {
  const url = `${baseUrl.replace(/^ws/, "http")}/metrics`;
  const response = await fetch(url, call.token ? { headers: { authorization: `Bearer ${call.token}` } } : {});
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  const samples = samplesOf(await response.text(), "tabwire_request_duration_seconds_sum").filter(
    ({ labels }) => labels.method === call.method && (call.outcome === undefined || labels.outcome === call.outcome),
  );
  return samples.reduce((ms, sample) => ms + sample.value * 1000, 0);
}
