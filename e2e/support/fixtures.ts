import { randomBytes } from "node:crypto";
import type { Plan } from "@/server/generated/prisma/enums";
import { createApiKey, createProject } from "@/server/services/projects";
import { api } from "./api";

export type TestProject = { projectId: string; clientKey: string; serverKey: string };

/** A project of its own for each test file (Enterprise with a large budget unless told). */
export async function makeProject(o: { plan?: Plan; customRateLimit?: number | null; name?: string } = {}): Promise<TestProject> {
  const plan = o.plan ?? "ENTERPRISE";
  const project = await createProject({
    name: o.name ?? `test-${randomBytes(4).toString("hex")}`,
    plan,
    customRateLimit: plan === "ENTERPRISE" ? (o.customRateLimit ?? 100_000) : null,
  });
  const client = await createApiKey({ projectId: project.id, kind: "CLIENT", name: "client" });
  const server = await createApiKey({ projectId: project.id, kind: "SERVER", name: "server" });
  return { projectId: project.id, clientKey: client.key, serverKey: server.key };
}

export type TestPlayer = { playerId: string; accessToken: string; refreshToken: string };

export async function anonymousPlayer(key: string): Promise<TestPlayer> {
  const res = await api<TestPlayer>("POST", "/api/v1/auth/anonymous", { key });
  if (res.status !== 200) throw new Error(`anonymous sign-in failed: ${res.status} ${res.text}`);
  return res.body;
}
