import { describe, expect, it } from "vitest";
import { ipSubject } from "./ip";

describe("ipSubject (what a per-IP budget counts)", () => {
  it("counts IPv4 per address, IPv4-mapped IPv6 as the IPv4 address", () => {
    expect(ipSubject("198.51.100.7")).toBe("198.51.100.7");
    expect(ipSubject("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(ipSubject("::FFFF:127.0.0.1")).toBe("127.0.0.1");
  });

  it("counts IPv6 per /64, whatever the spelling of the address", () => {
    const subject = "2001:db8:a:b::/64";
    for (const ip of ["2001:db8:a:b::1", "2001:db8:a:b:ffff:ffff:ffff:ffff", "2001:0db8:000a:000b:0:0:0:1", "2001:DB8:A:B::9%eth0"])
      expect(ipSubject(ip)).toBe(subject);
    expect(ipSubject("2001:db8:a:c::1")).not.toBe(subject);
    expect(ipSubject("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipSubject("::1")).toBe("0:0:0:0::/64");
    expect(ipSubject("64:ff9b::198.51.100.7")).toBe("64:ff9b:0:0::/64");
  });

  it("leaves anything that is not an address alone", () => {
    expect(ipSubject("unknown")).toBe("unknown");
    expect(ipSubject("")).toBe("");
  });
});
