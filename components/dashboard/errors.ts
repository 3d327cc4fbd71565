type Issue = { path: string; message: string };

/**
 * The message of a failed tRPC call: the error table's message, or for validation errors each
 * issue (`input.provider.jwksUrl: Must be https.`) — the server's formatter puts them in `data.details`.
 */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return "Something went wrong.";
  const issues = (error as { data?: { details?: { issues?: Issue[] } } }).data?.details?.issues;
  if (Array.isArray(issues) && issues.length > 0) return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  return error.message || "Something went wrong.";
}
