import type { ReactNode } from "react";

/** The sample game has its own dark look: it keeps its colours when the system is in dark mode (app/globals.css). */
export default function PlayLayout({ children }: { children: ReactNode }) {
  return <div className="theme-fixed">{children}</div>;
}
