import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { lexer, Marked, type Token, type Tokens, walkTokens } from "marked";

/**
 * The guides site: `docs/**\/*.md` rendered at `/docs/guides/<path under docs/ without .md>`
 * (`docs/README.md` → `/docs/guides`, `docs/quickstart.md` → `/docs/guides/quickstart`), except that the
 * files of docs/guides/ are the guides themselves: `docs/guides/economy.md` → `/docs/guides/economy`.
 * The URL mirrors the folder, so a relative link between two docs means the same on GitHub and
 * here. Files are found by listing docs/ into a catalogue; a request is looked up in it by its
 * slug and never joined into a path.
 */
export const GUIDES_URL = "/docs/guides";

/** The header of the API reference and of every guide page. Every slug must be in the catalogue (a unit test checks). */
export const NAV: { label: string; slug: string }[] = [
  { label: "Quickstart", slug: "quickstart" },
  { label: "SDK", slug: "sdk" },
  { label: "Auth", slug: "auth-and-sessions" },
  { label: "Player data", slug: "player-data" },
  { label: "Saves", slug: "saves" },
  { label: "Leaderboards", slug: "leaderboards" },
  { label: "Economy", slug: "economy" },
  { label: "Errors & limits", slug: "rate-limits-and-errors" },
  { label: "Operating", slug: "operating/configuration" },
];

export type Doc = { slug: string; file: string };

/** Where docs/ is: the app runs with the repository as its working directory (the launcher's `root`), as in tests. */
export function docsRoot(): string {
  return path.join(process.cwd(), "docs");
}

/** Where docs/guides/ files are served: straight under /docs/guides, not /docs/guides/guides. */
const GUIDES_DIR = "guides/";

/**
 * `guides/economy.md` → `economy`; `operating/scaling.md` → `operating/scaling`; a folder's
 * `README.md` → the folder (`README.md` → ``).
 */
export function slugOfFile(relFile: string): string {
  const posix = relFile.split(path.sep).join("/");
  const withoutExt = posix.replace(/\.md$/, "");
  if (withoutExt === "README") return "";
  const slug = withoutExt.endsWith("/README") ? withoutExt.slice(0, -"/README".length) : withoutExt;
  return slug.startsWith(GUIDES_DIR) ? slug.slice(GUIDES_DIR.length) : slug;
}

/** The address a guide had before its /guides/ was dropped (`guides/economy`): where it is now, or null. */
export function movedGuideSlug(slug: string, docs: Map<string, Doc>): string | null {
  if (!slug.startsWith(GUIDES_DIR)) return null;
  const now = slug.slice(GUIDES_DIR.length);
  const doc = docs.get(now);
  return doc && path.relative(docsRoot(), doc.file).split(path.sep)[0] === "guides" ? now : null;
}

export function urlOfSlug(slug: string): string {
  return slug ? `${GUIDES_URL}/${slug}` : GUIDES_URL;
}

/** Every Markdown file under docs/, keyed by slug. */
export function listDocs(root = docsRoot()): Map<string, Doc> {
  const docs = new Map<string, Doc>();
  let entries: string[];
  try {
    // Read at run time from the working directory, not bundled: keep the tracer out of it.
    entries = readdirSync(/* turbopackIgnore: true */ root, { recursive: true }) as string[];
  } catch {
    return docs;
  }
  for (const rel of entries.sort()) {
    if (!rel.endsWith(".md")) continue;
    const slug = slugOfFile(rel);
    // docs/x.md and docs/guides/x.md would share an address: that is a mistake in docs/, said at once.
    if (docs.has(slug)) throw new Error(`docs/${rel} and docs/${docs.get(slug)?.file} both render at ${urlOfSlug(slug)}`);
    docs.set(slug, { slug, file: path.join(/* turbopackIgnore: true */ root, rel) });
  }
  return docs;
}

