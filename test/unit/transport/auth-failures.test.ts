import { expect } from "chai";
import { AuthFailures, sourceOf } from "../../../src/transport/auth-failures.js";

/** A limiter on a clock the test moves by hand. */
function limiter(perSourcePerMinute: number, globalPerMinute: number): { failures: AuthFailures; advance(ms: number): void } {
  let now = 0;
  const failures = new AuthFailures({ perSourcePerMinute, globalPerMinute }, () => now);
  return { failures, advance: (ms) => (now += ms) };
}

function failTimes(failures: AuthFailures, source: string, times: number): void {
  for (let i = 0; i < times; i++) failures.failed(source);
}

describe("sourceOf: what a peer address counts as", () => {
  it("an IPv4 address is itself, and an IPv4-mapped IPv6 address is its IPv4 address", () => {
    expect(sourceOf("203.0.113.7")).to.equal("203.0.113.7");
    expect(sourceOf("::ffff:203.0.113.7")).to.equal("203.0.113.7");
    expect(sourceOf("::FFFF:203.0.113.7")).to.equal("203.0.113.7");
    expect(sourceOf("::ffff:cb00:7107")).to.equal("203.0.113.7");
    expect(sourceOf("127.0.0.1")).to.not.equal(sourceOf("127.0.0.2"));
  });

  it("an IPv6 address is its /64, however it is written; another /64 is another source", () => {
    const source = sourceOf("2001:db8:1:2::1");
    expect(source).to.equal("2001:db8:1:2::/64");
    for (const same of ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002:0:0:0:9", "2001:DB8:1:2::abcd", "2001:db8:1:2::1%eth0"])
      expect(sourceOf(same), same).to.equal(source);
    for (const other of ["2001:db8:1:3::1", "2001:db8::1", "2001:db9:1:2::1"]) expect(sourceOf(other), other).to.not.equal(source);
    expect(sourceOf("::1")).to.equal("0:0:0:0::/64");
    expect(sourceOf("64:ff9b::192.0.2.1")).to.equal("64:ff9b:0:0::/64");
    expect(sourceOf("fe80::1:2:3:4")).to.equal("fe80:0:0:0::/64");
    expect(sourceOf(undefined)).to.equal("unknown");
  });
});

describe("AuthFailures: the one failed-authentication limiter", () => {
  it("lets a source fail its limit in a burst, then refuses it with when to retry, and lets it try again as the minute passes", () => {
    const { failures, advance } = limiter(20, 1_000);
    failTimes(failures, "198.51.100.1", 19);
    expect(failures.throttle("198.51.100.1")).to.equal(null);
    failures.failed("198.51.100.1");
    const throttle = failures.throttle("198.51.100.1");
    expect(throttle?.retryAfterMs).to.equal(3_000);
    expect(throttle?.message).to.match(
      /too many failed authentications from your address \(AUTH_FAILURES_PER_MIN: 20 a minute\); retry in 3 s/,
    );
    expect(failures.throttle("198.51.100.2"), "another address").to.equal(null);
    advance(2_999);
    expect(failures.throttle("198.51.100.1")).to.not.equal(null);
    advance(1);
    expect(failures.throttle("198.51.100.1")).to.equal(null);
  });

  it("counts every address of one IPv6 /64 as one source", () => {
    const { failures } = limiter(5, 1_000);
    for (let i = 1; i <= 5; i++) failures.failed(sourceOf(`2001:db8:aa:bb::${i.toString(16)}`));
    expect(failures.throttle(sourceOf("2001:db8:aa:bb:1234::99"))).to.have.property("retryAfterMs");
    expect(failures.throttle(sourceOf("2001:db8:aa:bc::1")), "the next /64").to.equal(null);
  });

  it("past the global ceiling refuses every source that has not authenticated lately, and still lets in one that has", () => {
    const { failures, advance } = limiter(20, 30);
    failures.succeeded("192.0.2.50");
    for (let i = 0; i < 10; i++) failTimes(failures, `192.0.2.${i}`, 3);
    const fresh = failures.throttle("192.0.2.99");
    expect(fresh?.message).to.match(/from all addresses \(AUTH_FAILURES_GLOBAL_PER_MIN: 30 a minute\); retry in 2 s/);
    expect(fresh?.retryAfterMs).to.equal(2_000);
    expect(failures.throttle("192.0.2.50"), "a source that authenticated").to.equal(null);
    advance(2_000);
    expect(failures.throttle("192.0.2.99")).to.equal(null);
    advance(60 * 60_000);
    failTimes(failures, "192.0.2.200", 20);
    failTimes(failures, "192.0.2.201", 20);
    expect(failures.throttle("192.0.2.50"), "an hour after its last success").to.not.equal(null);
  });

  it("keeps bounded state: idle sources are forgotten, and a flood of addresses holds at most 10,000 of each kind", () => {
    const { failures, advance } = limiter(20, 1_000_000);
    for (let i = 0; i < 25_000; i++) {
      failures.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      failures.succeeded(`11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    }
    expect(failures.trackedSources).to.be.at.most(20_000);
    advance(2 * 60 * 60_000);
    failures.failed("10.255.255.255");
    expect(failures.trackedSources).to.equal(1);
  });
});
