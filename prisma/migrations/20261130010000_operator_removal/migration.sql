-- removed_at: an instance admin removed the operator. The row stays, anonymised (e-mail, name and
-- password replaced, memberships and tokens deleted, sessions ended), so the audit trail keeps
-- naming the same id; the e-mail is free to be invited again.
ALTER TABLE "operators" ADD COLUMN "removed_at" TIMESTAMPTZ(3);
