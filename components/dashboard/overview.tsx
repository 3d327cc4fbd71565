"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, Select, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { GameOverview } from "./overview-game";
import { UsageChart } from "./usage-chart";

const LIMITS = { FREE: "100 requests/min", PRO: "1,000 requests/min", ENTERPRISE: "custom" } as const;

export function ProjectOverview({ projectId, isInstanceAdmin }: { projectId: string; isInstanceAdmin: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const [plan, setPlan] = useState<"FREE" | "PRO" | "ENTERPRISE" | "">("");
  const [custom, setCustom] = useState("");
  const [confirm, setConfirm] = useState("");
  const [name, setName] = useState("");
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey({ projectId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.usage.queryKey({ projectId }) }),
    ]);
  const setPlanMutation = useMutation(trpc.projects.setPlan.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.projects.delete.mutationOptions({ onSuccess: () => router.push("/projects") }));
  const rename = useMutation(
    trpc.projects.rename.mutationOptions({
      onSuccess: async () => {
        setName("");
        await refresh();
      },
    }),
  );

  if (project.isPending) return <State kind="loading">Loading the project…</State>;
  if (project.error) return <State kind="error">{messageOf(project.error)}</State>;
  const p = project.data;
  const chosen = plan || p.plan;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="project-name">
          {p.name}
        </h1>
        <Badge>{p.plan}</Badge>
        <Badge tone="green">{p.role.toLowerCase()}</Badge>
      </div>
      <UsageChart projectId={projectId} />
      <GameOverview projectId={projectId} />
      <Card title="Plan">
        <p className="text-sm text-zinc-600" data-testid="plan">
          Plan <strong>{p.plan}</strong>: {p.plan === "ENTERPRISE" ? `${p.customRateLimit ?? "—"} requests/min` : LIMITS[p.plan]}. Plan
          changes reach every instance within a minute.
        </p>
        {isInstanceAdmin && (
          <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-center">
            <Select aria-label="Plan" value={chosen} onChange={(e) => setPlan(e.target.value as typeof plan)}>
              <option value="FREE">Free</option>
              <option value="PRO">Pro</option>
              <option value="ENTERPRISE">Enterprise</option>
            </Select>
            {chosen === "ENTERPRISE" && (
              <Input
                aria-label="Requests per minute"
                type="number"
                min={1}
                placeholder="requests/min"
                value={custom}
                onChange={(e) => setCustom(e.target.value)}
              />
            )}
            <Button
              disabled={setPlanMutation.isPending}
              onClick={() =>
                setPlanMutation.mutate({
                  projectId,
                  plan: chosen,
                  customRateLimit: chosen === "ENTERPRISE" ? Number(custom) || null : null,
                })
              }
            >
              Change plan
            </Button>
          </div>
        )}
        {setPlanMutation.error && (
          <p role="alert" className="mt-2 text-sm text-red-700">
            {messageOf(setPlanMutation.error)}
          </p>
        )}
      </Card>
      {p.role !== "VIEWER" && (
        <Card title="Rename">
          <div className="flex flex-col gap-2 sm:flex-row">
            <Input
              aria-label="New project name"
              placeholder={p.name}
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={100}
            />
            <Button disabled={name.trim() === "" || rename.isPending} onClick={() => rename.mutate({ projectId, name })}>
              Rename
            </Button>
          </div>
          {rename.error && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {messageOf(rename.error)}
            </p>
          )}
        </Card>
      )}
      {p.role === "OWNER" && (
        <Card title="Delete this project">
          <p className="mb-2 text-sm text-zinc-600">
            Deletes every player, key, leaderboard and balance of <strong>{p.name}</strong>. Type its name to confirm.
          </p>
          <div className="flex flex-col gap-2 sm:flex-row">
            <Input aria-label="Type the project name to confirm" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
            <Button
              variant="danger"
              disabled={confirm !== p.name || remove.isPending}
              onClick={() => remove.mutate({ projectId, confirmName: confirm })}
            >
              Delete project
            </Button>
          </div>
          {remove.error && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {messageOf(remove.error)}
            </p>
          )}
        </Card>
      )}
    </div>
  );
}
