"use client";

import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import type { ComponentProps, ReactNode } from "react";
import { cx } from "./cx";

/** Radix Dialog in the shadcn/ui style: focus trapped, Escape and the overlay close it, title and description announced. */
export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

export const overlayClass = "fixed inset-0 z-40 bg-black/50"; // black: not turned around in dark mode (app/globals.css)
const frameClass =
  "fixed left-1/2 top-1/2 z-50 grid max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 gap-4 overflow-y-auto rounded-lg border border-zinc-200 bg-white p-5 shadow-lg focus:outline-none";
export const contentClass = `${frameClass} max-w-lg`;

/**
 * `wide`: for a dialog holding a whole form (an edit of a definition with several lines). The
 * width is chosen here, not appended by the caller: without tailwind-merge a caller's `max-w-*`
 * competes with the default one and loses or wins by the stylesheet's order.
 */
export function DialogContent({
  className,
  children,
  wide,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content> & { wide?: boolean }) {
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className={overlayClass} />
      <DialogPrimitive.Content {...props} className={cx(frameClass, wide ? "max-w-3xl" : "max-w-lg", className)}>
        {children}
        <DialogPrimitive.Close
          className="absolute right-3 top-3 rounded p-1 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-400"
          aria-label="Close"
        >
          <X className="size-4" aria-hidden />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogHeader({ children }: { children: ReactNode }) {
  return <div className="space-y-1 pr-6">{children}</div>;
}

export function DialogTitle({ className, ...props }: ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title {...props} className={cx("text-lg font-semibold", className)} />;
}

export function DialogDescription({ className, ...props }: ComponentProps<typeof DialogPrimitive.Description>) {
  return <DialogPrimitive.Description {...props} className={cx("text-sm text-zinc-600", className)} />;
}

export function DialogFooter({ children }: { children: ReactNode }) {
  return <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{children}</div>;
}
