import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GET as guide } from "../app/docs/guides/[[...slug]]/route";
import {
  createSlugger,
  githubSlug,
  headingAnchors,
  isExternal,
  linkTargets,
  listDocs,
  NAV,
  renderDoc,
  rewriteHref,
} from "../app/docs/markdown";
import { GET as apiReference } from "../app/docs/route";

const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = path.join(ROOT, "docs");

/** README.md and every Markdown file under docs/, relative to the repository. */
function markdownFiles(): string[] {
  const docs = (readdirSync(DOCS, { recursive: true }) as string[]).filter((f) => f.endsWith(".md")).map((f) => path.join("docs", f));
  return ["README.md", ...docs.sort()];
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = headingAnchors(readFileSync(file, "utf8"));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** Why a link of `from` (relative to the repository) points nowhere, or null when it resolves. */
function brokenLink(from: string, href: string): string | null {
  if (isExternal(href)) return null;
  if (href.startsWith("/")) return "absolute path: GitHub resolves it against the repository, not the running app; write the URL as code";
  const hash = href.indexOf("#");
  const target = decodeURIComponent(hash === -1 ? href : href.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(href.slice(hash + 1));
  const file = target === "" ? path.join(ROOT, from) : path.resolve(path.dirname(path.join(ROOT, from)), target);
  if (path.relative(ROOT, file).startsWith("..")) return "points outside the repository";
  if (!existsSync(file)) return `no such file: ${path.relative(ROOT, file)}`;
  if (anchor === null) return null;
  if (statSync(file).isDirectory() || !file.endsWith(".md")) return `anchor on a file that has no headings: ${path.relative(ROOT, file)}`;
  return anchorsOf(file).has(anchor) ? null : `no heading #${anchor} in ${path.relative(ROOT, file)}`;
}

describe("links in README.md and docs/", () => {
  it("finds the docs", () => {
    expect(markdownFiles()).toEqual(expect.arrayContaining(["README.md", "docs/README.md", "docs/quickstart.md", "docs/sdk.md"]));
  });

  it.each(markdownFiles())("every relative link and #anchor in %s resolves", (file) => {
    const broken = linkTargets(readFileSync(path.join(ROOT, file), "utf8"))
      .map((href) => ({ href, problem: brokenLink(file, href) }))
      .filter((l) => l.problem !== null);
    expect(broken).toEqual([]);
  });

  it("the index (docs/README.md) links every doc", () => {
    const linked = new Set(
      linkTargets(readFileSync(path.join(DOCS, "README.md"), "utf8"))
        .filter((href) => !isExternal(href))
        .map((href) => path.relative(ROOT, path.resolve(DOCS, href.split("#")[0] ?? ""))),
    );
    const missing = markdownFiles().filter((f) => f.startsWith("docs/") && f !== "docs/README.md" && !linked.has(f));
    expect(missing).toEqual([]);
  });

  it("the README stays a front door: about 200 lines at most, with the commands to run and test", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(210);
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
  });
});

describe("GitHub's heading anchors", () => {
  it("lower-cases, drops punctuation but - and _, and turns spaces into hyphens", () => {
    expect(githubSlug("Leaderboards at 1,000 and 1,000,000 entries")).toBe("leaderboards-at-1000-and-1000000-entries");
    expect(githubSlug("Two devices: keep cloud or keep local")).toBe("two-devices-keep-cloud-or-keep-local");
    expect(githubSlug("snake_case & kebab-case")).toBe("snake_case--kebab-case");
    expect(githubSlug("Élan — ünïcode")).toBe("élan--ünïcode");
  });

  it("takes the text GitHub shows: code spans keep their text, links their label, emphasis and HTML vanish", () => {
    const anchors = headingAnchors("# `npm run admin`\n\n## [The *SDK*](sdk.md) <b>now</b>\n\n```\n# not a heading\n```\n");
    expect([...anchors]).toEqual(["npm-run-admin", "the-sdk-now"]);
  });

  it("numbers repeated headings -1, -2 like GitHub", () => {
    const slug = createSlugger();
    expect([slug("Status codes"), slug("Status codes"), slug("Status codes-1"), slug("Status codes")]).toEqual([
      "status-codes",
      "status-codes-1",
      "status-codes-1-1",
      "status-codes-2",
    ]);
  });
});

describe("the guides site (/docs/guides)", () => {
  const call = (slug: string[] | undefined) => guide(new Request("http://localhost/docs/guides"), { params: Promise.resolve({ slug }) });

  it("the header links every guide it names, and each exists", () => {
    const docs = listDocs(DOCS);
    expect(NAV.filter((n) => !docs.has(n.slug))).toEqual([]);
  });

  it("the API reference page (/docs) carries the header with the guides", async () => {
    const html = await apiReference().text();
    expect(html).toContain('href="/docs/guides"');
    for (const { slug } of NAV) expect(html).toContain(`href="/docs/guides/${slug}"`);
    expect(html).toContain('id="swagger-ui"');
  });

  it("renders the index at /docs/guides and a guide at its path under docs/ without .md", async () => {
    const index = await call(undefined);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const indexHtml = await index.text();
    expect(indexHtml).toContain("<title>Documentation · Game backend docs</title>");
    expect(indexHtml).toContain('href="/docs/guides/economy"');

    const economy = await call(["economy"]);
    expect(economy.status).toBe(200);
    const html = await economy.text();
    expect(html).toMatch(/<h1 id="economy">/);
    expect(html).toContain('href="/docs"');
    // Relative .md links point at the rendered pages, anchors kept.
    expect(html).toContain('href="/docs/guides/rate-limits-and-errors#idempotency-keys"');
    expect(html).toContain('href="/docs/guides/quickstart"');
    expect(html).not.toMatch(/href="[^"]*\.md[#"]/);
  });

  it("a guide's former address (/docs/guides/guides/economy) redirects to /docs/guides/economy", async () => {
    const moved = await call(["guides", "economy"]);
    expect(moved.status).toBe(308);
    expect(moved.headers.get("location")).toBe("/docs/guides/economy");
    expect((await call(["guides", "nope"])).status).toBe(404);
  });

  it("answers an HTML 404 for anything not in the list of docs, including path tricks", async () => {
    for (const slug of [
      ["nope"],
      ["guides", "nope"],
      ["quickstart.md"],
      ["..", "README"],
      ["..", "package.json"],
      ["../README"],
      ["..%2FREADME"],
      ["guides", "..", "..", "README"],
      ["%2e%2e", "README"],
      ["constructor"],
      ["__proto__"],
      ["guides", "economy", ""],
    ]) {
      const res = await call(slug);
      expect(res.status, slug.join("/")).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await res.text()).toContain("No such page");
    }
  });

  describe("rendering", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "docs-render-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("escapes raw HTML, keeps external links, and leaves links to files outside docs/ without an href", () => {
      writeFileSync(
        path.join(dir, "page.md"),
        [
          "# A page",
          "",
          '<script>alert("x")</script>',
          "",
          "[out](../server/env.ts) [ext](https://example.com/) [here](#a-page) [self](page.md#a-page) [missing](nope.md)",
          "",
          "![a chart](../../e2e/load/results/chart.svg)",
        ].join("\n"),
      );
      const docs = listDocs(dir);
      const html = renderDoc({ slug: "page", file: path.join(dir, "page.md") }, docs, dir);
      expect(html).not.toContain("<script>");
      expect(html).toContain("&lt;script&gt;");
      expect(html).toContain('<a href="https://example.com/">ext</a>');
      expect(html).toContain('<a href="#a-page">here</a>');
      expect(html).toContain('<a href="/docs/guides/page#a-page">self</a>');
      expect(html).toMatch(/<span title="In the repository: \.\.\/server\/env\.ts">out<\/span>/);
      expect(html).toMatch(/<span title="In the repository: nope\.md">missing<\/span>/);
      expect(html).not.toContain("<img");
      expect(html).toContain("[a chart: <code>e2e/load/results/chart.svg</code>]");
    });

    it("rewrites only links that resolve to a served doc", () => {
      const docs = listDocs(DOCS);
      const from = path.join(DOCS, "guides", "saves.md");
      expect(rewriteHref("../sdk.md#errors", from, docs, DOCS)).toBe("/docs/guides/sdk#errors");
      expect(rewriteHref("../README.md", from, docs, DOCS)).toBe("/docs/guides");
      expect(rewriteHref("../../README.md", from, docs, DOCS)).toBeNull();
      expect(rewriteHref("../../package.json", from, docs, DOCS)).toBeNull();
    });
  });
});
