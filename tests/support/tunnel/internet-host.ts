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

/**
 * Two streaming services on the internet host, port 8081 (decision 133's tunnel test): `/open`
 * welcomes everyone ("Watch now"), `/geo` redirects callers from `refused` to a block page, as a
 * service that blocks a data-centre range does. Each request's caller is logged, so a test sees
 * which address the checks came from.
 */
export async function startStreamingStandIn(
  namespace: string,
  refused: string,
): Promise<{ callers: () => string[]; stop(): void }> {
  const script = `
    const http = require("node:http");
    http.createServer((request, response) => {
      const caller = request.socket.remoteAddress.replace(/^::ffff:/, "");
      console.log("caller " + caller + " " + request.url);
      if (request.url === "/geo" && caller === ${JSON.stringify(refused)}) {
        response.writeHead(302, { location: "/unavailable-in-your-region" });
        return response.end();
      }
      if (request.url === "/open" || request.url === "/geo") return response.end("<h1>Watch now</h1>");
      response.writeHead(404);
      response.end("Not here");
    }).listen(8081, "0.0.0.0", () => console.log("listening"));`;
  let output = "";
  const child = spawn("ip", ["netns", "exec", namespace, process.execPath, "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk));
  await waitFor("the streaming stand-in's web server", async () => output.includes("listening"), 15_000);
  return {
    callers: () => [...output.matchAll(/^caller (\S+) (\S+)$/gm)].map((match) => `${match[1]} ${match[2]}`),
    stop: () => void child.kill(),
  };
}
