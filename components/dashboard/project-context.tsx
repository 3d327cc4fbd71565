"use client";

import { createContext, type ReactNode, useContext } from "react";

type Role = "OWNER" | "ADMIN" | "VIEWER";

/** The project every page under projects/[projectId] is about, and the operator's role on it. */
export type ProjectFrame = { projectId: string; name: string; role: Role };

const ProjectContext = createContext<ProjectFrame | null>(null);

/** Provided once by app/(dashboard)/projects/[projectId]/layout.tsx, resolved on the server. */
export function ProjectProvider({ value, children }: { value: ProjectFrame; children: ReactNode }) {
  return <ProjectContext.Provider value={value}>{children}</ProjectContext.Provider>;
}

/**
 * The frame's project and what the role allows, for showing or hiding controls. The server
 * checks every call again: a role changed meanwhile shows on the next navigation, and a refused
 * action answers with its error.
 */
export function useProject(): ProjectFrame & { canEdit: boolean; isOwner: boolean } {
  const frame = useContext(ProjectContext);
  if (!frame) throw new Error("useProject outside a project page");
  return { ...frame, canEdit: frame.role !== "VIEWER", isOwner: frame.role === "OWNER" };
}
