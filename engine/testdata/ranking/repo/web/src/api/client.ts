// A fetch wrapper for the Shipyard API: JSON in and out, bearer token,
// one retry after a 429 Too Many Requests.

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

export async function request<T>(path: string, token: string, init: RequestInit = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(path, {
      ...init,
      headers: { ...(init.headers || {}), Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    });
    if (res.status === 429 && attempt === 0) {
      const wait = Number(res.headers.get("Retry-After") || "1");
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      continue;
    }
    if (!res.ok) {
      throw new ApiError(res.status, `request to ${path} failed with status ${res.status}`);
    }
    return (await res.json()) as T;
  }
}
