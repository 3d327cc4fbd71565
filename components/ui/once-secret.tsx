"use client";

import { Copy, KeyRound } from "lucide-react";
import { toast } from "sonner";
import { Button } from "./primitives";

/** A secret shown once after it was created (only its hash is stored, or it is kept encrypted: `stored`), with copy and dismiss. */
export function OnceSecret({
  secret,
  noun,
  testId,
  onDone,
  stored = "we store a hash",
}: {
  secret: string;
  noun: string;
  testId: string;
  onDone: () => void;
  stored?: string;
}) {
  return (
    <div className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
      <p className="mb-2 flex items-center gap-1 font-medium">
        <KeyRound className="size-4 shrink-0" aria-hidden />
        Copy the {noun} now: it is shown only once ({stored}).
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code data-testid={testId} className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1">
          {secret}
        </code>
        <Button
          variant="secondary"
          onClick={() =>
            navigator.clipboard?.writeText(secret).then(
              () => toast.success("Copied."),
              () => toast.error(`The browser refused to copy; select the ${noun} instead.`),
            )
          }
        >
          <Copy className="mr-1 size-4" aria-hidden />
          Copy
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}
