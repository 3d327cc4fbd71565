// What the launcher answers itself, before Next sees a request: requests Next would answer
// with a 500, an HTML page or a redirect, and errors of Node's HTTP parser, which would
// otherwise close the socket with an empty body. Every answer is the API's JSON error shape
// with X-Request-Id. Plain JavaScript (the launcher runs before anything is compiled); the
// codes and statuses are the ones of server/errors.ts, which server/cli/edge.test.ts checks.
import { randomUUID, timingSafeEqual } from "node:crypto";
import { shared } from "../launcher-contract.mjs";

/**
 * @typedef {import("node:http").IncomingMessage} Request
 * @typedef {import("node:http").ServerResponse<Request>} Response
 * @typedef {import("node:stream").Duplex} Socket
 * @typedef {keyof typeof EDGE_ERRORS} EdgeCode
 * @typedef {{ status: number, code: string, message: string, allow?: string, issues?: { path: string, message: string }[] }} Answer
 * @typedef {{ socket?: { remoteAddress?: string | undefined }, rawHeaders?: string[], headers: import("node:http").IncomingHttpHeaders }} Caller
 *   What isLocalProbe and observerRefusal read of a request.
 * @typedef {Caller & Pick<Request, "method" | "url" | "httpVersionMajor" | "httpVersionMinor">} Guarded
 *   What guardRequest reads (and rewrites) of a request.
 */

/** Methods Next's route handlers serve; any other one under /api is a 405 from the route itself. */
const ROUTED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** Set by the launcher only (a client-sent one is dropped): tells the route that the real method was another. */
export const UNSUPPORTED_METHOD_HEADER = "x-gb-unsupported-method";
const ALLOW_ANY_ROUTE = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
/**
 * Set by the launcher only (a client-sent one is dropped) on GET /api/health when the caller may
 * see the full report (observerRefusal is null). Its value is a secret of this process, which the
 * route compares, so an app served without this launcher never shows the details.
 */
export const OBSERVER_HEADER = "x-gb-observer";
shared.__gameBackendObserverKey ??= randomUUID();
const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);
/** Headers a reverse proxy adds; a request carrying one was relayed, whatever the socket's address. */
const PROXY_HEADERS = new Set(["x-forwarded-for", "forwarded", "x-real-ip", "via", "x-forwarded-host", "x-forwarded-proto"]);

/**
 * A request from this host itself, not relayed: the socket's address is loopback and the
 * request carries none of the headers a proxy adds, as received (rawHeaders: the launcher
 * rewrites X-Forwarded-For in req.headers). A reverse proxy on the same host connects from
 * loopback too; its forwarding header tells it apart.
 * @param {Caller} req
 */
export function isLocalProbe(req) {
  if (!LOOPBACK.has(req.socket?.remoteAddress ?? "")) return false;
  const names = req.rawHeaders ? req.rawHeaders.filter((_, i) => i % 2 === 0) : Object.keys(req.headers ?? {});
  return !names.some((name) => PROXY_HEADERS.has(name.toLowerCase()));
}

/**
 * May the caller see the instance's internals (/api/metrics, /api/health's full report)?
 * METRICS_TOKEN set: its bearer token only. Unset: local probes only (isLocalProbe). Answers
 * null, or the refusal's code.
 * @param {Caller} req
 * @param {string | undefined} token
 * @returns {"MISSING_TOKEN" | "INVALID_TOKEN" | null}
 */
