import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { upsertOperator } from "@/server/services/operators";
import { rotateApiKey } from "@/server/services/projects";
import { api, expectError } from "../support/api";
import { cli } from "../support/cli";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";

/**
 * Key rotation with an overlap (like a webhook secret's): a new key with the same name and kind,
 * the old one accepted until the overlap ends and refused after — also when an instance has it
 * cached (the shared app keeps keys 30 s: a cached entry never outlives the key's end).
 */

const signIn = (key: string) => api("POST", "/api/v1/auth/anonymous", { key });

async function operatorToken(projectId: string, role: "ADMIN" | "VIEWER"): Promise<string> {
  const email = `keyrot-${randomBytes(4).toString("hex")}@studio.test`;
  const created = await upsertOperator({ email, name: email, password: "a long operator passphrase 9" });
  await prisma().projectMember.create({ data: { projectId, operatorId: created.id, role } });
  const token = await createOperatorToken({
    operator: { ...created, isInstanceAdmin: false },
    name: "cli",
    role,
    projectIds: [projectId],
    instanceAdmin: false,
  });
  return token.token;
}

type Rotated = { key: { id: string; name: string; kind: string; key: string }; previous: { id: string; expiresAt: string | null } };

let project: TestProject;
let clientKeyId = "";
let adminToken = "";
let viewerToken = "";
beforeAll(async () => {
  project = await makeProject();
  clientKeyId = (await prisma().apiKey.findFirstOrThrow({ where: { projectId: project.projectId, kind: "CLIENT" } })).id;
  adminToken = await operatorToken(project.projectId, "ADMIN");
  viewerToken = await operatorToken(project.projectId, "VIEWER");
});

// Each CLI call starts a Node process: seconds apiece on a loaded machine.
const CLI_TIMEOUT = { timeout: 120_000 };

describe("npm run admin -- keys rotate", CLI_TIMEOUT, () => {
  it("prints a new key with the old one's name and kind, and both keys sign players in during the overlap", async () => {
    const r = await cli(["keys", "rotate", "--project", project.projectId, "--key", clientKeyId, "--overlap-hours", "24"], adminToken);
    expect(r.code, r.stderr).toBe(0);
    const rotated = JSON.parse(r.stdout) as Rotated;
    expect(rotated.key).toMatchObject({ name: "client", kind: "CLIENT" });
    expect(rotated.key.key).toMatch(/^gb_client_/);
    const hoursLeft = (Date.parse(rotated.previous.expiresAt ?? "") - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(23.9);
    expect(hoursLeft).toBeLessThanOrEqual(24);
    expect((await signIn(project.clientKey)).status).toBe(200);
    expect((await signIn(rotated.key.key)).status).toBe(200);
    const audit = await prisma().auditEntry.findFirstOrThrow({ where: { projectId: project.projectId, action: "key.rotate" } });
    expect(JSON.stringify(audit)).not.toContain(rotated.key.key);
  });

  it("lists the keys without any secret, the rotated one with its end of overlap", async () => {
    const r = await cli(["keys", "list", "--project", project.projectId], viewerToken);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/gb_client_[A-Za-z0-9_-]{20,}/);
    const keys = JSON.parse(r.stdout) as Array<{ id: string; expiresAt: string | null }>;
    expect(keys.find((k) => k.id === clientKeyId)?.expiresAt).not.toBeNull();
  });

  it("refuses a viewer (FORBIDDEN) and a key that is already expiring (NOT_FOUND), changing nothing", async () => {
    const before = await prisma().apiKey.count({ where: { projectId: project.projectId } });
    const byViewer = await cli(["keys", "rotate", "--project", project.projectId, "--key", clientKeyId], viewerToken);
    expect(byViewer.code).toBe(1);
    expect(JSON.parse(byViewer.stderr).error.code).toBe("FORBIDDEN");
    const again = await cli(["keys", "rotate", "--project", project.projectId, "--key", clientKeyId], adminToken);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr).error.code).toBe("NOT_FOUND");
    const tooLong = await cli(
      ["keys", "rotate", "--project", project.projectId, "--key", clientKeyId, "--overlap-hours", "721"],
      adminToken,
    );
    expect(JSON.parse(tooLong.stderr).error.code).toBe("VALIDATION_ERROR");
    expect(await prisma().apiKey.count({ where: { projectId: project.projectId } })).toBe(before);
  });

  it("revokes a key: it is refused at once on this instance", async () => {
    const other = await makeProject();
    const token = await operatorToken(other.projectId, "ADMIN");
    const serverKey = await prisma().apiKey.findFirstOrThrow({ where: { projectId: other.projectId, kind: "SERVER" } });
    const r = await cli(["keys", "revoke", "--project", other.projectId, "--key", serverKey.id], token);
    expect(r.code, r.stderr).toBe(0);
    expectError(await signIn(other.serverKey), 401, "INVALID_API_KEY");
  });
});

