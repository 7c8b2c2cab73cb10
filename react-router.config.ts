import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  future: {
    // Loaders and actions get the request as it came (their `url` argument is the normalised
    // URL) instead of two copies per call; each copy of a Request with a signal is held by a
    // WeakRef until a full GC (decision 058).
    v8_passThroughRequests: true,
  },
} satisfies Config;
