import { env } from "../env";

/**
 * What the SDKs say about the client (X-Client-Version, X-Platform) and, when the operator names
 * a header their proxy sets (CLIENT_COUNTRY_HEADER), the country. Absent or malformed values are
 * null: they are recorded when good and ignored otherwise, never refused.
 */
export type ClientInfo = { clientVersion: string | null; platform: string | null; country: string | null };

const VERSION = /^[0-9A-Za-z._+-]{1,32}$/;
const PLATFORM = /^[a-z0-9_-]{1,32}$/;
const COUNTRY = /^[A-Za-z]{2}$/;

/**
 * The country header to read: CLIENT_COUNTRY_HEADER, and only behind a trusted proxy
 * (TRUST_PROXY). Without one, the header comes from the client itself, which would pick its own
 * country (and so its remote config audiences): it is ignored.
 */
export function trustedCountryHeader(e: { CLIENT_COUNTRY_HEADER?: string; TRUST_PROXY: boolean } = env()): string | undefined {
  return e.TRUST_PROXY ? e.CLIENT_COUNTRY_HEADER : undefined;
}

/** `countryHeader`: the header the operator's proxy sets (trustedCountryHeader); none, no country. */
export function clientInfo(headers: Headers, countryHeader = trustedCountryHeader()): ClientInfo {
  const version = headers.get("x-client-version")?.trim() ?? "";
  const platform = headers.get("x-platform")?.trim() ?? "";
  const country = countryHeader ? (headers.get(countryHeader)?.trim() ?? "") : "";
  return {
    clientVersion: VERSION.test(version) ? version : null,
    platform: PLATFORM.test(platform) ? platform : null,
    // "XX" and "T1" are Cloudflare's unknown and Tor: not countries.
    country: COUNTRY.test(country) && country.toUpperCase() !== "XX" ? country.toUpperCase() : null,
  };
}

export const NO_CLIENT_INFO: ClientInfo = { clientVersion: null, platform: null, country: null };

/** A request's release for the health view: the same rules, '' for absent or malformed (never refused). */
export function releaseOf(headers: Headers): { clientVersion: string; platform: string } {
  const version = headers.get("x-client-version")?.trim() ?? "";
  const platform = headers.get("x-platform")?.trim() ?? "";
  return { clientVersion: VERSION.test(version) ? version : "", platform: PLATFORM.test(platform) ? platform : "" };
}
