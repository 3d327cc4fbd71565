import { NAV_CSS, navHtml } from "./markdown";

/** API reference: Swagger UI from the npm package, served by us (no CDN), under the header that links the guides. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Game backend API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  <style>body{margin:0}${NAV_CSS}</style>
</head>
<body>
  ${navHtml(null)}
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>`;

export function GET(): Response {
  return new Response(PAGE, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}
