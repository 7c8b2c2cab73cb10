// Lengths of time in milliseconds, for date arithmetic on the server.
export const DAY_MS = 86_400_000;