/** Text of inline tokens as GitHub shows it (code spans keep their text, HTML tags vanish, links keep their text). */
function plainText(tokens: Token[] | undefined): string {
  let out = "";
  for (const token of tokens ?? []) {
    if (token.type === "html") continue;
    const children = (token as { tokens?: Token[] }).tokens;
    out += children ? plainText(children) : ((token as { text?: string }).text ?? "");
  }
  return out;
}

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation other than `-` and `_` dropped, spaces → `-`. */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Repeated headings get `-1`, `-2`, … as on GitHub. One per document. */
export function createSlugger(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = githubSlug(text);
    let slug = base;
    while (seen.has(slug)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      slug = `${base}-${n}`;
    }
    seen.set(slug, 0);
    return slug;
  };
}

/** The anchors GitHub gives the headings of a Markdown document. */
export function headingAnchors(markdown: string): Set<string> {
  const slug = createSlugger();
  const anchors = new Set<string>();
  walkTokens(lexer(markdown), (token) => {
    if (token.type === "heading") anchors.add(slug(plainText((token as Tokens.Heading).tokens)));
  });
  return anchors;
}

/** Every link and image target of a Markdown document (code blocks and code spans are not links). */
export function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  walkTokens(lexer(markdown), (token) => {
    if (token.type === "link" || token.type === "image") targets.push((token as Tokens.Link).href);
  });
  return targets;
}

