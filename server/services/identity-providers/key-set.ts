import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";
import { env } from "../../env";
import { OutboundRefused, sendOutbound } from "../../outbound";

/** A key set larger than this is refused (a JWKS holds a few keys, about 1 KiB each). */
const MAX_KEY_SET_BYTES = 256 * 1024;
const FETCH_TIMEOUT_MS = 3_000;

/**
 * jose's fetch for a provider's key set, through the guarded outbound request: every fetch
 * checks each address it connects to, as webhook deliveries do, so a host name that resolved to
 * a public address when the provider was saved cannot reach the server's network later (DNS
 * rebinding, a changed record). https only unless private networks are allowed; redirects are
 * never followed.
 */
export function keySetFetch(allowPrivate: boolean) {
  return async (url: string, options: { headers: Headers; signal: AbortSignal }): Promise<Response> => {
    if (!allowPrivate && new URL(url).protocol !== "https:") throw new OutboundRefused("a key-set URL must be https");
    const answer = await sendOutbound({
      method: "GET",
      url,
      headers: Object.fromEntries(options.headers),
      timeoutMs: FETCH_TIMEOUT_MS,
      allowPrivate,
      maxBodyBytes: MAX_KEY_SET_BYTES,
      signal: options.signal,
    });
    // Too large, or a status a Response cannot carry: not a key set (jose wants 200).
    const status = answer.truncated || answer.status < 200 || answer.status > 599 ? 502 : answer.status;
    return new Response(status === 502 ? null : answer.body, { status, headers: { "content-type": "application/json" } });
  };
}

const keySets = new Map<string, JWTVerifyGetKey>();

/**
 * One cached key set per JWKS URL (jose's remote key set: fetched once, kept 10 minutes,
 * re-fetched on an unknown kid at most every 30 s), fetched with keySetFetch.
 */
export function providerKeySet(jwksUrl: string, allowPrivate = env().IDP_ALLOW_PRIVATE_NETWORKS): JWTVerifyGetKey {
  const id = `${allowPrivate ? "private" : "public"} ${jwksUrl}`;
  let found = keySets.get(id);
  if (!found) {
    found = createRemoteJWKSet(new URL(jwksUrl), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60_000,
      [customFetch]: keySetFetch(allowPrivate),
    });
    keySets.set(id, found);
  }
  return found;
}
