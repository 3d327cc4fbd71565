/**
 * One answered game-API request, as the REST edge records it (http/observe.ts) and as the
 * Prometheus series, the access log and the health view's counts (usage.ts) read it.
 */
export type FinishedRequest = {
  requestId: string;
  route: string;
  method: string;
  status: number;
  /** The error code of an error answer, '' on success. */
  code: string;
  durationMs: number;
  projectId: string | null;
  playerId: string | null;
  /** X-Client-Version and X-Platform as server/identity/client-info.ts parses them; '' when absent or malformed. */
  clientVersion: string;
  platform: string;
};
