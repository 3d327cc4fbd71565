import { inTransaction, transaction } from "../../db";
import { mayHaveEndpoints } from "./events";

/**
 * Runs a change that emits events so that its events commit with it: inside a transaction when
 * the project may have an endpoint, as it is when it is known to have none (the hot paths keep
 * their single statement and no BEGIN/COMMIT). `emitting` is true when events should be emitted.
 */
export function withEvents<T>(projectId: string, work: (emitting: boolean) => Promise<T>): Promise<T> {
  if (!mayHaveEndpoints(projectId)) return work(false);
  if (inTransaction()) return work(true);
  return transaction(() => work(true));
}
