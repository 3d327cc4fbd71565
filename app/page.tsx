export const dynamic = "force-dynamic"; // the CSP nonce (proxy.ts) is per request

export default function Home() {
  return (
    <main style={{ maxWidth: 720, margin: "4rem auto", padding: "0 1rem", lineHeight: 1.5 }}>
      <h1>Game backend</h1>
      <p>
        The game API lives under <code>/api/v1</code>. Read the <a href="/docs">API reference</a> or fetch{" "}
        <a href="/api/v1/openapi.json">the OpenAPI document</a>. Health: <a href="/api/health">/api/health</a>. Studio operators sign in to
        the <a href="/projects">dashboard</a>.
      </p>
      <p>
        Start here: the <a href="/docs/guides">guides</a> (quickstart, auth, player data, saves, leaderboards, economy) and{" "}
        <a href="/play">the sample game</a>, which plays against this backend with the demo project.
      </p>
    </main>
  );
}
