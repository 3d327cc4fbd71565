"use client";

import * as AlertDialogPrimitive from "@radix-ui/react-alert-dialog";
import { type ReactNode, useId, useState } from "react";
import { contentClass, overlayClass } from "./dialog";
import { Button, Input } from "./primitives";

/** Radix AlertDialog: a question the operator must answer (no close on outside click). */
export const AlertDialog = AlertDialogPrimitive.Root;
export const AlertDialogTrigger = AlertDialogPrimitive.Trigger;

/**
 * Asks before a destructive or far-reaching action. `onConfirm` may return a promise: the dialog
 * stays open (buttons disabled) until it settles and closes only on success, so a failure stays
 * visible next to the question. Without a `trigger` it is opened by `open` (from a menu item, say).
 * `typed` requires that text to be typed first (project or player deletion).
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  onConfirm,
  typed,
  typedLabel,
  tone = "danger",
  error,
  open: controlledOpen,
  onOpenChange,
}: {
  trigger?: ReactNode;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  title: ReactNode;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: (typedText: string) => unknown;
  typed?: string;
  typedLabel?: string;
  tone?: "danger" | "primary";
  error?: ReactNode;
}) {
  const [localOpen, setLocalOpen] = useState(false);
  const open = controlledOpen ?? localOpen;
  const setOpen = (next: boolean) => {
    setLocalOpen(next);
    if (!next) setText("");
    onOpenChange?.(next);
  };
  const [busy, setBusy] = useState(false);
  const [text, setText] = useState("");
  const inputId = useId();
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm(text);
      setOpen(false);
    } catch {
      // The caller shows the failure (toast or `error`); the question stays open.
    } finally {
      setBusy(false);
    }
  };
  return (
    <AlertDialogPrimitive.Root open={open} onOpenChange={setOpen}>
      {trigger && <AlertDialogPrimitive.Trigger asChild>{trigger}</AlertDialogPrimitive.Trigger>}
      <AlertDialogPrimitive.Portal>
        <AlertDialogPrimitive.Overlay className={overlayClass} />
        <AlertDialogPrimitive.Content className={contentClass}>
          <div className="space-y-1">
            <AlertDialogPrimitive.Title className="text-lg font-semibold">{title}</AlertDialogPrimitive.Title>
            <AlertDialogPrimitive.Description className="text-sm text-zinc-600">{description}</AlertDialogPrimitive.Description>
          </div>
          {typed !== undefined && (
            <div>
              <label htmlFor={inputId} className="mb-1 block text-sm font-medium text-zinc-700">
                {typedLabel ?? `Type ${typed} to confirm`}
              </label>
              <Input id={inputId} value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" spellCheck={false} />
            </div>
          )}
          {error && (
            <p role="alert" className="text-sm text-red-700">
              {error}
            </p>
          )}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogPrimitive.Cancel asChild>
              <Button variant="secondary" disabled={busy}>
                Cancel
              </Button>
            </AlertDialogPrimitive.Cancel>
            <Button
              variant={tone}
              disabled={busy || (typed !== undefined && text !== typed)}
              onClick={(event) => {
                event.preventDefault();
                void confirm();
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </AlertDialogPrimitive.Content>
      </AlertDialogPrimitive.Portal>
    </AlertDialogPrimitive.Root>
  );
}
