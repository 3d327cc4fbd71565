"use client";

import { useQuery } from "@tanstack/react-query";
import { AlertTriangle } from "lucide-react";
import Link from "next/link";
import { useSelectedLayoutSegment } from "next/navigation";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { useProject } from "../project-context";

type Endpoint = RouterOutputs["webhooks"]["list"][number];

/** Endpoints the dispatcher turned off because their deliveries kept failing (not those an operator disabled). */
export const failingOf = (endpoints: Endpoint[] | undefined): Endpoint[] =>
  endpoints?.filter((e) => !e.enabled && e.disabledReason === "failing") ?? [];

/**
 * On every page of the project but Webhooks (which shows the full banner): a line saying that an
 * endpoint was turned off for failing, with a link to fix it. It reads the Webhooks page's own
 * query, so enabling the endpoint there clears it.
 */
export function FailingWebhooksNotice() {
  const { projectId } = useProject();
  const segment = useSelectedLayoutSegment();
  const trpc = useTRPC();
  const endpoints = useQuery(trpc.webhooks.list.queryOptions({ projectId }));
  const failing = failingOf(endpoints.data);
  const first = failing[0];
  if (segment === "webhooks" || !first) return null;
  return (
    <div
      data-testid="webhooks-failing-notice"
      className="mb-4 flex flex-wrap items-center gap-x-2 gap-y-1 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900"
    >
      <span className="flex items-start gap-2">
        <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
        {failing.length === 1 ? (
          <span>
            The webhook endpoint <span className="break-all">{first.url}</span> was turned off because its deliveries kept failing.
          </span>
        ) : (
          <span>{failing.length} webhook endpoints were turned off because their deliveries kept failing.</span>
        )}
      </span>
      <Link href={`/projects/${projectId}/webhooks`} className="font-medium underline underline-offset-2">
        Open Webhooks
      </Link>
    </div>
  );
}
