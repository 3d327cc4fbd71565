import { reportReasonsOf, writeReportReasons } from "./index";

/**
 * The project's report reasons in the configuration document (server/services/config): the
 * section `reportReasons`, the list as the game sends and the queue shows it, in order. Optional
 * (absent: the project's are left as they are); present, it is the whole list. In the diff each
 * reason is one entry (its id the reason) with its `position`, so adding, removing and
 * reordering reasons each show as what they are. Open reports keep their reason when it is removed,
 * as when an operator edits the list on the moderation page.
 */
type Entry = { id: string; position: number };
const entriesOf = (reasons: readonly string[]): Entry[] => reasons.map((id, position) => ({ id, position }));

/** The project's list (the default list while it never set one). */
export const exportReportReasons = (projectId: string): Promise<string[]> => reportReasonsOf(projectId);

/** Current and desired entries for the generic diff; a document without the section wants what is there. */
export function reportReasonEntries(current: string[], desired: string[] | undefined): { current: Entry[]; desired: Entry[] } {
  return { current: entriesOf(current), desired: entriesOf(desired ?? current) };
}

type Diff = { created: unknown[]; changed: unknown[]; deleted: unknown[] };

/** Writes the document's list when the diff changed anything; in the import's transaction. */
export async function applyReportReasonChanges(projectId: string, diff: Diff, desired: string[] | undefined): Promise<void> {
  if (!desired || diff.created.length + diff.changed.length + diff.deleted.length === 0) return;
  await writeReportReasons(projectId, desired);
}
