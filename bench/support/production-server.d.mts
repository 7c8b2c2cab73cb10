export const root: string;

export interface ProductionServer {
  base: string;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
}

export function startProductionServer(options?: {
  dataDir?: string;
  env?: Record<string, string>;
}): Promise<ProductionServer>;
