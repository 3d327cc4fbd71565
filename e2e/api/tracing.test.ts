import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, inject, it } from "vitest";
import { dedicatedApp } from "../support/dedicated-app";
import { makeProject } from "../support/fixtures";
import { logLine, until } from "../support/launch.mjs";

/**
 * OpenTelemetry export, end to end: an app started with the standard OTEL_* variables sends its
 * spans over OTLP/HTTP (JSON) to a receiver this test runs, as it would to a collector.
 */
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
};
type OtlpExport = { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };

const received: OtlpSpan[] = [];
const paths: string[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    paths.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
    for (const r of body.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) received.push(...(s.spans ?? []));
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{}");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

// The suite runs with Redis (.ci/run starts one): the rate limiter's calls are traced too.
const redisUrl = inject("redisUrl");
const app = dedicatedApp({
  REDIS_URL: redisUrl,
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_SERVICE_NAME: "gb-tracing-test",
  // Export batches every 50 ms instead of every 5 s.
  OTEL_BSP_SCHEDULE_DELAY: "50",
});

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

describe("traces over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT set)", () => {
  it("a game API request is a server span with its route; the service call, database queries and Redis calls are spans beneath it; its log line carries the trace id", async () => {
    const project = await makeProject();
    const requestId = `trace-${randomBytes(4).toString("hex")}`;
    const res = await fetch(`${app().baseUrl}/api/v1/auth/anonymous`, {
      method: "POST",
      headers: { "X-API-Key": project.clientKey, "X-Request-Id": requestId, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);

    const request = await until("the request's span", () => received.find((s) => attribute(s, "gb.request_id") === requestId));
    expect(request.name).toBe("POST /api/v1/auth/anonymous");
    expect(attribute(request, "http.route")).toBe("/api/v1/auth/anonymous");
    expect(attribute(request, "http.response.status_code")).toBe(200);
    expect(attribute(request, "gb.project_id")).toBe(project.projectId);

    const service = await until("the service span", () =>
      received.find((s) => s.parentSpanId === request.spanId && s.name.startsWith("service ")),
    );
    expect(service.traceId).toBe(request.traceId);
    // Statements (pg instrumentation) hang under the request: the API key lookup beside the
    // service call, the sign-in's own statements under the service span.
    const inTrace = () => received.filter((s) => s.traceId === request.traceId);
    const descendsFrom = (ancestor: OtlpSpan) => (span: OtlpSpan) => {
      for (let parent = span.parentSpanId; parent; parent = inTrace().find((s) => s.spanId === parent)?.parentSpanId) {
        if (parent === ancestor.spanId) return true;
      }
      return false;
    };
    const queries = await until("database spans", () => {
      const found = inTrace().filter((s) => attribute(s, "db.system") === "postgresql" || attribute(s, "db.system.name") === "postgresql");
      return found.length > 0 ? found : undefined;
    });
    expect(queries.every(descendsFrom(request))).toBe(true);
    expect(queries.filter(descendsFrom(service)).length).toBeGreaterThan(0);
    const isRedis = (s: OtlpSpan) => attribute(s, "db.system") === "redis" || attribute(s, "db.system.name") === "redis";
    const redisCalls = await until("the rate limiter's Redis spans", () => {
      const found = inTrace().filter(isRedis);
      return found.length > 0 ? found : undefined;
    }).catch((error: Error) => {
      // What was exported instead, so that a failure here says where the Redis spans went.
      const elsewhere = received.filter((s) => isRedis(s) && s.traceId !== request.traceId);
      throw new Error(
        `${error.message}; the trace's spans: ${inTrace()
          .map((s) => s.name)
          .join(
            ", ",
          )}; Redis spans in other traces: ${elsewhere.length} (${elsewhere.map((s) => `${s.name} parent ${s.parentSpanId || "none"}`).join(", ")})`,
      );
    });
    expect(redisCalls.every(descendsFrom(request))).toBe(true);
    expect(paths[0]).toMatch(/^POST \/v1\/traces application\/json/);
    // The request span is the trace's root: Next.js' own spans are not exported (server/telemetry.ts).
    expect(request.parentSpanId || undefined).toBeUndefined();
    expect(inTrace().every((s) => s === request || descendsFrom(request)(s))).toBe(true);

    const line = await logLine(app(), "the access log line", (l) => l.requestId === requestId && l.msg === "request");
    expect(line).toMatchObject({ trace_id: request.traceId, route: "/api/v1/auth/anonymous", status: 200, projectId: project.projectId });
  });

  it("a request with a W3C traceparent header continues the caller's trace: its span is the caller's span's child", async () => {
    const project = await makeProject();
    const traceId = randomBytes(16).toString("hex");
    const parentSpanId = randomBytes(8).toString("hex");
    const requestId = `trace-${randomBytes(4).toString("hex")}`;
    const res = await fetch(`${app().baseUrl}/api/v1/auth/anonymous`, {
      method: "POST",
      headers: {
        "X-API-Key": project.clientKey,
        "X-Request-Id": requestId,
        "Content-Type": "application/json",
        traceparent: `00-${traceId}-${parentSpanId}-01`,
      },
      body: "{}",
    });
    expect(res.status).toBe(200);
    const request = await until("the request's span", () => received.find((s) => attribute(s, "gb.request_id") === requestId));
    expect({ traceId: request.traceId, parentSpanId: request.parentSpanId }).toEqual({ traceId, parentSpanId });
  });
});
