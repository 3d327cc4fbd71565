import { createHash } from "node:crypto";
import { env } from "../../env";
import type { RemoteConfigDefs } from "./definitions";
import type { Resolution } from "./resolve";
import type { ConfigResponse } from "./schemas";

/**
 * GET /config's answers, serialised and hashed once per definitions snapshot and decision: the
 * overrides that applied to the player (audience matched, inside the window, in the rollout) and
 * the experiment assignments decide every value, so two players with the same decisions get the
 * same bytes and ETag. Keyed by the snapshot's identity too: a new snapshot (a change, or the
 * definitions' TTL) starts fresh, and the old one's entries age out. One map per process, bounded
 * by CONFIG_ANSWER_CACHE_BYTES (the answers' UTF-8 bytes), least recently used out first.
 */

export type Answer = { text: string; etag: string };

const snapshots = new WeakMap<RemoteConfigDefs, number>();
let nextSnapshot = 0;
const answers = new Map<string, { answer: Answer; bytes: number }>();
let heldBytes = 0;

const snapshotOf = (defs: RemoteConfigDefs) => {
  let id = snapshots.get(defs);
  if (id === undefined) {
    id = nextSnapshot++;
    snapshots.set(defs, id);
  }
  return id;
};

/** What decides the answer within a snapshot: the winning overrides' ids and the assignments, in the snapshot's own order. */
export function decisionKey(defs: RemoteConfigDefs, r: Pick<Resolution, "winningOverride" | "assignments">): string {
  const overrides = Object.values(r.winningOverride).filter((id) => id !== null);
  const assignments = Object.entries(r.assignments).map(([e, v]) => `${e}=${v}`);
  return `${snapshotOf(defs)}|${overrides.join(",")}|${assignments.join(",")}`;
}

export const answerEtag = (text: string) => `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"`;

export function cachedAnswer(
  defs: RemoteConfigDefs,
  r: Pick<Resolution, "winningOverride" | "assignments">,
  body: ConfigResponse,
  budget = env().CONFIG_ANSWER_CACHE_BYTES,
): Answer {
  if (budget === 0) return serialise(body);
  const key = decisionKey(defs, r);
  const hit = answers.get(key);
  if (hit) {
    answers.delete(key);
    answers.set(key, hit);
    return hit.answer;
  }
  const answer = serialise(body);
  const bytes = Buffer.byteLength(answer.text) + key.length;
  if (bytes > budget) return answer;
  answers.set(key, { answer, bytes });
  heldBytes += bytes;
  for (const [k, e] of answers) {
    if (heldBytes <= budget) break;
    answers.delete(k);
    heldBytes -= e.bytes;
  }
  return answer;
}

function serialise(body: ConfigResponse): Answer {
  const text = JSON.stringify(body);
  return { text, etag: answerEtag(text) };
}

/** For tests: how many answers the process holds, and their bytes. */
export const answerCacheSize = () => ({ entries: answers.size, bytes: heldBytes });
