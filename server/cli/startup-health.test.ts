import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntilHealthy } from "./startup-health.mjs";

/** A health endpoint answering `statuses` in turn (the last one from then on), or never with `null`. */
async function healthServer(statuses: (number | null)[]): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((_req, res) => {
    const status = statuses[Math.min(requests, statuses.length - 1)] ?? null;
    requests++;
    if (status === null) return; // never answers
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ status: status === 200 ? "ok" : "starting" }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/health`, requests: () => requests };
}
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.close();
    server.closeAllConnections();
  }
});

describe("the launcher's first health check", () => {
  it("tries again while the app answers 503, saying each time what it waits for, and succeeds on the first 200", async () => {
    const health = await healthServer([503, 503, 503, 200]);
    const lines: string[] = [];
    const outcome = await waitUntilHealthy(health.url, { deadlineMs: 120_000, intervalMs: 10, log: (line) => lines.push(line) });
    expect(outcome).toEqual({ ok: true, status: 200 });
    expect(health.requests()).toBe(4);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^waiting for the app to become healthy: GET \/api\/health answered 503 \{"status":"starting"\} \(attempt 1, /,
    );
  });

  it("gives up at the deadline when the app keeps answering 503, with the last answer", async () => {
    const health = await healthServer([503]);
    const started = Date.now();
    // A busy machine may answer the last attempt late; it still counts (at least minAttemptMs, 2 s by default).
    const outcome = await waitUntilHealthy(health.url, { deadlineMs: 300, intervalMs: 20, log: () => {} });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(outcome).toMatchObject({ ok: false, status: 503, reason: 'answered 503 {"status":"starting"}' });
    expect(health.requests()).toBeGreaterThan(1);
  });

  it("does not try again after an answer other than 503 (a broken start, not a slow one)", async () => {
    const health = await healthServer([500, 200]);
    const outcome = await waitUntilHealthy(health.url, { deadlineMs: 120_000, intervalMs: 10, log: () => {} });
    expect(outcome).toMatchObject({ ok: false, status: 500 });
    expect(health.requests()).toBe(1);
  });

  it("abandons an attempt still unanswered at the deadline", async () => {
    const health = await healthServer([null]);
    const outcome = await waitUntilHealthy(health.url, { deadlineMs: 300, intervalMs: 20, minAttemptMs: 100, log: () => {} });
    expect(outcome).toMatchObject({ ok: false, status: null, reason: expect.stringMatching(/^did not answer within \d+\.\d s$/) });
  });

  it("tries again while nothing listens yet", async () => {
    const health = await healthServer([200]);
    const port = new URL(health.url).port;
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    const lines: string[] = [];
    const outcome = await waitUntilHealthy(`http://127.0.0.1:${port}/api/health`, {
      deadlineMs: 300,
      intervalMs: 20,
      log: (line) => lines.push(line),
    });
    expect(outcome).toMatchObject({ ok: false, status: null });
    expect(lines[0]).toMatch(/GET \/api\/health got no answer \(.*ECONNREFUSED/);
  });
});
