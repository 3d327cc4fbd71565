import { randomUUID } from "node:crypto";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { ProjectProvider } from "@/components/dashboard/project-context";
import { ProjectNav } from "@/components/dashboard/project-nav";
import { FailingWebhooksNotice } from "@/components/dashboard/webhooks/failing-notice";
import { AppError } from "@/server/errors";
import { signedInOperator } from "@/server/identity/next-auth";
import { projectFor } from "@/server/services/projects/commands";

/**
 * The frame of every project page: the project and the operator's role, resolved once on the
 * server (a project they cannot see, or a malformed id in the URL, is the not-found page), the
 * project's name and its tabs, and a notice on every tab while a webhook endpoint is turned off
 * for failing. Pages render only their own content.
 */
export default async function ProjectLayout({ children, params }: { children: ReactNode; params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const operator = await signedInOperator();
  const project = await projectFor({ operator, requestId: randomUUID() }, { projectId }).catch((error: unknown) => {
    if (error instanceof AppError && (error.code === "NOT_FOUND" || error.code === "MISSING_TOKEN")) return null;
    throw error;
  });
  if (!project) notFound();
  return (
    <ProjectProvider value={{ projectId: project.id, name: project.name, role: project.role }}>
      <ProjectNav />
      <FailingWebhooksNotice />
      {children}
    </ProjectProvider>
  );
}
