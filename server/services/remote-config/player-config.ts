import type { PlayerActor } from "../../actor";
import { cachedAnswer } from "./answer-cache";
import { type RemoteConfigDefs, remoteConfigDefs } from "./definitions";
import { isLive, recordAssignments, resolveConfig } from "./resolve";
import type { ConfigResponse } from "./schemas";

/**
 * GET /config: the signed-in player's values and experiment assignments, with a strong ETag (a
 * hash of the answer's bytes) so a client polls with If-None-Match for a 304. Definitions come from the
 * per-process cache: a project without audience overrides or running experiments answers without
 * any query; otherwise one statement evaluates the audiences (and reads stored assignments), and
 * a first exposure to a running experiment stores the assignment (then, when an audience in use
 * names an experiment, evaluates again, so the new assignment counts in this very answer).
 */
export async function playerConfig(o: { actor: PlayerActor; now?: Date }): Promise<{ body: ConfigResponse; text: string; etag: string }> {
  const { projectId, playerId } = o.actor;
  const defs = await remoteConfigDefs(projectId);
  const now = o.now ?? new Date();
  let r = await resolveConfig({ projectId, playerId, defs, now });
  const chained = namesAnExperiment(defs, now);
  // A round stores at least one new assignment (unless an experiment was deleted since the
  // definitions were cached): at most one round per experiment.
  for (let round = 0; round <= defs.experiments.length && Object.keys(r.newAssignments).length > 0; round++) {
    const stored = await recordAssignments(projectId, playerId, r.newAssignments);
    // A parallel request stored another variant first (weights changed in between): resolve again with it.
    const differs = Object.entries(stored).some(([id, v]) => r.newAssignments[id] !== v);
    // An audience naming an experiment matches once the assignment is stored: resolve again, at the
    // first exposure already (an override for variant B's players, an experiment over another's players).
    if (!differs && !chained) break;
    r = await resolveConfig({ projectId, playerId, defs, now });
  }
  const body: ConfigResponse = { values: r.values, assignments: r.assignments, version: defs.version };
  // The same decisions in the same snapshot: the same bytes, serialised and hashed once (./answer-cache.ts).
  return { body, ...cachedAnswer(defs, r, body) };
}

/** A live override or running experiment is for an audience with an experiment rule. */
function namesAnExperiment(defs: RemoteConfigDefs, now: Date): boolean {
  const audienceIds = [
    ...defs.overrides.filter((ov) => isLive(ov, now)).map((ov) => ov.audienceId),
    ...defs.experiments.filter((e) => e.status === "running").map((e) => e.audienceId),
  ];
  return audienceIds.some((id) => id !== null && defs.audiences.get(id)?.rules.all.some((rule) => rule.field === "experiment"));
}

/** If-None-Match holds this ETag (a list, or *). */
export function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag === etag || tag === `W/${etag}`;
  });
}
