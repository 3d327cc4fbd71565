"use client";

import { Toaster as Sonner } from "sonner";

/** One toaster for the dashboard: mutation outcomes, announced politely (sonner's live region). */
export function Toaster() {
  return <Sonner position="bottom-right" richColors closeButton duration={5000} />;
}
