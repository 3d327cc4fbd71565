import { randomUUID } from "node:crypto";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { ProjectProvider } from "@/components/dashboard/project-context";
import { ProjectNav } from "@/components/dashboard/project-nav";
import { FailingWebhooksNotice } from "@/components/dashboard/webhooks/failing-notice";
import { AppError } from "@/server/errors";
import { pageOperatorContext } from "@/server/http/operator-context";
import { projectAs } from "@/server/services/projects/commands";

/**
 * The frame of every project page: the project and the operator's role, resolved once on the
 * server (a project they cannot see, or a malformed id in the URL, is the not-found page), the
 * project's name and its tabs, and a notice on every tab while a webhook endpoint is turned off
 * for failing. Pages render only their own content. A link another site sent the operator here by
 * (the cross-site rule of server/http/operator-context.ts) renders none of the project: a link to
 * open it from here instead.
 */
export default async function ProjectLayout({ children, params }: { children: ReactNode; params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const ctx = await pageOperatorContext(randomUUID()).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "FORBIDDEN") return null;
    throw error;
  });
  if (!ctx) return <CrossSiteNotice projectId={projectId} />;
  const project = await projectAs(ctx, { projectId }).catch((error: unknown) => {
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

function CrossSiteNotice({ projectId }: { projectId: string }) {
  return (
    <section className="max-w-xl py-4">
      <h1 className="text-lg font-semibold">You followed a link from another site</h1>
      <p className="mt-2 text-sm text-zinc-600">For your safety the project is not shown from a link on another site.</p>
      <a className="mt-4 inline-block text-sm font-medium text-blue-700 underline" href={`/projects/${encodeURIComponent(projectId)}`}>
        Open the project
      </a>
    </section>
  );
}
