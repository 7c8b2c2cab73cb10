declare module "on-headers" {
  import type { ServerResponse } from "node:http";
  /** Calls `listener` just before `response` writes its headers (jshttp/on-headers; it ships no types). */
  export default function onHeaders(response: ServerResponse, listener: (this: ServerResponse) => void): void;
}
