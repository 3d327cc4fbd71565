import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

/**
 * Spans of our own (a request, the service call under it), beside the pg and ioredis spans the
 * OpenTelemetry instrumentations add. Tracing is on only when instrumentation.ts started the SDK
 * (an OTEL_EXPORTER_OTLP_*ENDPOINT is set); off, `inSpan` just runs the work: no span objects,
 * no context switches.
 */
const holder = globalThis as typeof globalThis & { __gameBackendTracing?: boolean };

export function markTracingStarted(): void {
  holder.__gameBackendTracing = true;
}

export function tracingOn(): boolean {
  return holder.__gameBackendTracing === true;
}

export type SpanOptions = { kind?: "server" | "internal"; attributes?: Attributes };

export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | null) => Promise<T>): Promise<T> {
  if (!tracingOn()) return work(null);
  const kind = options.kind === "server" ? SpanKind.SERVER : SpanKind.INTERNAL;
  return trace.getTracer("game-backend").startActiveSpan(name, { kind, attributes: options.attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
