import http from "node:http";

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
