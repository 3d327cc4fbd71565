import { randomBytes } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { pool } from "@/server/db";
import { api } from "../support/api";
import { makeProject, type TestProject } from "../support/fixtures";
import { until } from "../support/launch.mjs";

/**
 * The job queue on the suite's app (QUEUE_POLL_SECONDS 2, the default; no SMTP_URL, so a
 * delivered message is kept as OUTBOX). pg-boss waits the polling interval after every fetch,
 * a job found or not; the app fetches again at once after a job, so a burst drains back to back.
 */
const BURST = 12;
const POLL_SECONDS = 2;
let project: TestProject;

beforeAll(async () => {
  project = await makeProject({ plan: "PRO" });
});

it(`a burst of ${BURST} sign-ups' verification e-mails is delivered back to back, sooner than one per polling interval`, async () => {
  const addresses = Array.from({ length: BURST }, (_, i) => `burst-${i}-${randomBytes(4).toString("hex")}@example.com`);
  const answers = await Promise.all(
    addresses.map((email, i) =>
      api("POST", "/api/v1/auth/email/register", {
        key: project.clientKey,
        // An address each: registrations are limited per address.
        ip: `10.77.${i}.${randomBytes(1)[0]}`,
        body: { email, password: "a long burst passphrase" },
      }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(addresses.map(() => 200));
  const queued = Date.now();
  await until(
    `all ${BURST} verification messages in the outbox`,
    async () => {
      const { rows } = await pool().query<{ n: number }>(
        "SELECT count(*)::int AS n FROM email_messages WHERE project_id = $1 AND template = 'email_verification' AND status = 'OUTBOX'",
        [project.projectId],
      );
      return rows[0]?.n === BURST;
    },
    120_000,
  );
  // One job per interval would take at least (BURST - 1) intervals: 22 s.
  expect(Date.now() - queued).toBeLessThan((BURST - 1) * POLL_SECONDS * 1000 * 0.75);
}, 150_000);
