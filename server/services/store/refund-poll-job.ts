import { handle, QUEUES } from "../../queue";
import { pollDueRefunds } from "./notifications";

/** The minute job (once per cluster): store refunds of every project whose poll is due. */
export function registerStoreRefundPolls(): void {
  handle(QUEUES.storeRefundPoll, () => pollDueRefunds());
}
