"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { FieldError } from "@/components/ui/field";
import { Badge, Button, Card, Input, State } from "@/components/ui/primitives";
import { ZProjectNameInput } from "@/server/services/projects/schemas";
import { applyServerError, messageOf } from "./errors";
import { plainly } from "./plain-issues";
import { When } from "./when";

type ProjectRow = RouterOutputs["projects"]["list"][number];

const col = columnsFor<ProjectRow>();
const columns: DataTableColumns<ProjectRow> = [
  col.accessor("name", {
    header: "Name",
    cell: (c) => (
      <Link className="font-medium text-blue-700 hover:underline" href={`/projects/${c.row.original.id}`}>
        {c.getValue()}
      </Link>
    ),
  }),
  col.accessor("plan", { header: "Plan", cell: (c) => <Badge>{c.getValue()}</Badge> }),
  // Names may repeat: the creation date tells two projects of the same name apart.
  col.accessor((p) => new Date(p.createdAt).getTime(), {
    id: "created",
    header: "Created",
    cell: (c) => <When value={c.row.original.createdAt} />,
  }),
  col.accessor((p) => p.role?.toLowerCase() ?? "instance admin", { id: "role", header: "Your role" }),
  col.accessor("players", { header: "Players" }),
];

export function ProjectList() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.projects.list.queryOptions());
  const form = useForm({ resolver: zodResolver(ZProjectNameInput, plainly), defaultValues: { name: "" } });
  const create = useMutation(trpc.projects.create.mutationOptions());
  const submit = form.handleSubmit(async (values) => {
    try {
      const project = await create.mutateAsync(values);
      toast.success(`Created ${project.name}.`);
      form.reset();
      await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
      router.push(`/projects/${project.id}`);
    } catch (error) {
      applyServerError(error, form.setError, ["name"]);
    }
  });
  const errors = form.formState.errors;
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Projects</h1>
      <Card title="New project">
        <form onSubmit={submit} noValidate className="flex flex-col gap-2 sm:flex-row sm:items-start">
          <div className="flex-1">
            <Input
              aria-label="Project name"
              placeholder="My game"
              aria-invalid={errors.name ? true : undefined}
              aria-describedby={errors.name ? "project-name-error" : undefined}
              {...form.register("name")}
            />
            <FieldError id="project-name-error" error={errors.name} />
          </div>
          <Button type="submit" disabled={form.formState.isSubmitting}>
            <Plus className="mr-1 size-4" aria-hidden />
            Create project
          </Button>
        </form>
        <FieldError error={errors.root?.server} />
      </Card>
      <Card title="Your projects">
        {projects.isPending ? (
          <State kind="loading">Loading projects…</State>
        ) : projects.error ? (
          <State kind="error">{messageOf(projects.error)}</State>
        ) : projects.data.length === 0 ? (
          <State kind="empty">No projects yet. Create one above.</State>
        ) : (
          <DataTable columns={columns} data={projects.data} getRowId={(p) => p.id} minWidth={480} />
        )}
      </Card>
    </div>
  );
}
