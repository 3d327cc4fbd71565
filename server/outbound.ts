import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Requests the server makes to addresses operators typed (identity providers' JWKS URLs,
 * webhook endpoints). Unless an instance setting allows private networks, such a request may not
 * reach the server's own network: every address a host resolves to must be public.
 */
const PRIVATE_V4 = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata services
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking: often the lab network behind a load generator
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, 255.255.255.255 broadcast included
] as const) {
  PRIVATE_V4.addSubnet(net, bits, "ipv4");
}
const PRIVATE_V6 = new BlockList();
for (const [net, bits] of [
  ["::", 127], // unspecified and loopback
  ["64:ff9b:1::", 48], // local-use NAT64: translates to the operator's own IPv4 networks
  ["100::", 64], // discard-only
  ["2001::", 32], // Teredo: the IPv4 end is obfuscated, so it cannot be checked
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated, still routed by some stacks)
  ["ff00::", 8], // multicast
] as const) {
  PRIVATE_V6.addSubnet(net, bits, "ipv6");
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad included). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const front = head ? head.split(":") : [];
  const back = tail ? tail.split(":") : [];
  const middle = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill("0");
  return [...front, ...middle, ...back].map((g) => Number.parseInt(g, 16));
}

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d)
 * and 6to4 (2002:aabb:ccdd::); null for any other address. Those are checked as the IPv4
 * address: a DNS64 resolver gives public IPv4 hosts NAT64 addresses, which must keep working.
 */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const [g0 = 0, g1 = 0, g2 = 0, , g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  if (zero(0, 5) && (g5 === 0 || g5 === 0xffff)) return quad(g6, g7);
  if (zero(0, 4) && g4 === 0xffff && g5 === 0) return quad(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && zero(2, 6)) return quad(g6, g7);
  if (g0 === 0x2002) return quad(g1, g2);
  return null;
}

/**
 * True for addresses that are not the public internet: private, loopback, link-local,
 * site-local, CGNAT, benchmarking, multicast, reserved and unspecified ones, and IPv6 addresses
 * that carry one of those IPv4 addresses (mapped, compatible, NAT64, 6to4).
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.split("%")[0] ?? "";
  const family = isIP(bare);
  if (family === 4) return PRIVATE_V4.check(bare, "ipv4");
  if (family !== 6) return false;
  if (PRIVATE_V6.check(bare, "ipv6")) return true;
  const v4 = embeddedIpv4(bare);
  return v4 !== null && PRIVATE_V4.check(v4, "ipv4");
}

/** A URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/**
 * Every address `host` resolves to (an IP literal is its own address); empty when it does not
 * resolve. For checks at save time; a request checks again when it connects (guardedLookup).
 */
export async function resolveHost(host: string): Promise<Array<{ address: string; family: number }>> {
  if (isIP(host)) return [{ address: host, family: isIP(host) }];
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (error, addresses) => resolve(error ? [] : addresses));
  });
}

export class OutboundRefused extends Error {
  readonly code = "EPRIVATEADDRESS";
}

/**
 * A `lookup` for node's http(s).request that refuses a host resolving to a private address. The
 * connection then goes to exactly the address checked here (no second resolution), so a DNS
 * answer that changes between a check and the connection (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as unknown as Array<{ address: string; family: number }>;
      const refused = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (refused) return callback(new OutboundRefused(`${hostname} resolves to a private or loopback address`), "", 0);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} does not resolve`), "", 0);
      // Node asks for all addresses when it tries several (autoSelectFamily); else for one.
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}

export type OutboundResponse = { status: number; headers: IncomingHttpHeaders; body: string; truncated: boolean };

export type OutboundRequest = {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  allowPrivate: boolean;
  maxBodyBytes: number;
  /** Aborts the request (its reason is the error). */
  signal?: AbortSignal;
};

/**
 * One request to an operator's URL: http(s) only, refused before connecting when the address is
 * private (unless allowed), aborted after `timeoutMs` (connect to last byte), redirects never
 * followed (a 3xx is just the answer), and at most `maxBodyBytes` of the answer kept.
 */
export function sendOutbound(o: OutboundRequest): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(o.url);
    } catch {
      return reject(new Error("not a URL"));
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return reject(new Error("not an http(s) URL"));
    const host = hostOf(url);
    if (isIP(host) && !o.allowPrivate && isPrivateAddress(host)) {
      return reject(new OutboundRefused(`${host} is a private or loopback address`));
    }
    if (o.signal?.aborted) return reject(o.signal.reason);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, { method: o.method, headers: o.headers, lookup: guardedLookup(o.allowPrivate), agent: false });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${o.timeoutMs} ms`)), o.timeoutMs);
    const abort = () => req.destroy(o.signal?.reason instanceof Error ? o.signal.reason : new Error("aborted"));
    o.signal?.addEventListener("abort", abort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", abort);
    };
    req.on("error", (error) => {
      settle();
      reject(error);
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      res.on("data", (chunk: Buffer) => {
        if (kept >= o.maxBodyBytes) {
          truncated = true;
          // Enough kept: stop reading a large answer instead of downloading it.
          res.destroy();
          return;
        }
        const part = chunk.subarray(0, o.maxBodyBytes - kept);
        if (part.length < chunk.length) truncated = true;
        chunks.push(part);
        kept += part.length;
      });
      const done = () => {
        settle();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), truncated });
      };
      res.on("end", done);
      res.on("close", done);
      res.on("error", done);
    });
    req.end(o.body);
  });
}

/** One POST of JSON to an operator's URL (a webhook delivery), with sendOutbound's guards. */
export function postOutbound(o: Omit<OutboundRequest, "method" | "body" | "signal"> & { body: string }): Promise<OutboundResponse> {
  return sendOutbound({
    ...o,
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "game-backend-webhooks", ...o.headers },
  });
}