export function observerRefusal(req, token = metricsToken) {
  if (!token) return isLocalProbe(req) ? null : "MISSING_TOKEN";
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Bearer ")) return "MISSING_TOKEN";
  const presented = Buffer.from(header.slice("Bearer ".length));
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? null : "INVALID_TOKEN";
}
/** METRICS_TOKEN, set by the launcher (configureEdge) from its parsed environment. */
let metricsToken = /** @type {string | undefined} */ (undefined);
/** @param {{ METRICS_TOKEN?: string | undefined }} env */
export function configureEdge(env) {
  metricsToken = env.METRICS_TOKEN;
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const EDGE_ERRORS = {
  VALIDATION_ERROR: 400,
  MISSING_TOKEN: 401,
  INVALID_TOKEN: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  REQUEST_HEADER_FIELDS_TOO_LARGE: 431,
};

/** @param {import("node:http").IncomingHttpHeaders | undefined} headers */
function requestId(headers) {
  const incoming = headers?.["x-request-id"];
  return typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * @param {string} code
 * @param {string} message
 * @param {Record<string, unknown>} [details]
 */
function errorBody(code, message, details = {}) {
  return JSON.stringify({ error: { code, message, details } });
}

/**
 * @param {string} id
 * @param {Record<string, string | number>} [extra]
 */
function headersFor(id, extra = {}) {
  return {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Request-Id": id,
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "X-Request-Id, Allow",
    ...extra,
  };
}

/**
 * An answer in the API's error shape, written by the launcher itself (codes: EDGE_ERRORS).
 * @param {Response} res
 * @param {EdgeCode} code
 * @param {string} message
 * @param {Record<string, string>} [extra]
 */
export function replyError(res, code, message, extra) {
  reply(res, EDGE_ERRORS[code], code, message, {}, extra);
}

/**
 * @param {Response} res
 * @param {number} status
 * @param {EdgeCode} code
 * @param {string} message
 * @param {Record<string, unknown>} [details]
 * @param {Record<string, string>} [extra]
 */
function reply(res, status, code, message, details, extra) {
  const body = errorBody(code, message, details);
  res.writeHead(status, { ...headersFor(requestId(res.req?.headers), extra), "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

/** True when every %XX escape decodes and the result is UTF-8 (`%E0%A4%A`, `%ZZ`, `%C0%AE` are not). */
/** @param {string} path */
function decodesCleanly(path) {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** `/api` or `/api/…` in any case, without allocating (the launcher runs this on every request). */
/** @param {string} path */
function isApiPath(path) {
  if (path.length < 4 || path.charCodeAt(0) !== 47) return false;
  // `| 32` lower-cases ASCII letters; of all characters only "A" and "a" give 97 ("a"), and so on.
  if ((path.charCodeAt(1) | 32) !== 97 || (path.charCodeAt(2) | 32) !== 112 || (path.charCodeAt(3) | 32) !== 105) return false;
  return path.length === 4 || path.charCodeAt(4) === 47;
}

/**
 * The path Next routes: it redirects (308) paths with `//` or `\` to the collapsed one and
 * resolves dot segments (also `%2e`), so `/docs/../API` reaches `/API`. Only called on such paths.
 * @param {string} path
 */
function routedPath(path) {
  try {
    return new URL(path.replace(/[\\/]+/g, "/"), "http://h").pathname;
  } catch {
    return path;
  }
}

/**
 * Rewrites the request in place for Next, or answers it. Returns true when answered. Costs a
 * few string scans on ordinary requests.
 * @param {Guarded} req
 * @param {Response} res
 */
export function guardRequest(req, res) {
  if (req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1) {
    // HTTP/1.1 requires Host (RFC 9112, section 3.2).
    const issues = [{ path: "host", message: "An HTTP/1.1 request must carry a Host header." }];
    reply(res, 400, "VALIDATION_ERROR", "The Host header is missing.", { issues });
    return true;
  }
  let url = req.url ?? "/";
  if (url[0] !== "/") {
    // Absolute-form request line (`GET http://evil.example/x`): serve the path, never the
    // client's host, so nothing can redirect there.
    try {
      const parsed = new URL(url);
      url = `${parsed.pathname}${parsed.search}`;
      req.url = url;
    } catch {
      reply(res, 400, "VALIDATION_ERROR", "The request target is malformed.", { issues: [{ path: "url", message: "Not a path." }] });
      return true;
    }
  }
  if (Object.hasOwn(req.headers, UNSUPPORTED_METHOD_HEADER)) delete req.headers[UNSUPPORTED_METHOD_HEADER];
  if (Object.hasOwn(req.headers, OBSERVER_HEADER)) delete req.headers[OBSERVER_HEADER];
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  if (path === "/api/health" && observerRefusal(req) === null) req.headers[OBSERVER_HEADER] = shared.__gameBackendObserverKey;
  const escaped = path.includes("%");
  if (escaped && !decodesCleanly(path)) {
    const issues = [{ path: "path", message: "Malformed percent-encoding (each % must start a valid UTF-8 escape)." }];
    reply(res, 400, "VALIDATION_ERROR", "The request path is malformed.", { issues });
    return true;
  }
  // Next would answer these with a redirect (`//`, `\`) or route them elsewhere (dot segments).
  const redirected = path.includes("//") || path.includes("\\");
  const routed = redirected || path.includes("/.") || (escaped && /%2e/i.test(path)) ? routedPath(path) : path;
  const api = isApiPath(routed);
  if (api && redirected) {
    reply(res, 404, "NOT_FOUND", `No route for ${req.method} ${path}: "//" and "\\" are not collapsed under /api.`);
    return true;
  }
  if (api && routed !== path && isApiPath(path)) {
    // Dot segments inside an /api path are not resolved either: `DELETE /players/me/data/..`
    // must address no data key, not the account (`DELETE /players/me`).
    reply(res, 404, "NOT_FOUND", `No route for ${req.method} ${path}: dot segments ("." and "..") are not resolved under /api.`);
    return true;
  }
  if (api && path.length > 4 && path.charCodeAt(path.length - 1) === 47) {
    // Next serves `/api/v1/players/me/` as `/api/v1/players/me` (skipTrailingSlashRedirect), so
    // `DELETE /api/v1/players/me/` would delete the account. A path that ends in "/" names no
    // route under /api, whatever the method.
    reply(res, 404, "NOT_FOUND", `No route for ${req.method} ${path}: a path under /api does not end in "/".`);
    return true;
  }
  if (api && !routed.startsWith("/api/")) {
    // `/api` itself and other spellings (`/API/v1/...`): no route, and not Next's HTML 404.
    reply(res, 404, "NOT_FOUND", `No route for ${req.method} ${routed}.`);
    return true;
  }
  if (!ROUTED_METHODS.has(req.method ?? "")) {
    if (!api) {
      reply(
        res,
        405,
        "METHOD_NOT_ALLOWED",
        `${req.method} is not supported.`,
        { allow: ALLOW_ANY_ROUTE.split(", ") },
        { Allow: ALLOW_ANY_ROUTE },
      );
      return true;
    }
    // The route answers the 405 with its own Allow header (server/http/define-route.ts).
    req.headers[UNSUPPORTED_METHOD_HEADER] = req.method;
    req.method = "GET";
  }
  return false;
}

/**
 * What a parser error becomes; null when nothing should be written.
 * @param {{ code?: string, reason?: string }} error
 * @returns {Answer | null}
 */
export function clientErrorAnswer(error) {
  switch (error.code) {
    case "ECONNRESET":
    case "EPIPE":
      return null;
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "REQUEST_HEADER_FIELDS_TOO_LARGE", message: "The request headers are too large." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return { status: 408, code: "REQUEST_TIMEOUT", message: "The request was not received in time." };
    case "HPE_INVALID_METHOD":
      return { status: 405, code: "METHOD_NOT_ALLOWED", message: "This method is not supported.", allow: ALLOW_ANY_ROUTE };
    default:
      return {
        status: 400,
        code: "VALIDATION_ERROR",
        message: "The request is malformed HTTP.",
        issues: [{ path: "request", message: String(error.reason ?? error.code ?? "unparseable") }],
      };
  }
}

const REASONS = new Map([
  [400, "Bad Request"],
  [405, "Method Not Allowed"],
  [408, "Request Timeout"],
  [431, "Request Header Fields Too Large"],
]);

/**
 * Writes a whole JSON error answer on a socket no ServerResponse owns, then closes it.
 * @param {Socket} socket
 * @param {Answer} answer
 * @param {string} id
 */
function writeAnswer(socket, answer, id) {
  const details = answer.issues ? { issues: answer.issues } : answer.allow ? { allow: answer.allow.split(", ") } : {};
  const body = errorBody(answer.code, answer.message, details);
  const headers = headersFor(id, {
    Connection: "close",
    "Content-Length": Buffer.byteLength(body),
    ...(answer.allow ? { Allow: answer.allow } : {}),
  });
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${answer.status} ${REASONS.get(answer.status)}\r\n${head}\r\n${body}`);
}

/** Sockets whose parser error is answered once the answer in progress has left. */
const answerAfterPending = /** @type {WeakSet<Socket>} */ (new WeakSet());

/**
 * server.on("clientError"): answer in the JSON shape while the socket still takes a write, then close.
 * @param {Error & { code?: string, reason?: string }} error
 * @param {Socket} socket
 */
export function answerClientError(error, socket) {
  if (answerAfterPending.has(socket)) return;
  const answer = clientErrorAnswer(error);
  // Node's own (undocumented) link from a socket to the response being written on it.
  const pending = /** @type {Socket & { _httpMessage?: Response | null }} */ (socket)._httpMessage;
  if (answer && socket.writable && pending && !pending.headersSent && pending.req?.complete) {
    // Bytes after a complete request (pipelined, or a Content-Length shorter than the body)
    // did not parse while that request is still being served. Node's default (and this
    // function before) wrote the error at once and closed: the earlier request then ran
    // with its answer lost, so the client saw a 400 for a write that happened. Answers
    // leave in request order: this one after the pending one, then the connection closes.
    answerAfterPending.add(socket);
    pending.once("finish", () => (socket.writable ? writeAnswer(socket, answer, randomUUID()) : socket.destroy()));
    pending.once("close", () => {
      if (!pending.writableFinished) socket.destroy();
    });
    return;
  }
  // As Node's own default: only while no response on this socket has started.
  if (answer && socket.writable && !pending?.headersSent) {
    writeAnswer(socket, answer, randomUUID());
    return;
  }
  socket.destroy();
}

/**
 * server.on("connect"): no tunnels here. Without this listener Node closes the socket silently.
 * @param {Request} req
 * @param {Socket} socket
 */
export function answerConnect(req, socket) {
  // Node leaves a socket handed to "connect" or "upgrade" without an error listener.
  socket.on("error", () => socket.destroy());
  const answer = { status: 405, code: "METHOD_NOT_ALLOWED", message: "CONNECT is not supported.", allow: ALLOW_ANY_ROUTE };
  writeAnswer(socket, answer, requestId(req.headers));
}

/**
 * server.on("upgrade") in development, for upgrades other than Next's hot reload: none is served.
 * @param {Request} req
 * @param {Socket} socket
 */
export function answerUpgrade(req, socket) {
  socket.on("error", () => socket.destroy());
  const answer = {
    status: 400,
    code: "VALIDATION_ERROR",
    message: "Protocol upgrades are not supported.",
    issues: [{ path: "upgrade", message: "Send the request without an Upgrade header." }],
  };
  writeAnswer(socket, answer, requestId(req.headers));
}
