import { type ProxyTracerProvider, type TracerProvider, trace } from "@opentelemetry/api";
import type { Instrumentation } from "@opentelemetry/instrumentation";
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
  const instrumentations = [
    // A span per query (the statement without its parameters), under the request's span only.
    // No span per pool checkout (`pg-pool.connect`): there is one before every query, doubling a
    // sampled request's database spans. A wait for a connection still shows, as the gap before
    // the query's span, and gb_db_pool_connections{state="waiting"} counts the waiters.
    new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
  ];
  const sdk = new NodeSDK({ instrumentations });
  sdk.start();
  holder.__gameBackendOtel = sdk;
  // The SDK registers its tracer provider globally. Next.js starts spans of its own for every
  // request whenever one is (next/dist/server/lib/trace/tracer.js: ~150 µs a request, measured
  // in docs/operating/observability.md), and ours already say what a game API request did. So
  // the provider serves our spans and the two instrumentations only, and is taken off the global
  // API again. The context manager and the W3C propagator stay global; a request span of ours
  // continues an incoming traceparent itself (inSpan's `headers`, server/tracing.ts).
  serveTracerProviderLocally(instrumentations);
  logger("telemetry").info(
    {
      endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
      service: process.env.OTEL_SERVICE_NAME,
    },
    "tracing on: OpenTelemetry spans exported over OTLP",
  );
}

/**
 * Takes the tracer provider a started SDK registered off the global API and gives it to our spans
 * (inSpan) and the instrumentations only; returns it.
 */
export function serveTracerProviderLocally(instrumentations: Pick<Instrumentation, "setTracerProvider">[]): TracerProvider {
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
  trace.disable();
  for (const instrumentation of instrumentations) instrumentation.setTracerProvider(provider);
  markTracingStarted(provider.getTracer("game-backend"));
  return provider;
}

/** Sends the spans still batched (on shutdown). */
export async function stopTracing(): Promise<void> {
  await holder.__gameBackendOtel?.shutdown().catch(() => {});
}
