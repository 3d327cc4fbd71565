"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { FieldError } from "@/components/ui/field";
import { Badge, Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { MAX_CUSTOM_RATE_LIMIT, PLAN_LIMITS, type PlanName, projectLimit } from "@/server/ratelimit/plans";
import { ZProjectNameInput } from "@/server/services/projects/schemas";
import { applyServerError, messageOf } from "./errors";
import { GameOverview } from "./overview-game";
import { plainly } from "./plain-issues";
import { ProjectHealth } from "./project-health";

const PLANS = [
  { value: "FREE", label: "Free" },
  { value: "PRO", label: "Pro" },
  { value: "ENTERPRISE", label: "Enterprise" },
] as const;
type Plan = PlanName;
/** setPlan's rule for a custom limit. */
const ZCustomLimit = z.number().int().min(1).max(MAX_CUSTOM_RATE_LIMIT);
const planText = (plan: Plan, custom: number | null) =>
  `${PLANS.find((x) => x.value === plan)?.label ?? plan} (${projectLimit(plan, custom).toLocaleString("en-US")} requests/min)`;

export function ProjectOverview({ projectId, isInstanceAdmin }: { projectId: string; isInstanceAdmin: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey({ projectId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.health.project.pathKey() }),
    ]);
  const remove = useMutation(trpc.projects.delete.mutationOptions());
  const dataSettings = useMutation(
    trpc.projects.setDataSettings.mutationOptions({
      onSuccess: async (after) => {
        toast.success(after.keepLedgerOfDeletedPlayers ? "Deleted players' ledgers are kept." : "Deleted players' ledgers are deleted.");
        await refresh();
      },
      onError: (error) => toast.error(messageOf(error)),
    }),
  );
  const rename = useMutation(trpc.projects.rename.mutationOptions());
  const renameForm = useForm({ resolver: zodResolver(ZProjectNameInput, plainly), defaultValues: { name: "" } });
  const renameErrors = renameForm.formState.errors;
  const submitRename = renameForm.handleSubmit(async ({ name }) => {
    try {
      const after = await rename.mutateAsync({ projectId, name });
      toast.success(`Renamed to ${after.name}.`);
      renameForm.reset();
      await refresh();
      router.refresh(); // the project frame (name above the tabs) is rendered on the server
    } catch (error) {
      applyServerError(error, renameForm.setError, ["name"]);
    }
  });

  if (project.isPending) return <State kind="loading">Loading the project…</State>;
  if (project.error) return <State kind="error">{messageOf(project.error)}</State>;
  const p = project.data;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="project-name">
          {p.name}
        </h1>
        <Badge>{p.plan}</Badge>
        <Badge tone="green">{p.role.toLowerCase()}</Badge>
      </div>
      <ProjectHealth projectId={projectId} />
      <GameOverview projectId={projectId} />
      <PlanCard
        projectId={projectId}
        name={p.name}
        plan={p.plan}
        customRateLimit={p.customRateLimit}
        canChange={isInstanceAdmin}
        onChanged={refresh}
      />
      {p.role !== "VIEWER" && (
        <Card title="Rename">
          <form onSubmit={submitRename} noValidate className="flex flex-col gap-2 sm:flex-row sm:items-start">
            <div className="flex-1">
              <Input
                aria-label="New project name"
                placeholder={p.name}
                aria-invalid={renameErrors.name ? true : undefined}
                aria-describedby={renameErrors.name ? "rename-error" : undefined}
                {...renameForm.register("name")}
              />
              <FieldError id="rename-error" error={renameErrors.name} />
            </div>
            <Button type="submit" disabled={renameForm.formState.isSubmitting}>
              Rename
            </Button>
          </form>
          <FieldError error={renameErrors.root?.server} />
        </Card>
      )}
      {p.role !== "VIEWER" && (
        <Card title="Deleted players">
          <label className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              className="mt-1"
              checked={p.keepLedgerOfDeletedPlayers}
              disabled={dataSettings.isPending}
              onChange={(e) => dataSettings.mutate({ projectId, keepLedgerOfDeletedPlayers: e.target.checked })}
            />
            <span>
              Keep the ledger of deleted players for the studio's accounts. Their balance changes stay, detached from the player (no player
              id, idempotency key or request id); everything else the player owned is deleted.
            </span>
          </label>
        </Card>
      )}
      {p.role === "OWNER" && (
        <Card title="Delete this project">
          <p className="mb-3 text-sm text-zinc-600">
            Deletes every player, key, leaderboard and balance of <strong>{p.name}</strong>. This cannot be undone.
          </p>
          <ConfirmDialog
            trigger={
              <Button variant="danger">
                <Trash2 className="mr-1 size-4" aria-hidden />
                Delete project
              </Button>
            }
            title={`Delete ${p.name}?`}
            description="Every player, key, leaderboard and balance of this project is deleted. Games using its keys stop working. Type the project's name to confirm."
            typed={p.name}
            typedLabel="Type the project name to confirm"
            confirmLabel="Delete project"
            error={remove.error ? messageOf(remove.error) : undefined}
            onConfirm={async (typedName) => {
              await remove.mutateAsync({ projectId, confirmName: typedName });
              toast.success(`Deleted ${p.name}.`);
              router.push("/projects");
            }}
          />
        </Card>
      )}
    </div>
  );
}

