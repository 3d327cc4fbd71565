import { connect } from "node:net";

/**
 * A raw HTTP/1.1 client for requests fetch refuses to send: invalid bytes in header values,
 * bare CR or LF, lying Content-Length, odd methods and request targets. It writes the bytes
 * as given and parses every answer the server writes back on the connection (a request whose
 * Content-Length is shorter than its body leaves bytes the server reads as a second request).
 */
export type RawAnswer = { status: number; headers: Record<string, string>; body: Buffer };
export type RawExchange = {
  answers: RawAnswer[];
  /** Bytes after the last complete answer: a truncated or garbled answer. */
  leftover: Buffer;
  timedOut: boolean;
  /** A socket error (ECONNRESET…) seen before the connection closed. */
  error: string | null;
};

export type RawOptions = {
  /** Close our side after writing (a Content-Length longer than the body then ends in the server's parser). */
  halfClose?: boolean;
  /** The first answer is to a HEAD request: no body whatever its headers say. */
  headFirst?: boolean;
  timeoutMs?: number;
};

export function rawExchange(port: number, request: Buffer, o: RawOptions = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = Buffer.alloc(0);
    let timedOut = false;
    let error: string | null = null;
    socket.setNoDelay(true);
    socket.setTimeout(o.timeoutMs ?? 15_000, () => {
      timedOut = true;
      socket.destroy();
    });
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on("close", () => {
      const { answers, rest } = parseAnswers(data, o.headFirst === true, true);
      resolve({ answers, leftover: rest, timedOut, error });
    });
    socket.write(request, () => {
      if (o.halfClose) socket.end();
    });
  });
}

/** Parses complete HTTP/1.1 answers off the front of `data`; 1xx interim answers are skipped. */
export function parseAnswers(data: Buffer, headFirst: boolean, closed: boolean): { answers: RawAnswer[]; rest: Buffer } {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf("\r\n\r\n", at);
    if (headEnd === -1) break;
    const [statusLine = "", ...lines] = data.toString("latin1", at, headEnd).split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
    if (Number.isNaN(status)) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      headers[name] = headers[name] === undefined ? line.slice(colon + 1).trim() : `${headers[name]}, ${line.slice(colon + 1).trim()}`;
    }
    let bodyStart = headEnd + 4;
    if (status < 200) {
      at = bodyStart;
      continue;
    }
    const noBody = (headFirst && answers.length === 0) || status === 204 || status === 304;
    let body: Buffer;
    if (noBody) {
      body = Buffer.alloc(0);
    } else if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
      const chunks: Buffer[] = [];
      let complete = false;
      for (;;) {
        const lineEnd = data.indexOf("\r\n", bodyStart);
        if (lineEnd === -1) break;
        const size = Number.parseInt(data.toString("latin1", bodyStart, lineEnd), 16);
        if (Number.isNaN(size) || data.length < lineEnd + 2 + size + 2) break;
        if (size === 0) {
          const trailerEnd = data.indexOf("\r\n", lineEnd + 2);
          if (trailerEnd === -1) break;
          bodyStart = trailerEnd + 2;
          complete = true;
          break;
        }
        chunks.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        bodyStart = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(chunks);
    } else if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      if (data.length < bodyStart + length) break;
      body = data.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    } else {
      // Delimited by the end of the connection.
      if (!closed) break;
      body = data.subarray(bodyStart);
      bodyStart = data.length;
    }
    answers.push({ status, headers, body });
    at = bodyStart;
  }
  return { answers, rest: data.subarray(at) };
}
