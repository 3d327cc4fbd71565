import { afterAll, beforeAll, inject } from "vitest";
import { type StartedApp, startApp } from "./global-setup";

/**
 * A second app instance for the enclosing describe block, on the suite's database, with its own
 * environment (a setting under test); started before its tests, stopped after. Returns a getter.
 */
export function dedicatedApp(env: Record<string, string | undefined>): () => StartedApp {
  let app: StartedApp | undefined;
  beforeAll(async () => {
    app = await startApp({
      DATABASE_URL: inject("databaseUrl"),
      JWT_SECRET: inject("jwtSecret"),
      DATA_DIR: inject("dataDir"),
      SEED_DEMO: "false",
      ...env,
    });
  });
  afterAll(async () => {
    await app?.stop();
  });
  return () => {
    if (!app) throw new Error("the dedicated app is not started yet");
    return app;
  };
}
