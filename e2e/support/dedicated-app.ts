import { afterAll, beforeAll, inject } from "vitest";
import { type StartedApp, startApp } from "./global-setup";

/**
 * A second app instance for the enclosing describe block, on the suite's database, with its own
 * environment (a setting under test); started before its tests, stopped after. Returns a getter.
 * `env` may be a function, called when the app starts (after the beforeAll hooks registered before).
 */
export function dedicatedApp(env: Record<string, string | undefined> | (() => Record<string, string | undefined>)): () => StartedApp {
  let app: StartedApp | undefined;
  beforeAll(async () => {
    app = await startApp({
      DATABASE_URL: inject("databaseUrl"),
      JWT_SECRET: inject("jwtSecret"),
      DATA_DIR: inject("dataDir"),
      SEED_DEMO: "false",
      // A function: settings known only once an earlier beforeAll ran (a fake store's port).
      ...(typeof env === "function" ? env() : env),
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
