import { expect } from "chai";
import { HubError } from "../../../src/errors.js";
import { Budget } from "../../../src/budget.js";
import { REGEX_MATCH_LIMIT_MS, type RegexCaller } from "../../../src/runtime/regex-worker.js";
import { globMatcher, MAX_GLOB_WILDCARDS, urlMatcher } from "../../../src/runtime/url-matcher.js";

const WAIT_FOR = { method: "network.list", path: "/filter/url" };

describe("URL patterns: globs and wait.for's regular expressions", () => {
  // The call the expressions are searched for.
  let caller: RegexCaller;
  beforeEach(() => {
    caller = { clientId: "local", budget: new Budget(15_000) };
  });
  afterEach(() => caller.budget.dispose());

  it("globs: * stops at a slash, ** does not, anything else is literal", () => {
    expect(globMatcher("**/done.html", WAIT_FOR)("http://127.0.0.1:8080/a/b/done.html")).to.equal(true);
    expect(globMatcher("http://host/*.html", WAIT_FOR)("http://host/a/b.html")).to.equal(false);
    expect(globMatcher("http://host/*.html", WAIT_FOR)("http://host/b.html")).to.equal(true);
    expect(globMatcher("http://host/a?b", WAIT_FOR)("http://host/a?b")).to.equal(true);
    expect(globMatcher("/(/", WAIT_FOR)("/(/")).to.equal(true);
    expect(globMatcher("**aba", WAIT_FOR)("http://x/ababa")).to.equal(true);
    expect(globMatcher("http://x/*a*b", WAIT_FOR)("http://x/aab")).to.equal(true);
    expect(globMatcher("http://x/*a*b", WAIT_FOR)("http://x/a/b")).to.equal(false);
    expect(globMatcher("**/*.js", WAIT_FOR)("http://x/a/b.js")).to.equal(true);
    expect(globMatcher("**/*.js", WAIT_FOR)("http://x/a/b.js/")).to.equal(false);
    expect(globMatcher("http://x/*/c", WAIT_FOR)("http://x/ab/c")).to.equal(true);
    expect(globMatcher("http://x/*/c", WAIT_FOR)("http://x/a/b/c")).to.equal(false);
    expect(globMatcher("http://x/*", WAIT_FOR)("http://x/")).to.equal(true);
    expect(globMatcher("**", WAIT_FOR)("")).to.equal(true);
  });

  it("globs never backtrack: many wildcards and long literals against long URLs answer in linear time", () => {
    // Each of these would run for minutes matched position by position or as a regular expression.
    expect(globMatcher(`${"**a".repeat(16)}b`, WAIT_FOR)(`http://x/${"a".repeat(5_000)}`)).to.equal(false);
    expect(globMatcher(`**${"a".repeat(50_000)}!`, WAIT_FOR)(`http://x/${"a".repeat(1_000_000)}`)).to.equal(false);
    expect(globMatcher(`**${"a".repeat(50_000)}`, WAIT_FOR)(`http://x/${"a".repeat(1_000_000)}`)).to.equal(true);
  });

  it(`a glob with more than ${MAX_GLOB_WILDCARDS} wildcards is INVALID_PARAMS naming its param`, () => {
    expect(() => globMatcher("*a".repeat(MAX_GLOB_WILDCARDS), WAIT_FOR)).not.to.throw();
    const refusal = (): unknown => globMatcher("*a".repeat(MAX_GLOB_WILDCARDS + 1), WAIT_FOR);
    expect(refusal).to.throw(HubError, /network.list: the glob has 17 wildcards; at most 16/);
    try {
      refusal();
    } catch (error) {
      expect((error as HubError).data).to.deep.equal({ errors: [{ path: "/filter/url", message: "has 17 wildcards; at most 16" }] });
    }
  });

  it("wait.for takes a glob or /source/flags; a bad expression is INVALID_PARAMS at once", async () => {
    expect(await urlMatcher("**/done.html", caller)("http://x/a/done.html")).to.equal(true);
    expect(await urlMatcher("/DONE\\.html$/i", caller)("http://x/done.html")).to.equal(true);
    expect(await urlMatcher("/^http:\\/\\/x\\/\\d+$/", caller)("http://x/12a")).to.equal(false);
    // A global expression keeps no position from one URL to the next.
    const global = urlMatcher("/done/g", caller);
    expect([await global("http://x/done"), await global("http://x/done")]).to.deep.equal([true, true]);
    expect(() => urlMatcher("/(/", caller)).to.throw(/not a valid regular expression/);
  });

  it(`an expression that backtracks for minutes is refused after ${REGEX_MATCH_LIMIT_MS} ms, the event loop free all along, and the next one works`, async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const error = await urlMatcher(
        "/(a+)+$/",
        caller,
      )(`http://x/${"a".repeat(40)}!`).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).to.be.instanceOf(HubError);
      expect((error as HubError).errorName).to.equal("INVALID_PARAMS");
      expect((error as HubError).message).to.match(/took more than 100 ms on the tab's URL; use a glob or a simpler expression/);
      // Searched on the hub's own thread, the 5 ms timer would not have fired until the search ended.
      expect(ticks).to.be.at.least(5);
    } finally {
      clearInterval(ticker);
    }
    expect(await urlMatcher("/(a+)+!$/", caller)(`http://x/${"a".repeat(40)}!`)).to.equal(true);
  });
});
