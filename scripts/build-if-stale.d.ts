export function buildIfStale(): boolean;
