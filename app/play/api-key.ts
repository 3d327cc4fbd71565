import "server-only";
import { readFile } from "node:fs/promises";
import { demoFilePath } from "@/server/demo-seed";
import { env } from "@/server/env";

const CLIENT_KEY = /^gb_client_/;

/**
 * The client API key the sample game ships to the browser: PLAY_API_KEY when set, else the demo
 * project's client key from the demo file the seed writes. Only a client key is ever handed out
 * (a server key acts as any player). Read per request, so a freshly seeded demo is picked up.
 */
export async function playApiKey(): Promise<{ key: string } | { problem: string }> {
  const configured = env().PLAY_API_KEY;
  if (configured) return { key: configured };
  const file = demoFilePath();
  try {
    const demo = JSON.parse(await readFile(file, "utf8")) as { apiKey?: unknown };
    if (typeof demo.apiKey === "string" && CLIENT_KEY.test(demo.apiKey)) return { key: demo.apiKey };
    return { problem: `The demo file ${file} has no client key.` };
  } catch {
    return { problem: `There is no demo file at ${file} (the demo is seeded on start unless SEED_DEMO=false).` };
  }
}
