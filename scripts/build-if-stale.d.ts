export function buildIsStale(): boolean;
export function buildIfStale(): boolean;
