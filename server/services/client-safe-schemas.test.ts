import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The dashboard's forms import these schema modules into the browser bundle, so they (and every
 * module they import) may import nothing but zod: no Prisma, env, node: modules or `server-only`.
 */
const CLIENT_IMPORTED = [
  "server/services/projects/schemas.ts",
  "server/services/members/schemas.ts",
  "server/services/identity-providers/schemas.ts",
  "server/services/players/schemas.ts",
  "server/services/leaderboards/board-schemas.ts",
  "server/services/economy/schemas.ts",
  "server/services/config/document-text.ts",
  "server/auth/operator-token-schemas.ts",
];
const root = path.resolve(import.meta.dirname, "../..");

function importsOf(file: string): string[] {
  const source = readFileSync(path.join(root, file), "utf8");
  return [...source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1] ?? "");
}

describe("schemas the dashboard's forms use", () => {
  it.each(CLIENT_IMPORTED)("%s imports only zod (and other client-safe schema modules)", (file) => {
    const seen = new Set<string>();
    const visit = (current: string) => {
      if (seen.has(current)) return;
      seen.add(current);
      for (const specifier of importsOf(current)) {
        if (specifier === "zod") continue;
        expect(specifier.startsWith("."), `${current} imports ${specifier}`).toBe(true);
        visit(path.relative(root, path.resolve(root, path.dirname(current), `${specifier}.ts`)));
      }
    };
    visit(file);
  });
});
