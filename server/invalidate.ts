import { broadcast } from "./cluster";
import { afterTransaction, inTransaction } from "./db";

/**
 * Drops a cache entry in this process and in every sibling worker (server/cluster.ts), resolving
 * once they all have. Inside a transaction the change is not committed yet: a sibling could read
 * the old row again and cache it before the commit, so every process drops it once more when
 * the transaction has ended.
 */
export async function invalidateEverywhere(topic: string, payload: unknown, here: () => void): Promise<void> {
  here();
  await broadcast(topic, payload);
  if (!inTransaction()) return;
  afterTransaction(() => {
    here();
    void broadcast(topic, payload);
  });
}
