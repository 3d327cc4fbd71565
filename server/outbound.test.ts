import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPrivateAddress, OutboundRefused, postOutbound } from "./outbound";

let server: Server;
let hits = 0;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "/target" }).end();
    } else if (req.url === "/large") {
      res.end("x".repeat(100_000));
    } else if (req.url === "/slow") {
      setTimeout(() => res.end("late"), 2_000).unref();
    } else {
      res.end(`ok ${req.url}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const post = (path: string, o: { allowPrivate?: boolean; timeoutMs?: number; host?: string } = {}) =>
  postOutbound({
    url: `${(o.host ? base.replace("127.0.0.1", o.host) : base) + path}`,
    headers: {},
    body: "{}",
    timeoutMs: o.timeoutMs ?? 5_000,
    allowPrivate: o.allowPrivate ?? true,
    maxBodyBytes: 4096,
  });

describe("outbound requests to operators' URLs", () => {
  it("private, loopback and link-local addresses are private; public ones are not", () => {
    for (const a of ["127.0.0.1", "10.0.0.1", "192.168.1.1", "169.254.169.254", "::1", "::ffff:127.0.0.1", "fd00::1"]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["8.8.8.8", "203.0.113.10", "2001:4860:4860::8888"]) expect(isPrivateAddress(a), a).toBe(false);
  });

  it.each([
    ["64:ff9b::7f00:1", "NAT64 of 127.0.0.1"],
    ["64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["2002:7f00:1::1", "6to4 of 127.0.0.1"],
    ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
    ["::127.0.0.1", "IPv4-compatible 127.0.0.1"],
    ["::7f00:1", "IPv4-compatible 127.0.0.1, hex"],
    ["::ffff:10.0.0.1", "IPv4-mapped 10.0.0.1"],
    ["::ffff:a9fe:a9fe", "IPv4-mapped 169.254.169.254, hex"],
    ["::ffff:0:127.0.0.1", "IPv4-translated 127.0.0.1"],
    ["fec0::1", "site-local"],
    ["ff02::1", "IPv6 multicast"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.254", "benchmarking, end of the /15"],
    ["100.64.0.1", "CGNAT"],
    ["0.0.0.0", "this network"],
    ["0.1.2.3", "this network, /8"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast, end"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["fe80::1%eth0", "link-local with a zone"],
  ])("SSRF gaps: %s (%s) is private", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it("SSRF gaps: addresses that only carry a public IPv4 address stay public (DNS64, 6to4, mapped)", () => {
    for (const a of ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "198.20.0.1", "100.128.0.1", "223.255.255.255"]) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
  });

  it("a loopback address is refused before connecting when private networks are not allowed", async () => {
    const before = hits;
    await expect(post("/", { allowPrivate: false })).rejects.toBeInstanceOf(OutboundRefused);
    expect(hits).toBe(before);
  });

  it("a host name resolving to loopback is refused at connect time when private networks are not allowed", async () => {
    const before = hits;
    await expect(post("/", { allowPrivate: false, host: "localhost" })).rejects.toBeInstanceOf(OutboundRefused);
    expect(hits).toBe(before);
  });

  it("a loopback address is reached when private networks are allowed", async () => {
    const res = await post("/hello", { host: "localhost" });
    expect(res).toMatchObject({ status: 200, body: "ok /hello", truncated: false });
  });

  it("a redirect is not followed: the 3xx is the answer", async () => {
    const before = hits;
    const res = await post("/redirect");
    expect(res.status).toBe(302);
    expect(hits).toBe(before + 1);
  });

  it("a large answer is kept truncated to the limit", async () => {
    const res = await post("/large");
    expect(res.body).toHaveLength(4096);
    expect(res.truncated).toBe(true);
  });

  it("an answer slower than the timeout fails the request", async () => {
    await expect(post("/slow", { timeoutMs: 200 })).rejects.toThrow(/timed out after 200 ms/);
  });
});
