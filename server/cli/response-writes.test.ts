import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { coalesceResponseWrites } from "./response-writes.mjs";

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Writes to the socket layer, each one system call: `_write` for one buffer, `_writev` for several. */
function countSocketWrites(socket: Socket): { writes: number } {
  const counted = { writes: 0 };
  const s = socket as Socket & { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  const [write, writev] = [s._write, s._writev];
  s._write = function (...a: unknown[]) {
    counted.writes++;
    return write.apply(this, a);
  };
  s._writev = function (...a: unknown[]) {
    counted.writes++;
    return writev.apply(this, a);
  };
  return counted;
}

/** Answers as Next's route handlers do (server/pipe-readable.js): flush the headers on the first chunk, write it, end a microtask later. */
async function answerLikeNext(res: http.ServerResponse, chunks: string[], pause?: () => Promise<void>) {
  res.statusCode = 200;
  res.setHeader("content-type", "application/json");
  res.flushHeaders();
  for (const chunk of chunks) {
    res.write(chunk);
    await (pause ? pause() : Promise.resolve());
  }
  await Promise.resolve();
  res.end();
}

async function serve(coalesce: boolean, answer: (res: http.ServerResponse) => Promise<void>) {
  let counted: { writes: number } | undefined;
  const server = http.createServer((_req, res) => {
    if (coalesce) coalesceResponseWrites(res);
    counted = countSocketWrites(res.socket as Socket);
    void answer(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/`);
  const body = await res.text();
  return { body, writes: counted?.writes };
}

it("an answer written as Next writes it leaves in one socket write instead of three", async () => {
  const answer = (res: http.ServerResponse) => answerLikeNext(res, ['{"ok":true}']);
  expect(await serve(false, answer)).toEqual({ body: '{"ok":true}', writes: 3 });
  expect(await serve(true, answer)).toEqual({ body: '{"ok":true}', writes: 1 });
});

it("a streamed answer is not held: a chunk written after a pause leaves on its own, and the body arrives whole", async () => {
  const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
  const { body, writes } = await serve(true, (res) => answerLikeNext(res, ["a", "b", "c"], pause));
  expect(body).toBe("abc");
  expect(writes).toBeGreaterThan(1);
});
