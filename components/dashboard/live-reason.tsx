"use client";

import { useId, useState } from "react";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { FieldError } from "@/components/ui/field";
import { Button, Input, Label } from "@/components/ui/primitives";
import { ZReason } from "@/server/services/remote-config/schemas";
import { messageOf } from "./errors";
import { plainly, plainServerIssue } from "./plain-issues";

export type PendingChange = { title: string; before: unknown; after: unknown; run: (reason: string) => Promise<unknown> };

const pretty = (v: unknown) => (v === null || v === undefined ? "(nothing)" : JSON.stringify(v, null, 2));

/**
 * Every live-ops change is confirmed here: the stored definition before and the one to save
 * after, side by side, and the reason the audit log keeps.
 */
export function ReasonDialog({ change, onClose }: { change: PendingChange | null; onClose: () => void }) {
  const id = useId();
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const close = () => {
    setReason("");
    setProblem(null);
    onClose();
  };
  const confirm = async () => {
    if (!change) return;
    const parsed = ZReason.safeParse(reason, plainly);
    if (!parsed.success) return setProblem(plainServerIssue({ path: "reason", message: parsed.error.issues[0]?.message ?? "" }));
    setBusy(true);
    try {
      await change.run(parsed.data);
      close();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={change !== null} onOpenChange={(open) => !open && close()}>
      <DialogContent wide>
        <DialogHeader>
          <DialogTitle>{change?.title}</DialogTitle>
          <DialogDescription>Check the change, then say why: the reason is kept in the audit log.</DialogDescription>
        </DialogHeader>
        <div className="grid grid-cols-1 gap-3 text-xs sm:grid-cols-2">
          <section aria-label="Before" className="min-w-0">
            <h3 className="mb-1 text-sm font-medium">Before</h3>
            <pre data-testid="change-before" className="max-h-60 overflow-auto rounded bg-zinc-100 p-2">
              {pretty(change?.before)}
            </pre>
          </section>
          <section aria-label="After" className="min-w-0">
            <h3 className="mb-1 text-sm font-medium">After</h3>
            <pre data-testid="change-after" className="max-h-60 overflow-auto rounded bg-zinc-100 p-2">
              {pretty(change?.after)}
            </pre>
          </section>
        </div>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void confirm();
          }}
          className="space-y-2"
        >
          <Label htmlFor={`${id}-reason`}>Reason</Label>
          <Input
            id={`${id}-reason`}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="Weekend sale for lapsed players"
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
          />
          <FieldError id={`${id}-problem`} error={problem ? { message: problem } : undefined} />
          <DialogFooter>
            <Button variant="secondary" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              Save change
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
