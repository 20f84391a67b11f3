import { expect } from "chai";
import { Budget } from "../../../src/budget.js";
import { HubError } from "../../../src/errors.js";
import { REGEX_QUEUE_PER_CLIENT, RegexWorker } from "../../../src/runtime/regex-worker.js";

// On this URL /(a+)+$/ backtracks for minutes: each search of it is stopped at the limit.
const RUNAWAY_URL = `http://x/?q=${"a".repeat(40)}!`;

/** How a search ended: matched, not matched, or the name of the error it was refused with. */
function outcome(search: Promise<boolean>): Promise<string> {
  return search.then(String, (error: unknown) => (error instanceof HubError ? error.errorName : String(error)));
}

describe("RegexWorker: the regular expression thread shared by every client", function () {
  this.timeout(20_000);
  let worker: RegexWorker;
  let budgets: Budget[];
  const budget = (timeoutMs = 15_000): Budget => {
    const made = new Budget(timeoutMs);
    budgets.push(made);
    return made;
  };

  beforeEach(() => {
    worker = new RegexWorker();
    budgets = [];
  });
  afterEach(() => {
    for (const made of budgets) made.dispose();
    worker.stop();
  });

  it("serves clients in turn: another client's search waits for one runaway search of alpha's, not for each of them", async () => {
    const order: string[] = [];
    const searched = (who: string, search: Promise<boolean>): Promise<string> => outcome(search).finally(() => order.push(who));
    const alphaCalls = [1, 2, 3].map((at) =>
      searched(`alpha ${at}`, worker.matcher("(a+)+$", "", { clientId: "alpha", budget: budget() })(RUNAWAY_URL)),
    );
    const beta = searched("beta", worker.matcher("^http://x/", "", { clientId: "beta", budget: budget() })("http://x/done"));
    expect(await Promise.all([...alphaCalls, beta])).to.deep.equal(["INVALID_PARAMS", "INVALID_PARAMS", "INVALID_PARAMS", "true"]);
    expect(order).to.deep.equal(["alpha 1", "beta", "alpha 2", "alpha 3"]);
  });

  it(`holds ${REGEX_QUEUE_PER_CLIENT} waiting URLs of a client: past them its call is OVERLOADED at once, saying when to retry; another client's still gets in`, async () => {
    const alpha = worker.matcher("x", "", { clientId: "alpha", budget: budget() });
    // One search runs and REGEX_QUEUE_PER_CLIENT wait; the next has no place.
    const searches = Array.from({ length: REGEX_QUEUE_PER_CLIENT + 2 }, () => outcome(alpha("http://x/")));
    const refused = await alpha("http://x/").catch((error: unknown) => error as HubError);
    const beta = worker.matcher("x", "", { clientId: "beta", budget: budget() })("http://x/");
    expect(refused).to.be.instanceOf(HubError);
    expect((refused as HubError).errorName).to.equal("OVERLOADED");
    expect((refused as HubError).message).to.equal(
      `client alpha has ${REGEX_QUEUE_PER_CLIENT} URLs waiting for the hub's regular expression thread, its most; retry in 100 ms, or use a glob`,
    );
    expect((refused as HubError).data).to.deep.equal({ retryAfterMs: 100 });
    expect(await Promise.all(searches)).to.deep.equal([...Array<string>(REGEX_QUEUE_PER_CLIENT + 1).fill("true"), "OVERLOADED"]);
    expect(await beta).to.equal(true);
  });

  it("drops the searches of a call that ended: cancelled, its waiting URLs are never searched and its running search is stopped", async () => {
    const running = budget();
    const waiting = budget();
    const runaway = outcome(worker.matcher("(a+)+$", "", { clientId: "alpha", budget: running })(RUNAWAY_URL));
    const dropped = worker.matcher("(a+)+$", "", { clientId: "alpha", budget: waiting });
    const droppedSearches = [1, 2, 3].map(() => dropped(RUNAWAY_URL).catch((error: unknown) => error));
    const cancelled = new HubError("CANCELLED", "cancelled by the caller");
    waiting.cancel(cancelled);
    // Searched, each would have been refused INVALID_PARAMS after the limit.
    for (const error of await Promise.all(droppedSearches)) expect(error).to.equal(cancelled);
    expect(await dropped(RUNAWAY_URL).catch((error: unknown) => error)).to.equal(cancelled);
    running.cancel(new HubError("CANCELLED", "the caller's connection closed"));
    // Stopped, not refused for running past the limit; and the next search gets a thread.
    expect(await runaway).to.equal("CANCELLED");
    expect(await worker.matcher("done$", "", { clientId: "alpha", budget: budget() })("http://x/done")).to.equal(true);
  });

  it("drops the waiting searches of an answered call, and of a timed out one, without searching them", async () => {
    const first = budget();
    const answered = budget();
    const timingOut = budget(50);
    const runaway = outcome(worker.matcher("(a+)+$", "", { clientId: "alpha", budget: first })(RUNAWAY_URL));
    const left = outcome(worker.matcher("(a+)+$", "", { clientId: "alpha", budget: answered })(RUNAWAY_URL));
    const late = outcome(worker.matcher("(a+)+$", "", { clientId: "alpha", budget: timingOut })(RUNAWAY_URL));
    answered.dispose();
    expect(await Promise.all([runaway, left, late])).to.deep.equal(["INVALID_PARAMS", "CANCELLED", "TIMEOUT"]);
  });

  it("a call refused for a runaway search searches no more: its other URLs are refused with the same error, at once", async () => {
    const matches = worker.matcher("(a+)+$", "", { clientId: "alpha", budget: budget() });
    const searches = [1, 2, 3].map(() =>
      matches(RUNAWAY_URL).then(
        () => null,
        (error: unknown) => error as HubError,
      ),
    );
    const [first, ...others] = await Promise.all(searches);
    expect(first?.errorName).to.equal("INVALID_PARAMS");
    expect(first?.message).to.match(/the regular expression \/\(a\+\)\+\$\/ took more than 100 ms on the tab's URL/);
    // The same error object: none of them was searched, so none could overrun by itself.
    for (const other of others) expect(other).to.equal(first);
    expect(await matches("http://x/aaa").catch((error: unknown) => error)).to.equal(first);
  });
});
