import { useRouteLoaderData } from "react-router";
import type { PublicConfig } from "#server/config.ts";

export type { PublicConfig };

export const FALLBACK_PUBLIC_CONFIG: PublicConfig = {
  demo: false,
  brandName: "NaijaLink",
  supportEmail: "support@naijalink.example",
  publicUrl: "",
  tutorialVideoId: null,
};

/** Brand, support address and other non-secret settings, from the root loader. */
export function usePublicConfig(): PublicConfig {
  const data = useRouteLoaderData("root") as { publicConfig: PublicConfig } | undefined;
  return data?.publicConfig ?? FALLBACK_PUBLIC_CONFIG;
}
