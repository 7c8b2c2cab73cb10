import http from "node:http";
import net from "node:net";

/** A raw HTTP GET (fetch would decompress and hide Content-Encoding). */
export function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      const request = http.get(url, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on("error", reject);
      });
      request.setTimeout(20_000, () => request.destroy(new Error(`${url}: no answer in 20 s`)));
      request.on("error", reject);
    },
  );
}

export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/**
 * One request written on a socket of its own, exactly as given (any method token, CONNECT, a
 * forged Host), and its answer read to the connection's end: what `fetch` refuses to send.
 */
export function rawRequest(
  url: string,
  request: { method: string; target: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const headers = { host: `${hostname}:${port}`, connection: "close", ...request.headers };
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`${head}\r\n\r\n${request.body ?? ""}`);
    });
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () =>
      socket.destroy(new Error(`${request.method} ${request.target}: no answer in 20 s`)),
    );
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end === -1)
        return reject(new Error(`${request.method} ${request.target}: no answer (${text.length} bytes)`));
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const answerHeaders: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        const name = line.slice(0, at).trim().toLowerCase();
        const value = line.slice(at + 1).trim();
        answerHeaders[name] = answerHeaders[name] ? `${answerHeaders[name]}, ${value}` : value;
      }
      let body = text.slice(end + 4);
      if (/chunked/i.test(answerHeaders["transfer-encoding"] ?? "")) body = dechunk(body);
      resolve({
        status: Number(statusLine!.split(" ")[1]),
        headers: answerHeaders,
        body: Buffer.from(body, "latin1").toString("utf8"),
      });
    });
  });
}

function dechunk(text: string): string {
  let body = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    if (lineEnd === -1) return body;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!size) return body;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
