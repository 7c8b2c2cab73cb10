export const AGENT_BUNDLE: string;
export function buildAgent(outfile?: string): Promise<string>;
