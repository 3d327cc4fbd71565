import type { Metadata, Viewport } from "next";
import { PlayApp } from "@/components/play/play-app";
import { playApiKey } from "./api-key";

export const metadata: Metadata = {
  title: "Coin Cascade · sample game",
  description: "A sample game built on the game backend's client SDK.",
};
export const viewport: Viewport = { themeColor: "#0b1026", width: "device-width", initialScale: 1 };
// The key is read when a request comes, never baked into the build.
export const dynamic = "force-dynamic";

const DEFAULT_ROUND_SECONDS = 60;

/**
 * `/play`: the sample game, written against @game-backend/client only, as a studio would.
 * QA hook: `?round=<seconds>` (1–600) shortens or lengthens a round (the browser spec plays 3 s rounds).
 */
export default async function PlayPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const [apiKey, { round }] = await Promise.all([playApiKey(), searchParams]);
  const asked = Number(Array.isArray(round) ? round[0] : round);
  const roundSeconds = Number.isFinite(asked) && asked >= 1 && asked <= 600 ? asked : DEFAULT_ROUND_SECONDS;
  if ("problem" in apiKey) {
    return (
      <main className="mx-auto max-w-xl px-4 py-16">
        <h1 className="text-2xl font-bold">The sample game needs a client API key</h1>
        <p role="alert" className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-amber-900">
          {apiKey.problem}
        </p>
        <p className="mt-4 leading-relaxed">
          Create a <strong>client</strong> key for your project on the dashboard (API keys page) and start the server with{" "}
          <code className="rounded bg-zinc-200 px-1">PLAY_API_KEY=gb_client_…</code>, or start it with the demo seed (the default,{" "}
          <code className="rounded bg-zinc-200 px-1">SEED_DEMO=true</code>), which writes the demo project's client key to{" "}
          <code className="rounded bg-zinc-200 px-1">DATA_DIR/demo.json</code>. The game expects a <code>high-scores</code> board, a{" "}
          <code>coins</code> currency and the <code>buy-potion</code> purchase, as in the demo project.
        </p>
      </main>
    );
  }
  return <PlayApp apiKey={apiKey.key} roundSeconds={roundSeconds} />;
}
