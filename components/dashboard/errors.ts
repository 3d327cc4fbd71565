import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { plainServerIssue } from "./plain-issues";

type Issue = { path: string; message: string };
type ErrorData = { appCode?: string; details?: { issues?: Issue[] } };

const dataOf = (error: unknown): ErrorData => (error as { data?: ErrorData } | null)?.data ?? {};

/** The error table's code of a failed tRPC call (`VALIDATION_ERROR`, `ALREADY_EXISTS`, …). */
export function appCodeOf(error: unknown): string | undefined {
  return dataOf(error).appCode;
}

function issuesOf(error: unknown): Issue[] {
  const issues = dataOf(error).details?.issues;
  return Array.isArray(issues) ? issues : [];
}

/**
 * Each issue as the operator's sentence ("Enter a name. Use at most 100 characters."), the first
 * per field only (a huge whole number fails zod's integer range and the schema's bound alike).
 */
function sentencesOf(issues: Issue[]): string {
  const firstPerPath = new Map<string, Issue>();
  for (const issue of issues) if (!firstPerPath.has(issue.path)) firstPerPath.set(issue.path, issue);
  return [...new Set([...firstPerPath.values()].map((i) => plainServerIssue(i, { place: true })))].join(" ");
}

/**
 * The message of a failed tRPC call: the error table's message, or for validation errors each
 * issue in plain words (never a path or zod's wording) — the server's formatter puts them in `data.details`.
 */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return "Something went wrong.";
  const issues = issuesOf(error);
  if (issues.length > 0) return sentencesOf(issues);
  return error.message || "Something went wrong.";
}

/**
 * Puts a server failure where the operator looks: each validation issue on its field (the
 * deepest path segment that names a field: `input.name` → `name`, `input.provider.jwksUrl` and the
 * service's `jwksUrl` → `jwksUrl`), an app code listed in `codeFields` on that field
 * (`ALREADY_EXISTS` → `email`), anything else on the form (`root.server`).
 */
export function applyServerError<F extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<F>,
  fields: ReadonlyArray<Path<F>>,
  codeFields: Partial<Record<string, Path<F>>> = {},
): void {
  const unplaced: Issue[] = [];
  const issues = issuesOf(error);
  for (const issue of issues) {
    const field = issue.path
      .split(".")
      .reverse()
      .find((segment): segment is Path<F> => (fields as ReadonlyArray<string>).includes(segment));
    if (field) setError(field, { type: "server", message: plainServerIssue(issue) });
    else unplaced.push(issue);
  }
  const codeField = codeFields[appCodeOf(error) ?? ""];
  if (issues.length === 0 && codeField) {
    setError(codeField, { type: "server", message: messageOf(error) });
    return;
  }
  if (issues.length === 0 || unplaced.length > 0) {
    const message = unplaced.length > 0 ? sentencesOf(unplaced) : messageOf(error);
    setError("root.server", { type: "server", message });
  }
}