export function isExternal(href: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(href);
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * Where a link in the doc `fromSlug` points on the site: a relative link to another doc becomes
 * its rendered URL (with its anchor); external links and anchors stay; a link to a file outside
 * docs/ (source code, the repository's README) has no page here: null.
 */
export function rewriteHref(href: string, fromFile: string, docs: Map<string, Doc>, root = docsRoot()): string | null {
  if (isExternal(href) || href.startsWith("#")) return href;
  if (href.startsWith("/")) return href;
  const hash = href.indexOf("#");
  const target = hash === -1 ? href : href.slice(0, hash);
  const anchor = hash === -1 ? "" : href.slice(hash);
  let decoded: string;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return null;
  }
  const resolved = path.relative(root, path.resolve(path.dirname(fromFile), decoded));
  if (resolved.startsWith("..") || path.isAbsolute(resolved) || !resolved.endsWith(".md")) return null;
  const doc = docs.get(slugOfFile(resolved));
  return doc ? urlOfSlug(doc.slug) + anchor : null;
}

export function navHtml(current: string | null): string {
  const links = NAV.map(({ label, slug }) => {
    const here = slug === current ? ' aria-current="page"' : "";
    return `<a href="${urlOfSlug(slug)}"${here}>${escapeHtml(label)}</a>`;
  }).join("");
  const api = current === null ? ' aria-current="page"' : "";
  return `<nav class="gb-docs-nav" aria-label="Documentation"><a class="gb-docs-home" href="${GUIDES_URL}">Game backend docs</a><a href="/docs"${api}>API reference</a>${links}</nav>`;
}

export const NAV_CSS = `
.gb-docs-nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid #d0d7de;background:#f6f8fa;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif}
.gb-docs-nav a{color:#0b57d0;text-decoration:none}
.gb-docs-nav a:hover{text-decoration:underline}
.gb-docs-nav a[aria-current]{color:#1f2328;font-weight:600}
.gb-docs-nav .gb-docs-home{color:#1f2328;font-weight:700;margin-right:.5rem}
`;

const PAGE_CSS = `${NAV_CSS}
body{margin:0;color:#1f2328;background:#fff;font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem 4rem}
h1,h2,h3,h4{line-height:1.25;margin:1.6em 0 .6em}
h1{font-size:2rem;margin-top:.5em}
h2{font-size:1.5rem;border-bottom:1px solid #d0d7de;padding-bottom:.3em}
a{color:#0b57d0}
h1 a.anchor,h2 a.anchor,h3 a.anchor,h4 a.anchor,h5 a.anchor,h6 a.anchor{color:inherit;text-decoration:none}
code{font:.875em/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f6f8fa;padding:.15em .3em;border-radius:4px}
pre{background:#f6f8fa;padding:1rem;border-radius:6px;overflow-x:auto}
pre code{padding:0;background:none}
.table{overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.35rem .6rem;vertical-align:top}
th{background:#f6f8fa}
blockquote{margin:1rem 0;padding:0 1rem;color:#59636e;border-left:4px solid #d0d7de}
.gb-docs-source{color:#59636e;font-size:.875rem;margin-top:3rem;border-top:1px solid #d0d7de;padding-top:1rem}
@media (prefers-color-scheme:dark){
body{color:#e6edf3;background:#0d1117}
.gb-docs-nav{background:#161b22;border-color:#30363d}
.gb-docs-nav a,a{color:#4493f8}
.gb-docs-nav a[aria-current],.gb-docs-nav .gb-docs-home{color:#e6edf3}
code,pre,th{background:#161b22}
th,td,h2,.gb-docs-source{border-color:#30363d}
blockquote,.gb-docs-source{color:#9198a1;border-color:#30363d}
}
`;

function page(title: string, current: string | null, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${escapeHtml(title)} · Game backend docs</title>
<style>${PAGE_CSS}</style>
</head>
<body>
${navHtml(current)}
<main>
${body}
</main>
</body>
</html>`;
}

/** One doc as a whole HTML page: headings with GitHub's anchors, links to other docs rewritten, raw HTML shown as text. */
export function renderDoc(doc: Doc, docs: Map<string, Doc>, root = docsRoot()): string {
  const source = readFileSync(/* turbopackIgnore: true */ doc.file, "utf8");
  const slug = createSlugger();
  let title: string | null = null;
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }) {
        const text = plainText(tokens);
        if (depth === 1) title ??= text;
        const id = slug(text);
        return `<h${depth} id="${escapeHtml(id)}"><a class="anchor" href="#${escapeHtml(id)}">${this.parser.parseInline(tokens)}</a></h${depth}>\n`;
      },
      link({ href, title: linkTitle, tokens }) {
        const inner = this.parser.parseInline(tokens);
        const target = rewriteHref(href, doc.file, docs, root);
        if (target === null) return `<span title="${escapeHtml(`In the repository: ${href}`)}">${inner}</span>`;
        const titleAttr = linkTitle ? ` title="${escapeHtml(linkTitle)}"` : "";
        return `<a href="${escapeHtml(target)}"${titleAttr}>${inner}</a>`;
      },
      image({ href, text }) {
        // Only external images load (the page serves no repository files); a chart in the repository is named instead.
        if (isExternal(href)) return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}" />`;
        return `<span title="${escapeHtml(`In the repository: ${href}`)}">[${escapeHtml(text)}: <code>${escapeHtml(href.replace(/^(\.\.\/)+/, ""))}</code>]</span>`;
      },
      html({ text }) {
        return escapeHtml(text);
      },
    },
  });
  const html = (marked.parse(source, { async: false }) as string)
    .replace(/<table>/g, '<div class="table"><table>')
    .replace(/<\/table>/g, "</table></div>");
  const file = path.relative(path.dirname(root), doc.file).split(path.sep).join("/");
  return page(
    title ?? (doc.slug || "Documentation"),
    doc.slug,
    `${html}\n<p class="gb-docs-source">Source: <code>${escapeHtml(file)}</code> · <a href="/docs">API reference</a> · <a href="${GUIDES_URL}">All docs</a></p>`,
  );
}

export function notFoundPage(docs: Map<string, Doc>): string {
  const list = [...docs.values()].map((d) => `<li><a href="${urlOfSlug(d.slug)}">${escapeHtml(d.slug || "index")}</a></li>`).join("");
  return page(
    "Not found",
    "",
    `<h1>No such page</h1><p>There is no document at this address. The guides are the Markdown files under <code>docs/</code>, served at <code>${GUIDES_URL}/&lt;path without .md&gt;</code>:</p><ul>${list}</ul>`,
  );
}
