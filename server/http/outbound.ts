import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Requests the server makes to addresses operators typed (identity providers' JWKS URLs,
 * webhook endpoints). Unless an instance setting allows private networks, such a request may not
 * reach the server's own network: every address a host resolves to must be public.
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv4");
}
// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked against the IPv4 rules by BlockList
// itself; a `::ffff:0:0/96` rule here would match every IPv4 address and refuse every host.
for (const [net, bits] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv6");
}

/** True for private, loopback, link-local, CGNAT and unspecified addresses (IPv4, IPv6, IPv4-mapped). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 6 ? "ipv6" : "ipv4");
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

/**
 * One POST to an operator's URL: http(s) only, refused before connecting when the address is
 * private (unless allowed), aborted after `timeoutMs` (connect to last byte), redirects never
 * followed (a 3xx is just the answer), and at most `maxBodyBytes` of the answer kept.
 */
export function postOutbound(o: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  maxBodyBytes: number;
}): Promise<OutboundResponse> {
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
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "game-backend-webhooks", ...o.headers },
      lookup: guardedLookup(o.allowPrivate),
      agent: false,
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${o.timeoutMs} ms`)), o.timeoutMs);
    req.on("error", (error) => {
      clearTimeout(timer);
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
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), truncated });
      };
      res.on("end", done);
      res.on("close", done);
      res.on("error", done);
    });
    req.end(o.body);
  });
}
