import { context, propagation, type Span, type TracerProvider, trace } from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveTracerProviderLocally } from "./telemetry";
import { inSpan, markTracingStopped } from "./tracing";

/** What the SDK exported, and every span name the sampler was asked about. */
const exported: { name: string; traceId: string; parentSpanId?: string }[] = [];
const asked: string[] = [];
// SamplingDecision: 0 NOT_RECORD, 2 RECORD_AND_SAMPLED. Roots named "unsampled …" are left out,
// every other span is sampled, so a span started below a left-out request would be exported.
const sampler = {
  shouldSample: (_context: unknown, _traceId: string, name: string) => {
    asked.push(name);
    return { decision: name.startsWith("unsampled") ? 0 : 2 };
  },
  toString: () => "by-name",
};
type Exported = { name: string; spanContext(): { traceId: string }; parentSpanContext?: { spanId: string } };
const sdk = new NodeSDK({
  sampler,
  instrumentations: [],
  traceExporter: {
    export(spans: Exported[], done: (result: { code: number }) => void) {
      for (const s of spans) exported.push({ name: s.name, traceId: s.spanContext().traceId, parentSpanId: s.parentSpanContext?.spanId });
      done({ code: 0 });
    },
    shutdown: async () => {},
  } as never,
});

let provider: TracerProvider & { forceFlush(): Promise<void> };
beforeAll(() => {
  sdk.start();
  // As server/telemetry.ts does: the provider serves our spans only, not the global API.
  provider = serveTracerProviderLocally([]) as typeof provider;
});
afterAll(async () => {
  await sdk.shutdown();
  markTracingStopped();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** A request span with a service span under it, as server/http/define-route.ts nests them. */
async function request(name: string) {
  const seen: { outer: Span | null; inner: Span | null; activeInside?: Span } = { outer: null, inner: null };
  await inSpan(name, { kind: "server" }, async (outer) => {
    seen.outer = outer;
    await inSpan(`service ${name}`, {}, async (inner) => {
      seen.inner = inner;
      seen.activeInside = trace.getActiveSpan();
    });
  });
  await flush();
  return seen;
}

/** Exports what the SDK's batch processor holds. */
async function flush() {
  await provider.forceFlush();
}

describe("inSpan with a sampler", () => {
  it("a request the sampler leaves out has no active span beneath it and starts no span below (no separate trace from a nested one)", async () => {
    const seen = await request("unsampled GET /x");
    expect(seen.outer).toBeNull();
    expect(seen.inner).toBeNull();
    // No active span: the pg and ioredis instrumentations (requireParentSpan) start nothing, and log lines carry no trace id.
    expect(seen.activeInside).toBeUndefined();
    expect(asked).toEqual(["unsampled GET /x"]);
    expect(exported).toEqual([]);
  });
});

describe("inSpan with a sampled request", () => {
  it("the service span is the request span's child in the same trace, and the active span while it runs", async () => {
    asked.length = 0;
    exported.length = 0;
    const seen = await request("GET /y");
    expect(seen.activeInside).toBe(seen.inner);
    await flush();
    const [service, req] = exported;
    expect(exported.map((s) => s.name)).toEqual(["service GET /y", "GET /y"]);
    expect(service?.traceId).toBe(req?.traceId);
    expect(service?.parentSpanId).toBe(seen.outer?.spanContext().spanId);
    expect(asked).toEqual(["GET /y", "service GET /y"]);
  });
});

describe("the SDK's tracer provider, off the global API", () => {
  it("a tracer from the global API (as Next.js gets its own) starts spans that are not recorded, under a sampled request of ours too", async () => {
    let nextSpanRecording: boolean | undefined;
    await inSpan("GET /z", { kind: "server" }, async () => {
      const span = trace.getTracer("next.js").startSpan("BaseServer.handleRequest");
      nextSpanRecording = span.isRecording();
      span.end();
    });
    expect(nextSpanRecording).toBe(false);
  });
});
