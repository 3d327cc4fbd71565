/**
 * Browser security headers for the HTML pages (dashboard, sign-in, invites, the sample game),
 * set by `proxy.ts`. The Content-Security-Policy is nonce-based: Next puts the per-request nonce
 * on its own scripts (it reads it from the request's CSP header), so no inline script runs
 * without it — no `unsafe-inline` for scripts; `strict-dynamic` lets those scripts load the
 * chunks they need. Styles allow inline `style` attributes (React renders some). HSTS only when
 * the request arrived over HTTPS (directly, or per X-Forwarded-Proto when TRUST_PROXY is set):
 * over plain HTTP it would be ignored, and on localhost it would pin a developer's browser.
 * Client-safe: no server imports, so `proxy.ts` stays light.
 */
/** The policy every HTML page shares; pages differ only in where scripts and images may come from. */
function policy(o: { scripts: string; images: string }): string {
  return [
    "default-src 'self'",
    `script-src ${o.scripts}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src ${o.images}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function contentSecurityPolicy(nonce: string, development: boolean): string {
  // React's development build evaluates code (stack frames); production never does.
  return policy({
    scripts: `'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    images: "'self' data: blob:",
  });
}

export function securityHeaders(o: { csp: string; https: boolean }): Record<string, string> {
  return {
    "Content-Security-Policy": o.csp,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    "Cross-Origin-Opener-Policy": "same-origin",
    ...(o.https ? { "Strict-Transport-Security": "max-age=31536000; includeSubDomains" } : {}),
  };
}

/**
 * The API reference and guides under /docs (static HTML, Swagger UI from our own files): no
 * nonce needed, since no inline script runs there — Swagger UI is loaded and started from
 * /docs/assets. Its styles and the page's own <style> are inline, and it draws SVG icons from
 * data: URLs. Never framed (clickjacking), never sniffed.
 */
export const DOCS_CONTENT_SECURITY_POLICY = policy({ scripts: "'self'", images: "'self' data:" });

export function docsSecurityHeaders(): Array<{ key: string; value: string }> {
  return [
    { key: "Content-Security-Policy", value: DOCS_CONTENT_SECURITY_POLICY },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  ];
}
