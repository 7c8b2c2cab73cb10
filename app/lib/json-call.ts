// The browser's calls to this app's JSON endpoints: POST a body, get the answer or its { error, message }.

export interface JsonCallResult<T> {
  ok: boolean;
  status: number;
  data?: T;
  error?: string;
  message?: string;
}

export async function postJson<T = unknown>(url: string, body: unknown): Promise<JsonCallResult<T>> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(body),
    });
    const json = (await response.json().catch(() => ({}))) as T & { error?: string; message?: string };
    if (response.ok) return { ok: true, status: response.status, data: json };
    return { ok: false, status: response.status, error: json.error, message: json.message };
  } catch {
    return { ok: false, status: 0, message: "No connection. Please check your network and try again." };
  }
}
