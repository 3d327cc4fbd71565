import { z } from "zod";
import { AppError } from "../errors";
import type { Precondition } from "../services/storage-limits";

/** If-Match: "<version>" and If-None-Match: * as the services take them. */
export function preconditionFrom(req: Request): Precondition {
  const ifMatch = req.headers.get("if-match");
  const ifNoneMatch = req.headers.get("if-none-match");
  const out: Precondition = {};
  if (ifMatch !== null) {
    const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(ifMatch);
    if (!m?.[1]) throw invalid("if-match", 'Must be a version in quotes, e.g. If-Match: "3".');
    out.ifMatch = Number(m[1]);
  }
  if (ifNoneMatch !== null) {
    if (ifNoneMatch.trim() !== "*") throw invalid("if-none-match", "Only If-None-Match: * (create only) is supported.");
    out.ifNoneMatch = true;
  }
  if (out.ifMatch !== undefined && out.ifNoneMatch) throw invalid("if-none-match", "Send If-Match or If-None-Match, not both.");
  return out;
}

function invalid(header: string, message: string): AppError {
  return new AppError("VALIDATION_ERROR", { details: { issues: [{ path: `headers.${header}`, message }] } });
}

export const etag = (version: number) => `"${version}"`;

/** The conditional request headers of writes, for the published document. */
export const ZConditionalHeaders = z.object({
  "If-Match": z.string().optional().meta({ description: 'Write only if the stored version is this one, e.g. "3". Mismatch: 412.' }),
  "If-None-Match": z.literal("*").optional().meta({ description: "Create only: 412 if the key exists." }),
});
export const ZIfMatchHeader = z.object({
  "If-Match": z.string().optional().meta({ description: 'Delete only if the stored version is this one, e.g. "3". Mismatch: 412.' }),
});
