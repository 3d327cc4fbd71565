import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The example Prometheus files in docs/operating/prometheus/ are what an operator copies: promtool
 * (Debian's prometheus package; .ci/run installs it) must accept the scrape config and the alert
 * rules, and the rules' unit tests must pass.
 */
const DOCS = path.join(import.meta.dirname, "../../docs/operating/prometheus");
const work = mkdtempSync(path.join(tmpdir(), "gb-promtool-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function promtool(...args: string[]): string {
  const run = spawnSync("promtool", args, { cwd: work, encoding: "utf8" });
  if (run.error) throw new Error(`promtool is needed (apt-get install prometheus): ${run.error.message}`);
  return `${run.status} ${run.stdout}${run.stderr}`;
}

describe("docs/operating/prometheus", () => {
  for (const file of ["prometheus.yml", "alerts.yml", "alerts.test.yml"]) copyFileSync(path.join(DOCS, file), path.join(work, file));

  it("promtool check rules accepts the alert rules", () => {
    expect(promtool("check", "rules", "alerts.yml")).toMatch(/^0 .*SUCCESS: 5 rules found/s);
  });

  it("promtool test rules: each alert fires on the series it is written for", () => {
    expect(promtool("test", "rules", "alerts.test.yml")).toMatch(/^0 .*SUCCESS/s);
  });

  it("promtool check config accepts the scrape config (its token file replaced by a temporary one)", () => {
    writeFileSync(path.join(work, "token"), "x");
    const config = readFileSync(path.join(work, "prometheus.yml"), "utf8").replace(
      "/etc/prometheus/game-backend-metrics-token",
      path.join(work, "token"),
    );
    writeFileSync(path.join(work, "prometheus.yml"), config);
    expect(promtool("check", "config", "prometheus.yml")).toMatch(/^0 .*is valid prometheus config file syntax/s);
  });
});
