import { isIPv4, isIPv6 } from "node:net";

/**
 * The client a per-IP budget counts. An IPv6 subscriber gets a whole /64 (often more) and
 * devices rotate their address inside it (privacy extensions), so a budget per IPv6 address
 * could be dodged by rotating and would forget a returning device: IPv6 is counted per /64.
 * IPv4 (also IPv4-mapped IPv6) is counted per address.
 */
export function ipSubject(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (!isIPv6(ip)) return ip;
  return `${expandIpv6(ip).slice(0, 4).join(":")}::/64`;
}

/** The eight hextets of an IPv6 address, without leading zeros ("2001:db8::1" → 2001,db8,0,…,1). */
function expandIpv6(ip: string): string[] {
  const withoutZone = ip.split("%")[0] ?? ip;
  // An embedded IPv4 tail (::ffff:1.2.3.4 forms other than the mapped one) is two hextets.
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(withoutZone)?.[1];
  const normalised = dotted ? withoutZone.slice(0, -dotted.length) + ipv4AsHextets(dotted) : withoutZone;
  const [head = "", tail] = normalised.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((h) => Number.parseInt(h, 16).toString(16));
}

function ipv4AsHextets(ip: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = ip.split(".").map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}
