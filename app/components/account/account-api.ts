// The account page's calls to /api/account/* (decision 067); the session cookie goes along.
import { postJson, type JsonCallResult } from "#app/lib/json-call.ts";

export type AccountCallResult<T> = JsonCallResult<T>;

export function accountCall<T = unknown>(path: string, body: unknown): Promise<AccountCallResult<T>> {
  return postJson<T>(`/api/account/${path}`, body);
}

export const DEVICE_LIMIT_ERROR = "Device limit reached";
