import { createResponseChecker } from './openapi-check';

/**
 * A minimal JSON client for driving the API as a user would. Every response is also checked
 * against the gateway's live OpenAPI description (fetched once), so the end-to-end suites verify
 * the document as a side effect of everything they do.
 */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export function apiClient(baseUrl: string, options: { checkOpenApi?: boolean } = {}) {
  let checker: Promise<ReturnType<typeof createResponseChecker>> | undefined;
  const checkerFor = () =>
    (checker ??= fetch(`${baseUrl}/openapi.json`).then(async (r) => createResponseChecker(await r.json())));
  return async function request<T = any>(
    method: string,
    path: string,
    options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (options.checkOpenApi !== false) (await checkerFor())(method, `${baseUrl}${path}`, response.status, parsed);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };
}
