import {
  type Attributes,
  context,
  createContextKey,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";

/**
 * Spans of our own (a request, the service call under it), beside the pg and ioredis spans the
 * OpenTelemetry instrumentations add. Tracing is on only when instrumentation.ts started the SDK
 * (an OTEL_EXPORTER_OTLP_*ENDPOINT is set); off, `inSpan` just runs the work: no span objects,
 * no context switches. The tracer is the SDK's, handed over by server/telemetry.ts: its provider
 * is not registered globally (so Next.js does not start spans of its own, see there).
 */
const holder = globalThis as typeof globalThis & { __gameBackendTracer?: Tracer };

export function markTracingStarted(tracer: Tracer): void {
  holder.__gameBackendTracer = tracer;
}

/** Tracing off again (tests). */
export function markTracingStopped(): void {
  holder.__gameBackendTracer = undefined;
}

export function tracingOn(): boolean {
  return holder.__gameBackendTracer !== undefined;
}

/**
 * `headers`: a request span continues the caller's trace from its W3C traceparent (and
 * tracestate) header. Next.js does not extract it for us: its tracing is off (server/telemetry.ts).
 */
export type SpanOptions = { kind?: "server" | "internal"; attributes?: Attributes; headers?: Headers };

const fromHeaders: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};

/** Set in the context of a request the sampler left out: spans under it are not started either. */
const UNSAMPLED = createContextKey("game-backend.unsampled");

/**
 * Runs `work` in a span of its own, active for what runs under it. A span the sampler does not
 * record (OTEL_TRACES_SAMPLER, e.g. 10 % of requests) is not made active: the pg and ioredis
 * instrumentations start spans only under an active one (requireParentSpan), so an unsampled
 * request costs one sampling decision and one context entry instead of a non-recording span, its
 * attributes and callbacks bound to it per query; and spans of ours below it are skipped too (a
 * root sampler there would otherwise start a separate trace). Log lines of such a request carry
 * no trace id, since no trace of it exists.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | null) => Promise<T>): Promise<T> {
  const tracer = holder.__gameBackendTracer;
  if (!tracer) return work(null);
  let active = context.active();
  if (active.getValue(UNSAMPLED) === true) return work(null);
  if (options.headers?.has("traceparent")) active = propagation.extract(active, options.headers, fromHeaders);
  const kind = options.kind === "server" ? SpanKind.SERVER : SpanKind.INTERNAL;
  const span = tracer.startSpan(name, { kind, attributes: options.attributes }, active);
  if (!span.isRecording()) {
    span.end();
    return context.with(active.setValue(UNSAMPLED, true), () => work(null));
  }
  return context.with(trace.setSpan(active, span), async () => {
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
