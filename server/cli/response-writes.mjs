// One write system call per answer instead of two or three. Next's route handlers pipe the
// Response body into node:http through a WritableStream that flushes the headers on its first
// chunk (res.flushHeaders(): a write of its own), then writes the body and, in a later
// microtask, ends the answer (another write). On a loopback socket each write is a system call
// costing the server 90–200 µs of CPU on the 2-core machine of docs/reports/performance.md, and
// the client one more packet to read. Corking the socket from the header flush until the answer
// ends sends headers, body and the chunked terminator in one writev.

/**
 * Coalesces the writes of one answer: the socket is corked when the headers are flushed and
 * uncorked when the answer ends, or — for an answer that streams (it does not end in this turn of
 * the event loop) — at the next check phase, so a streamed chunk waits at most one loop turn.
 * @param {import("node:http").ServerResponse} res
 */
export function coalesceResponseWrites(res) {
  const flushHeaders = res.flushHeaders;
  const end = res.end;
  /** @type {import("node:net").Socket | null} */
  let corked = null;
  const uncork = () => {
    const socket = corked;
    corked = null;
    if (socket && !socket.destroyed) socket.uncork();
  };
  res.flushHeaders = function coalescedFlushHeaders() {
    const socket = this.socket;
    if (!corked && socket && !socket.destroyed && socket.writable) {
      corked = socket;
      socket.cork();
      setImmediate(uncork);
    }
    flushHeaders.call(this);
  };
  res.end = /** @type {typeof res.end} */ (
    function coalescedEnd(/** @type {any[]} */ ...args) {
      const result = end.apply(this, /** @type {Parameters<typeof res.end>} */ (args));
      uncork();
      return result;
    }
  );
}
