import { type Span, SpanStatusCode } from "@opentelemetry/api";
import type { FinishedRequest } from "../finished-request";
import { lineWriter } from "../log";
import { recordRequestMetrics } from "../metrics";
import { recordRequestStats } from "../usage";

/**
 * What every answered request leaves behind, in one place: its Prometheus series, its access
 * log line (never a body, header, token or key), and its span's status. Requests of a known
 * project also feed the dashboard's health view. The record's shape (FinishedRequest) lives
 * below this file and usage.ts, which both read it.
 */
let http: ReturnType<typeof lineWriter> | undefined;
const accessLog = () => {
  http ??= lineWriter("http");
  return http;
};

/** One request being served: set `projectId` / `playerId` once known, then `finish` with its response. */
export class RequestObservation {
  projectId: string | null = null;
  playerId: string | null = null;
  /** The client's release (X-Client-Version, X-Platform), for the health view's split by version. */
  release = { clientVersion: "", platform: "" };
  private readonly started = performance.now();

  constructor(
    private readonly route: string,
    private readonly method: string,
    private readonly requestId: string,
    private readonly span: Span | null = null,
  ) {}

  finish(response: Response, code = ""): Response {
    const finished: FinishedRequest = {
      requestId: this.requestId,
      route: this.route,
      method: this.method,
      status: response.status,
      code,
      durationMs: Math.round((performance.now() - this.started) * 100) / 100,
      projectId: this.projectId,
      playerId: this.playerId,
      clientVersion: this.release.clientVersion,
      platform: this.release.platform,
    };
    recordRequestMetrics(finished);
    recordRequestStats(finished);
    writeAccessLine(finished);
    if (this.span) {
      this.span.setAttribute("http.response.status_code", finished.status);
      if (code) this.span.setAttribute("gb.error_code", code);
      if (this.projectId) this.span.setAttribute("gb.project_id", this.projectId);
      if (this.playerId) this.span.setAttribute("gb.player_id", this.playerId);
      if (finished.status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return response;
  }
}

/**
 * The access line, serialised by hand: every field is named here and none is a secret. Ids and
 * the route are JSON-escaped (a request id can come from the client's X-Request-Id); the method,
 * status, code and duration are ours.
 */
function writeAccessLine(r: FinishedRequest): void {
  const log = accessLog();
  const level = r.status >= 500 ? "error" : "info";
  if (!log.enabled(level)) return;
  let fields = `"requestId":${JSON.stringify(r.requestId)},"method":${JSON.stringify(r.method)},"route":${JSON.stringify(r.route)},"status":${r.status}`;
  if (r.code) fields += `,"code":${JSON.stringify(r.code)}`;
  fields += `,"durationMs":${r.durationMs}`;
  if (r.projectId) fields += `,"projectId":${JSON.stringify(r.projectId)}`;
  if (r.playerId) fields += `,"playerId":${JSON.stringify(r.playerId)}`;
  log.write(level, fields, "request");
}
