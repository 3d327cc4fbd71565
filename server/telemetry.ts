import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { shared } from "./launcher-contract.mjs";
import { logger } from "./log";
import { markTracingStarted } from "./tracing";

/**
 * OpenTelemetry traces, configured by the standard OTEL_* variables (docs/operating/observability.md):
 * on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set and
 * OTEL_SDK_DISABLED is not "true". The SDK's own defaults apply (OTLP over HTTP, protobuf unless
 * OTEL_EXPORTER_OTLP_PROTOCOL says http/json; batching per OTEL_BSP_*; sampling per
 * OTEL_TRACES_SAMPLER). Spans: one per game API request (server/http/define-route.ts) with the
 * service call under it, and the pg and ioredis instrumentations' query spans beneath.
 */
export function tracingConfigured(): boolean {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && process.env.OTEL_SDK_DISABLED !== "true";
}

// The launcher flushes it on stop (server/launcher-contract.mjs).
const holder = shared as typeof shared & { __gameBackendOtel?: NodeSDK };

export function startTracing(): void {
  if (holder.__gameBackendOtel || !tracingConfigured()) return;
  process.env.OTEL_SERVICE_NAME ||= "game-backend";
  // Traces only: Prometheus has the metrics and pino the logs.
  process.env.OTEL_METRICS_EXPORTER ||= "none";
  process.env.OTEL_LOGS_EXPORTER ||= "none";
  const sdk = new NodeSDK({
    instrumentations: [
      // A span per query (the statement without its parameters), under the request's span only.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  holder.__gameBackendOtel = sdk;
  markTracingStarted();
  logger("telemetry").info(
    {
      endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
      service: process.env.OTEL_SERVICE_NAME,
    },
    "tracing on: OpenTelemetry spans exported over OTLP",
  );
}

/** Sends the spans still batched (on shutdown). */
export async function stopTracing(): Promise<void> {
  await holder.__gameBackendOtel?.shutdown().catch(() => {});
}
