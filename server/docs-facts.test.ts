import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ZAdminEnv, ZEnv } from "./env-schema.mjs";

/**
 * The facts in README.md and docs/ that can be checked against the tree: the files they name,
 * the npm scripts they tell you to run, and the environment variables of server/env-schema.mjs (each
 * one in the configuration guide). Prose that drifts from the code fails here, not in a reader's
 * terminal.
 */
const ROOT = path.resolve(import.meta.dirname, "..");

function markdownFiles(): string[] {
  const docs = (readdirSync(path.join(ROOT, "docs"), { recursive: true }) as string[])
    .filter((f) => f.endsWith(".md"))
    .map((f) => path.join("docs", f));
  return ["README.md", ...docs.sort()];
}

const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** Every `inline code` span of a Markdown text. */
const codeSpans = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? "");

/** Folders whose paths, written as code, are paths of this repository. */
const REPO_FOLDERS = ["app/", "server/", "components/", "e2e/", "sdk/", "sdk-csharp/", "prisma/", "docs/", ".ci/"];
/** Written by a command, not committed (the docs say which command). */
const MADE_BY_COMMANDS = ["sdk/dist", "sdk/src/generated", "sdk-csharp/bin~/", "e2e/load/results/"];

/** The repository paths a text names as code: `server/db.ts`, `e2e/api/`; placeholders (`<domain>`, `…`, `*`) are left out. */
function pathsNamed(text: string): string[] {
  return codeSpans(text)
    .flatMap((span) => span.split(/[\s,()]+/))
    .map((token) => token.replace(/[.:;]+$/, "").split("#")[0] ?? "")
    .filter((token) => REPO_FOLDERS.some((folder) => token.startsWith(folder)))
    .filter((token) => !/[<>*…{}$]/.test(token))
    .filter((token) => !MADE_BY_COMMANDS.some((made) => token.startsWith(made)));
}

describe("facts in README.md and docs/", () => {
  it.each(markdownFiles())("every repository path %s names as code exists", (file) => {
    const missing = pathsNamed(read(file)).filter((p) => !existsSync(path.join(ROOT, p)));
    expect(missing).toEqual([]);
  });

  it("every `npm run <script>` in them is a script of package.json", () => {
    const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);
    const named = markdownFiles().flatMap((file) =>
      [...read(file).matchAll(/npm run (?:-s )?([\w:-]+)/g)].map((m) => ({ file, script: m[1] ?? "" })),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => !scripts.includes(n.script))).toEqual([]);
  });

  it("every variable of the environment schema (server/env-schema.mjs) is in the configuration guide (docs/operating/configuration.md)", () => {
    const variables = Object.keys(ZEnv.shape);
    expect(variables.length).toBeGreaterThan(40);
    const guide = read("docs/operating/configuration.md");
    // Set by the launcher for each of its workers (docs/operating/workers.md), and by Next itself.
    const internal = ["GAME_BACKEND_WORKER_INDEX", "NODE_ENV"];
    expect(variables.filter((v) => !internal.includes(v) && !guide.includes(`\`${v}\``))).toEqual([]);
  });

  it("every variable of the operator CLI's schema (ZAdminEnv) is in the config-as-code guide", () => {
    const guide = read("docs/operating/config-as-code.md");
    expect(Object.keys(ZAdminEnv.shape).filter((v) => !guide.includes(`\`${v}\``))).toEqual([]);
  });
});
