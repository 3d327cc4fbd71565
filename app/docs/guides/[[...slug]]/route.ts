import { type Doc, listDocs, movedGuideSlug, notFoundPage, renderDoc, urlOfSlug } from "../../markdown";

/**
 * The guides: docs/**\/*.md rendered at /docs/guides/<path under docs/ without .md> (docs/guides/x.md
 * at /docs/guides/x; its former address /docs/guides/guides/x redirects there). The slug is
 * only ever a key into the list of files found under docs/, never part of a path. The files are
 * read at run time from the working directory (like the Swagger UI assets), so editing a doc
 * needs no build; a production process keeps what it rendered.
 */
const HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https:; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
};
const production = process.env.NODE_ENV === "production";
let catalogue: Map<string, Doc> | null = null;
const rendered = new Map<string, string>();

export async function GET(_req: Request, { params }: { params: Promise<{ slug?: string[] }> }): Promise<Response> {
  const { slug = [] } = await params;
  const docs = production && catalogue ? catalogue : listDocs();
  if (production) catalogue = docs;
  const doc = docs.get(slug.join("/"));
  const moved = doc ? null : movedGuideSlug(slug.join("/"), docs);
  if (moved !== null) return new Response(null, { status: 308, headers: { Location: urlOfSlug(moved) } });
  if (!doc) return new Response(notFoundPage(docs), { status: 404, headers: HEADERS });
  let html = production ? rendered.get(doc.slug) : undefined;
  if (!html) {
    html = renderDoc(doc, docs);
    if (production) rendered.set(doc.slug, html);
  }
  return new Response(html, { headers: HEADERS });
}
