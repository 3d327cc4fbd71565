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
  "server/services/profiles/schemas.ts",
  "server/services/email/schemas.ts",
  "server/services/leaderboards/board-schemas.ts",
  "server/services/economy/schemas.ts",
  "server/services/config/document-text.ts",
  "server/services/config/webhook-schemas.ts",
  "server/services/webhooks/schemas.ts",
  "server/services/operator-token-schemas.ts",
  "server/ratelimit/plans.ts",
];
const root = path.resolve(import.meta.dirname, "../..");

/** Every module a source names: `import … from`, `export … from`, side-effect `import "…"` and `import("…")`. */
function specifiersIn(source: string): string[] {
  const statements = [...source.matchAll(/^\s*(?:import|export)\s(?:[^;]*?from\s*)?["']([^"']+)["']/gm)];
  const dynamic = [...source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)];
  return [...statements, ...dynamic].map((m) => m[1] ?? "");
}

const importsOf = (file: string): string[] => specifiersIn(readFileSync(path.join(root, file), "utf8"));

describe("the import scan", () => {
  it("sees side-effect, re-export, type-only and dynamic imports as well as plain ones", () => {
    const source = [
      'import "server-only";',
      'import { z } from "zod";',
      'import type { X } from "../x";',
      'export { y } from "./y";',
      "const later = () => import('node:fs');",
    ].join("\n");
    expect(specifiersIn(source).sort()).toEqual(["../x", "./y", "node:fs", "server-only", "zod"]);
  });
});

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