/**
 * The plan and its rate limit; instance admins change it, after a confirmation naming the old and
 * the new plan and limit (a plan change reaches every instance of the game within a minute).
 */
function PlanCard({
  projectId,
  name,
  plan,
  customRateLimit,
  canChange,
  onChanged,
}: {
  projectId: string;
  name: string;
  plan: Plan;
  customRateLimit: number | null;
  canChange: boolean;
  onChanged: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const setPlan = useMutation(trpc.projects.setPlan.mutationOptions());
  const [chosen, setChosen] = useState<Plan>(plan);
  const [custom, setCustom] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const customLimit = chosen === "ENTERPRISE" && custom.trim() !== "" ? ZCustomLimit.safeParse(Number(custom), plainly) : null;
  const next = { plan: chosen, customRateLimit: customLimit?.success ? customLimit.data : null };
  const ask = () => {
    setProblem(customLimit && !customLimit.success ? (customLimit.error.issues[0]?.message ?? null) : null);
    if (customLimit && !customLimit.success) return;
    if (next.plan === plan && next.customRateLimit === customRateLimit) {
      setProblem(`${name} is already on ${planText(plan, customRateLimit)}.`);
      return;
    }
    setConfirming(true);
  };
  return (
    <Card title="Plan">
      <p className="text-sm text-zinc-600" data-testid="plan">
        Plan <strong>{plan}</strong>: {projectLimit(plan, customRateLimit).toLocaleString("en-US")} requests/min. Plan changes reach every
        instance within a minute.
      </p>
      {canChange && (
        <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-center">
          <SelectMenu aria-label="Plan" className="sm:w-44" value={chosen} onValueChange={(v) => setChosen(v as Plan)} options={PLANS} />
          {chosen === "ENTERPRISE" && (
            <Input
              aria-label="Requests per minute"
              type="number"
              min={1}
              max={MAX_CUSTOM_RATE_LIMIT}
              step={1}
              placeholder={`${PLAN_LIMITS.ENTERPRISE.toLocaleString("en-US")} requests/min`}
              aria-invalid={problem ? true : undefined}
              value={custom}
              onChange={(e) => setCustom(e.target.value)}
            />
          )}
          <Button disabled={setPlan.isPending} onClick={ask}>
            Change plan
          </Button>
        </div>
      )}
      {problem && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {problem}
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        tone="primary"
        title={`Change the plan of ${name}?`}
        description={`From ${planText(plan, customRateLimit)} to ${planText(next.plan, next.customRateLimit)}. Every instance applies the new limit within a minute.`}
        confirmLabel="Change plan"
        error={setPlan.error ? messageOf(setPlan.error) : undefined}
        onConfirm={async () => {
          const after = await setPlan.mutateAsync({ projectId, ...next });
          toast.success(`Plan changed to ${planText(after.plan, after.customRateLimit)}.`);
          await onChanged();
        }}
      />
    </Card>
  );
}
