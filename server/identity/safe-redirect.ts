/**
 * The one check for where to send an operator after signing in (or out): a path on this site,
 * or `fallback`. Browsers drop tabs and newlines from a URL and read `\` as `/`, so
 * "/\t/evil.com" and "/\\evil.com" both become "//evil.com" — another site — once navigated to:
 * such input is refused, not cleaned. What is left is resolved against this site's origin and
 * kept only when it stays there; the answer is the path (with query and fragment), never a host.
 * Pure, so the sign-in form and next-auth's redirect callback share it.
 */
export function safeRedirectPath(raw: unknown, origin: string, fallback = "/projects"): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2048) return fallback;
  if (unsafeText(raw) || unsafeText(decodedOnce(raw))) return fallback;
  const base = new URL(origin);
  let url: URL;
  try {
    url = new URL(raw, base.origin);
  } catch {
    return fallback;
  }
  if (url.origin !== base.origin) return fallback;
  // An absolute URL of this origin is accepted as its path; a relative one must be a path.
  if (!raw.startsWith("/") && !raw.toLowerCase().startsWith(`${base.origin.toLowerCase()}/`)) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // "//x" as a path would be a host to the next URL parser that sees it.
  return path.startsWith("//") ? fallback : path;
}

/** Control characters (tab, CR, LF…), backslashes, or a protocol-relative start. */
function unsafeText(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return /[\u0000-\u001f\u007f\\]/.test(text) || text.startsWith("//");
}

function decodedOnce(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return "//"; // malformed percent-encoding: refused
  }
}
