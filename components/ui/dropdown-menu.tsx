"use client";

import * as Menu from "@radix-ui/react-dropdown-menu";
import { Check } from "lucide-react";
import type { ComponentProps } from "react";
import { cx } from "./cx";

/**
 * Radix DropdownMenu for rows with several actions: arrow keys, typeahead, Escape, focus returns to
 * the trigger. Not modal by default: a modal menu hides the rest of the page from screen readers
 * (aria-hidden) while its skip link, header links and main region stay focusable, which axe
 * reports as serious (aria-hidden-focus); a menu closes on Escape, an outside click or focus
 * leaving it all the same, and a dialog opened from one of its items gets focus cleanly.
 */
export function DropdownMenu({ modal = false, ...props }: ComponentProps<typeof Menu.Root>) {
  return <Menu.Root modal={modal} {...props} />;
}
export const DropdownMenuTrigger = Menu.Trigger;
export const DropdownMenuRadioGroup = Menu.RadioGroup;

const itemClass =
  "relative flex cursor-default select-none items-center gap-2 rounded px-2 py-1.5 text-sm outline-none data-[disabled]:pointer-events-none data-[highlighted]:bg-zinc-100 data-[disabled]:opacity-50";

export function DropdownMenuContent({ className, sideOffset = 4, align = "end", ...props }: ComponentProps<typeof Menu.Content>) {
  return (
    <Menu.Portal>
      <Menu.Content
        sideOffset={sideOffset}
        align={align}
        {...props}
        className={cx("z-50 min-w-44 rounded-md border border-zinc-200 bg-white p-1 shadow-md", className)}
      />
    </Menu.Portal>
  );
}

export function DropdownMenuItem({ className, tone, ...props }: ComponentProps<typeof Menu.Item> & { tone?: "danger" }) {
  return <Menu.Item {...props} className={cx(itemClass, tone === "danger" && "text-red-700 data-[highlighted]:bg-red-50", className)} />;
}

export function DropdownMenuRadioItem({ className, children, ...props }: ComponentProps<typeof Menu.RadioItem>) {
  return (
    <Menu.RadioItem {...props} className={cx(itemClass, "pl-7", className)}>
      <Menu.ItemIndicator className="absolute left-2 inline-flex">
        <Check className="size-4" aria-hidden />
      </Menu.ItemIndicator>
      {children}
    </Menu.RadioItem>
  );
}

export function DropdownMenuLabel({ className, ...props }: ComponentProps<typeof Menu.Label>) {
  return <Menu.Label {...props} className={cx("px-2 py-1.5 text-xs font-medium uppercase text-zinc-500", className)} />;
}

export function DropdownMenuSeparator() {
  return <Menu.Separator className="my-1 h-px bg-zinc-200" />;
}
