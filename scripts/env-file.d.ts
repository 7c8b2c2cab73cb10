export function loadEnvFile(
  dir?: string,
  env?: Record<string, string | undefined>,
): { file: string | null; names: string[] };
