// The account page's calls to /api/account/* (decision 067); the session cookie goes along.

export interface AccountCallResult<T> {
  ok: boolean;
  status: number;
  data?: T;
  error?: string;
  message?: string;
}

export async function accountCall<T = unknown>(path: string, body: unknown): Promise<AccountCallResult<T>> {
  try {
    const response = await fetch(`/api/account/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json().catch(() => ({}))) as T & { error?: string; message?: string };
    if (response.ok) return { ok: true, status: response.status, data: json };
    return { ok: false, status: response.status, error: json.error, message: json.message };
  } catch {
    return { ok: false, status: 0, message: "No connection. Please check your network and try again." };
  }
}

export const DEVICE_LIMIT_ERROR = "Device limit reached";
