import { toAppError } from "@/server/error-normalisation";
import { requestIdFrom } from "@/server/http/headers";
import { operatorContext } from "@/server/http/operator-context";
import { errorResponse } from "@/server/http/respond";
import { exportAs } from "@/server/services/exports";

/**
 * A dashboard export as a file download (CSV or JSON), streamed as it is read from the database.
 * Who may export what, and the audit row, are the service's; errors are the product's JSON error.
 */
export async function GET(req: Request, { params }: { params: Promise<{ projectId: string; kind: string }> }): Promise<Response> {
  const requestId = requestIdFrom(req);
  try {
    const ctx = await operatorContext(req, requestId);
    const { projectId, kind } = await params;
    const file = await exportAs(ctx, { projectId, kind, query: Object.fromEntries(new URL(req.url).searchParams) });
    return new Response(file.stream, {
      headers: {
        "Content-Type": file.contentType,
        "Content-Disposition": `attachment; filename="${file.filename}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "X-Request-Id": requestId,
      },
    });
  } catch (error) {
    return errorResponse(toAppError(error, requestId), { "X-Request-Id": requestId });
  }
}