describe("the end of a rotated key's overlap", () => {
  it("refuses the old key once the overlap ends, although the instance cached it for 30 s", async () => {
    const own = await makeProject();
    const keyId = (await prisma().apiKey.findFirstOrThrow({ where: { projectId: own.projectId, kind: "CLIENT" } })).id;
    // A clock one hour back makes a one-hour overlap end 3 s from now.
    const endsAt = Date.now() + 3_000;
    const rotated = await rotateApiKey({ projectId: own.projectId, keyId, overlapHours: 1, now: new Date(endsAt - 3_600_000) });
    const cachedAt = Date.now();
    const first = await signIn(own.clientKey); // the instance caches the old key now
    if (Date.now() < endsAt) expect(first.status).toBe(200);
    let refusedAt = 0;
    while (Date.now() < cachedAt + 25_000) {
      const res = await signIn(own.clientKey);
      if (res.status === 401) {
        refusedAt = Date.now();
        expect((res.body as { error: { code: string } }).error.code).toBe("INVALID_API_KEY");
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refusedAt, "still accepted 25 s after caching: the cache outlived the key").toBeGreaterThan(0);
    expect(refusedAt).toBeGreaterThanOrEqual(endsAt);
    expect((await signIn(rotated.key.key)).status).toBe(200);
  });
});

describe("npm run admin -- players and leaderboards", CLI_TIMEOUT, () => {
  it("finds a player, shows it, bans and unbans it; lists boards, pages entries and removes one", async () => {
    const own = await makeProject();
    const token = await operatorToken(own.projectId, "ADMIN");
    const p = ["--project", own.projectId];
    await createLeaderboard({
      projectId: own.projectId,
      input: { id: "cli-board", name: "CLI board", sortOrder: "desc", operator: "best" },
    });
    const player = await anonymousPlayer(own.clientKey);
    const as = { key: own.clientKey, token: player.accessToken };
    expect((await api("POST", "/api/v1/leaderboards/cli-board/scores", { ...as, body: { score: 42 } })).status).toBe(200);
    const run = async <T>(args: string[]) => {
      const r = await cli(args, token);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as T;
    };
    const found = await run<{ players: Array<{ id: string }> }>(["players", "search", ...p, "--query", player.playerId]);
    expect(found.players.map((x) => x.id)).toEqual([player.playerId]);
    expect(await run<{ id: string }>(["players", "show", ...p, "--player", player.playerId])).toMatchObject({ id: player.playerId });
    await run(["players", "ban", ...p, "--player", player.playerId, "--reason", "cheating (cli)"]);
    expect((await prisma().player.findUniqueOrThrow({ where: { id: player.playerId } })).banReason).toBe("cheating (cli)");
    await run(["players", "unban", ...p, "--player", player.playerId]);
    expect((await prisma().player.findUniqueOrThrow({ where: { id: player.playerId } })).bannedAt).toBeNull();
    const boards = await run<Array<{ id: string }>>(["leaderboards", "list", ...p]);
    expect(boards.map((b) => b.id)).toEqual(["cli-board"]);
    const page = await run<{ entries: Array<{ playerId: string; score: number }> }>([
      "leaderboards",
      "entries",
      ...p,
      "--board",
      "cli-board",
    ]);
    expect(page.entries).toEqual([expect.objectContaining({ playerId: player.playerId, score: 42 })]);
    await run(["leaderboards", "remove-entry", ...p, "--board", "cli-board", "--player", player.playerId]);
    expect(await prisma().leaderboardEntry.count({ where: { projectId: own.projectId } })).toBe(0);
  });

  it("answers a usage error (exit 2) for a bad --banned value", async () => {
    const r = await cli(["players", "search", "--project", project.projectId, "--banned", "maybe"], viewerToken);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.code).toBe("USAGE");
  });
});
