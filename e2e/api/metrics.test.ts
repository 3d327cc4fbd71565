import { describe, expect, it } from "vitest";
import { baseUrl, metricSample } from "../support/api";
import { anonymousPlayer, makeProject } from "../support/fixtures";

/**
 * GET /api/metrics on the suite's app, which runs without METRICS_TOKEN and answers its loopback
 * callers: the Prometheus text format and the counters the request path keeps. Who is refused:
 * server/cli/cluster-metrics.test.ts; two workers, the token and Prometheus itself: e2e/api/cluster.test.ts.
 */
const scrape = async (base = baseUrl()) => fetch(`${base}/api/metrics`);

describe("/api/metrics without METRICS_TOKEN", () => {
  it("answers a loopback caller in the Prometheus text format", async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain("# TYPE gb_http_requests_total counter");
    expect(text).toContain("# TYPE nodejs_eventloop_lag_seconds gauge");
  });

  it("answers other methods with 405 in the error shape", async () => {
    const res = await fetch(`${baseUrl()}/api/metrics`, { method: "POST" });
    expect([res.status, res.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    expect(await res.json()).toMatchObject({ error: { code: "METHOD_NOT_ALLOWED" } });
  });

  it("counts a new anonymous player as a sign-in and a new player, by method", async () => {
    const project = await makeProject();
    const signIns = 'gb_events_total{event="sign_in",method="anonymous"}';
    const newPlayers = 'gb_events_total{event="new_player",method="anonymous"}';
    const before = await (await scrape()).text();
    await anonymousPlayer(project.clientKey);
    const after = await (await scrape()).text();
    // Other test files run beside this one against the same app: at least ours is counted.
    expect(metricSample(after, signIns) - metricSample(before, signIns)).toBeGreaterThanOrEqual(1);
    expect(metricSample(after, newPlayers) - metricSample(before, newPlayers)).toBeGreaterThanOrEqual(1);
  });
});
