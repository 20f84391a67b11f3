import { expect } from "chai";
import { decideEgress } from "../../../src/egress/egress-decision.js";
import { normaliseHost, normalisePattern } from "../../../src/egress-rules.js";
import { hostMatches, refusalOf } from "../../../src/egress/host-rules.js";
import { isPrivateAddress } from "../../../src/egress/private-address.js";

const request = (host: string, port = 443, scheme = "https") => ({ host, port, scheme });

describe("egress host rules", () => {
  it("normalises hosts as DNS sees them: case, IDN, trailing dots, IPv6 brackets; refuses what is not a host", () => {
    expect(normaliseHost("Shop.EXAMPLE.com.")).to.equal("shop.example.com");
    expect(normaliseHost("bücher.example")).to.equal("xn--bcher-kva.example");
    expect(normaliseHost("[::1]")).to.equal("::1");
    for (const bad of ["", "bad host", "a..b", "x/y", "*.x"]) expect(normaliseHost(bad), bad).to.equal(null);
    expect(normalisePattern("*.Example.com")).to.equal("*.example.com");
    expect(normalisePattern("*.*.x")).to.equal(null);
    expect(normalisePattern("*.127.0.0.1")).to.equal(null);
  });

  it("`*.name` is the name and every subdomain, never a name that only ends the same", () => {
    expect(hostMatches("*.example.com", "example.com")).to.be.true;
    expect(hostMatches("*.example.com", "a.b.example.com")).to.be.true;
    expect(hostMatches("*.example.com", "badexample.com")).to.be.false;
    expect(hostMatches("example.com", "a.example.com")).to.be.false;
  });

  it("a block wins over an allow; ports and schemes narrow", () => {
    const rules = { allow: ["*.example.com"], block: ["admin.example.com"], ports: [443] };
    expect(refusalOf(rules, request("www.example.com"))).to.equal(null);
    expect(refusalOf(rules, request("ADMIN.example.com."))).to.equal("block:admin.example.com");
    expect(refusalOf(rules, request("other.test"))).to.equal("allow");
    expect(refusalOf(rules, request("www.example.com", 8443))).to.equal("ports");
    expect(refusalOf({ schemes: ["https"] }, request("a.test", 80, "http"))).to.equal("schemes");
    expect(refusalOf({ schemes: ["http"] }, request("a.test"))).to.equal("schemes");
  });

  it("private networks: loopback, link-local, private, CGNAT, unspecified and IPv4 inside IPv6 are private; public ones are not", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
    ])
      expect(isPrivateAddress(address), address).to.be.true;
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(address), address).to.be.false;
  });

  it("every policy must let a request through, and a private address is refused after resolution unless allow names that very host", async () => {
    const hosts = new Map([
      ["allowed.test", "127.0.0.1"],
      ["sub.allowed.test", "127.0.0.1"],
    ]);
    const options = { hosts, viaUpstream: false };
    const wide = { name: "token", policy: { egress: { allow: ["*.allowed.test", "allowed.test"] } } };
    const narrow = { name: "client", policy: { egress: { allow: ["allowed.test"] } } };
    expect(await decideEgress([wide, narrow], request("allowed.test", 80, "http"), options)).to.deep.equal({
      allowed: true,
      host: "allowed.test",
      address: "127.0.0.1",
    });
    expect(await decideEgress([wide, narrow], request("sub.allowed.test"), options)).to.include({
      allowed: false,
      policy: "client",
      rule: "allow",
    });
    expect(await decideEgress([wide], request("sub.allowed.test"), options)).to.include({
      allowed: false,
      policy: "token",
      rule: "blockPrivateNetworks",
    });
    const open = { name: "client", policy: { egress: { blockPrivateNetworks: false } } };
    expect(await decideEgress([open], request("sub.allowed.test"), options)).to.include({ allowed: true });
    expect(await decideEgress([narrow], request("127.0.0.1"), options)).to.include({ allowed: false, rule: "allow" });
  });
});
