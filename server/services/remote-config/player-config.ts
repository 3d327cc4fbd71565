import { createHash } from "node:crypto";
import type { PlayerActor } from "../../actor";
import { remoteConfigDefs } from "./definitions";
import { recordAssignments, resolveConfig } from "./resolve";
import type { ConfigResponse } from "./schemas";

/**
 * GET /config: the signed-in player's values and experiment assignments, with a strong ETag (a
 * hash of the answer) so a client polls with If-None-Match for a 304. Definitions come from the
 * per-process cache: a project without audience overrides or running experiments answers without
 * any query; otherwise one statement evaluates the audiences (and reads stored assignments), and
 * a first exposure to a running experiment stores the assignment.
 */
export async function playerConfig(o: { actor: PlayerActor; now?: Date }): Promise<{ body: ConfigResponse; etag: string }> {
  const { projectId, playerId } = o.actor;
  const defs = await remoteConfigDefs(projectId);
  const r = await resolveConfig({ projectId, playerId, defs, now: o.now ?? new Date() });
  let assignments = r.assignments;
  if (Object.keys(r.newAssignments).length > 0) {
    const stored = await recordAssignments(projectId, playerId, r.newAssignments);
    // A parallel request stored another variant first (weights changed in between): resolve again with it.
    const differs = Object.entries(stored).some(([id, v]) => r.newAssignments[id] !== v);
    if (differs) {
      const again = await resolveConfig({ projectId, playerId, defs, now: o.now ?? new Date() });
      assignments = again.assignments;
      r.values = again.values;
    }
  }
  const body: ConfigResponse = { values: r.values, assignments, version: defs.version };
  return { body, etag: configEtag(body) };
}

export const configEtag = (body: ConfigResponse) =>
  `"${createHash("sha256").update(JSON.stringify(body)).digest("base64url").slice(0, 27)}"`;

/** If-None-Match holds this ETag (a list, or *). */
export function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag === etag || tag === `W/${etag}`;
  });
}
