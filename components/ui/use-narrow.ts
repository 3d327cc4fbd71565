"use client";

import { useSyncExternalStore } from "react";

/** Below Tailwind's `sm` breakpoint (640 px), where tables stack into cards. */
const NARROW = "(max-width: 639.98px)";

const subscribe = (onChange: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
};

/** Whether the screen is phone-narrow (false on the server and during hydration). */
export function useNarrow(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(NARROW).matches,
    () => false,
  );
}
