// The internet host of a HostileNetwork: a small web server in its namespace.
import { spawn } from "node:child_process";
import { waitFor } from "./host.ts";

/**
 * The internet host's web server on port 8080 (IPv4 and IPv6): `/` answers the caller's address,
 * `/bytes/N` sends N bytes, a POST answers how many bytes it received.
 */
export async function startInternetHost(namespace: string): Promise<void> {
  const script = `
    const http = require("node:http");
    const chunk = Buffer.alloc(65536, 97);
    http.createServer((request, response) => {
      if (request.method === "POST") {
        let received = 0;
        request.on("data", (data) => (received += data.length));
        request.on("end", () => response.end(String(received)));
        return;
      }
      const size = /^\\/bytes\\/(\\d+)$/.exec(request.url);
      if (!size) return response.end(request.socket.remoteAddress.replace(/^::ffff:/, ""));
      let left = Number(size[1]);
      response.writeHead(200, { "content-length": left });
      const pump = () => {
        while (left > 0) {
          const part = chunk.subarray(0, Math.min(chunk.length, left));
          left -= part.length;
          if (!response.write(part)) return void response.once("drain", pump);
        }
        response.end();
      };
      pump();
    }).listen(8080, "::", () => console.log("listening"));`;
  let output = "";
  const child = spawn("ip", ["netns", "exec", namespace, process.execPath, "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk));
  await waitFor("the internet host's web server", async () => output.includes("listening"), 15_000);
}
