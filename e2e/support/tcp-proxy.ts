import { connect, createServer, type Server, type Socket } from "node:net";
import { freePort } from "./global-setup";

/**
 * A loopback TCP proxy the test can cut and restore, to make a real service unreachable for
 * the app under test without stopping it for everyone else. `dropNextResponses(n)` lets the
 * next n requests reach the service and closes the client's connection as the answer starts,
 * so the service has done the work and the client never hears of it (a lost response).
 */
export type TcpProxy = { port: number; cut: () => Promise<void>; restore: () => Promise<void>; dropNextResponses: (count: number) => void };

export async function tcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let toDrop = 0;
  const restore = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(targetPort, targetHost);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        client.pipe(upstream);
        upstream.on("data", (chunk: Buffer) => {
          if (toDrop > 0) {
            toDrop--;
            client.destroy();
            upstream.destroy();
            return;
          }
          client.write(chunk);
        });
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      server.listen(port, "127.0.0.1", () => resolve());
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (!server) return resolve();
      server.close(() => resolve());
    });
  await restore();
  const dropNextResponses = (count: number) => {
    toDrop = count;
  };
  return { port, cut, restore, dropNextResponses };
}
