"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

export function ProjectList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.projects.list.queryOptions());
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.projects.create.mutationOptions({
      onSuccess: async () => {
        setName("");
        await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name });
  };
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Projects</h1>
      <Card title="New project">
        <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row">
          <Input
            aria-label="Project name"
            placeholder="My game"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
          />
          <Button type="submit" disabled={create.isPending || name.trim() === ""}>
            Create project
          </Button>
        </form>
        {create.error && (
          <p role="alert" className="mt-2 text-sm text-red-700">
            {messageOf(create.error)}
          </p>
        )}
      </Card>
      <Card title="Your projects">
        {projects.isPending ? (
          <State kind="loading">Loading projects…</State>
        ) : projects.error ? (
          <State kind="error">{messageOf(projects.error)}</State>
        ) : projects.data.length === 0 ? (
          <State kind="empty">No projects yet. Create one above.</State>
        ) : (
          <Table head={["Name", "Plan", "Your role", "Players"]}>
            {projects.data.map((p) => (
              <tr key={p.id}>
                <td className="px-2 py-2">
                  <Link className="font-medium text-blue-700 hover:underline" href={`/projects/${p.id}`}>
                    {p.name}
                  </Link>
                </td>
                <td className="px-2 py-2">
                  <Badge>{p.plan}</Badge>
                </td>
                <td className="px-2 py-2">{p.role?.toLowerCase() ?? "instance admin"}</td>
                <td className="px-2 py-2">{p.players}</td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </div>
  );
}
