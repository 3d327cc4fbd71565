import { describe, expect, it } from "vitest";
import { playerCounts, projectUsage } from "@/server/usage";
import { api } from "../support/api";
import { anonymousPlayer, makeProject } from "../support/fixtures";

/** The dashboard's usage numbers come from counters the request path keeps (flushed every 5 s). */
describe("usage counters", () => {
  it("count answered and rate-limited requests per project and minute, shared through Postgres", async () => {
    const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 4 });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await api("GET", "/api/v1/leaderboards/none", { key: project.clientKey })).status);
    }
    expect(statuses.filter((s) => s === 404)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    let last = { requests: 0, limited: 0 };
    for (let i = 0; i < 40 && last.requests + last.limited < 7; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const usage = await projectUsage({ projectId: project.projectId });
      last = usage.lastHour.reduce((sum, p) => ({ requests: sum.requests + p.requests, limited: sum.limited + p.limited }), {
        requests: 0,
        limited: 0,
      });
    }
    expect(last).toEqual({ requests: 4, limited: 3 });
    const usage = await projectUsage({ projectId: project.projectId });
    expect(usage.lastHour).toHaveLength(60);
    expect(usage.lastDay).toHaveLength(96);
  }, 30_000);

  it("players total, new today and active today", async () => {
    const project = await makeProject();
    await anonymousPlayer(project.clientKey);
    await anonymousPlayer(project.clientKey);
    expect(await playerCounts({ projectId: project.projectId })).toEqual({ total: 2, newToday: 2, activeToday: 2 });
  });
});
