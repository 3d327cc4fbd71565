import { auditOperators, listAudit } from "./audit";
import type { AuditFilters } from "./audit-schemas";
import { viewerRead } from "./command";

/**
 * The audit log's `…As` reads, each checking its caller (`viewerRead`). Not in ./audit.ts: the
 * runner (./command.ts) writes its audit rows through ./audit.ts, so these wrappers there would
 * make the two files import each other.
 */
export const listAuditAs = viewerRead((o: AuditFilters & { projectId: string; cursor?: string | null; limit: number }) =>
  listAudit({ ...o, cursor: o.cursor ?? undefined }),
);
export const auditOperatorsAs = viewerRead(auditOperators);
