import createFetchClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './generated/openapi';
import { type RetryBudget, type RetryBudgetOptions, type RetryPolicy, DEFAULT_RETRY_POLICY, createRetryBudget } from './retry';
import { type CallOptions, send } from './transport';

type Api = Client<paths, 'application/json'>;
export type Method = 'get' | 'post' | 'patch' | 'delete';
/** The paths that offer `M`, as the document lists them. */
export type PathsWith<M extends Method> = ClientPathsWithMethod<Api, M>;
/** The second argument of a call: `params` (`path`, `query`), `body`, `headers`, `signal`, and CallOptions. */
export type CallInit<M extends Method, P extends PathsWith<M>> = NonNullable<MaybeOptionalInit<paths[P], M>> & CallOptions;
type CallArgs<M extends Method, P extends PathsWith<M>> =
  undefined extends MaybeOptionalInit<paths[P], M> ? [init?: CallInit<M, P>] : [init: CallInit<M, P>];
type Data<M extends Method, P extends PathsWith<M>> = NonNullable<FetchResponse<paths[P][M] & Record<string | number, any>, {}, 'application/json'>['data']>;
/** The body of a call's 2xx answer (`{data}` for a record, the page for a list, void for a 204). */
export type Answer<M extends Method, P extends PathsWith<M>> = [Data<M, P>] extends [never] ? void : Data<M, P>;

/** The GET paths that answer a page (`{data: [...], has_more, next_cursor}`), so `paginate` takes them. */
export type ListPath = {
  [P in PathsWith<'get'>]: Answer<'get', P> extends { data: readonly unknown[]; has_more: boolean } ? P : never;
}[PathsWith<'get'>];
export type Page<P extends ListPath> = Answer<'get', P>;
export type Item<P extends ListPath> = Page<P> extends { data: readonly (infer T)[] } ? T : never;

/** Every page of a list, in order, then every record of them: `for await (const c of crm.paginate(...))`. */
export interface Paginated<P extends ListPath> extends AsyncIterable<Item<P>> {
  /** The pages themselves (`data`, `has_more`, `next_cursor`), for progress or batching. */
  pages(): AsyncIterable<Page<P>>;
  /** Every record, up to `max` (default 10,000, so a forgotten filter does not read a million). */
  toArray(options?: { max?: number }): Promise<Item<P>[]>;
}

export interface CrmClientOptions {
  /** The gateway's address, e.g. `http://127.0.0.1:8080` (paths start with `/v1`). */
  baseUrl: string;
  /** `svc_<env>_...`, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Per attempt, in ms (default 30 s; 0: none). A call can also take an AbortSignal. */
  timeoutMs?: number;
  /** Retries and their waits; see DEFAULT_RETRY_POLICY. */
  retry?: Partial<RetryPolicy>;
  /** The budget every call of this client shares (default: 10 tokens, 0.1 back per success). */
  retryBudget?: RetryBudget | RetryBudgetOptions;
  /** A fetch of your own (a proxy agent, a test double); default globalThis.fetch. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request (e.g. `X-Request-Id`). */
  headers?: Record<string, string>;
  /** Makes Idempotency-Keys (default crypto.randomUUID()). */
  idempotencyKey?: () => string;
  /** Randomness of the jitter (tests). */
  random?: () => number;
}

export interface CrmClient {
  /** One typed call per operation: the path as the document writes it, and its params and body. */
  GET<P extends PathsWith<'get'>>(path: P, ...init: CallArgs<'get', P>): Promise<Answer<'get', P>>;
  POST<P extends PathsWith<'post'>>(path: P, ...init: CallArgs<'post', P>): Promise<Answer<'post', P>>;
  PATCH<P extends PathsWith<'patch'>>(path: P, ...init: CallArgs<'patch', P>): Promise<Answer<'patch', P>>;
  DELETE<P extends PathsWith<'delete'>>(path: P, ...init: CallArgs<'delete', P>): Promise<Answer<'delete', P>>;
  /** Follows `next_cursor` until `has_more` is false; the query stays the one given (the cursor is bound to it). */
  paginate<P extends ListPath>(path: P, ...init: CallArgs<'get', P>): Paginated<P>;
  /** The retry budget this client's calls share. */
  readonly retryBudget: RetryBudget;
}

const CALL_OPTION_KEYS = ['timeoutMs', 'maxRetries', 'idempotencyKey'] as const;

export function createCrmClient(options: CrmClientOptions): CrmClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const budget = options.retryBudget && 'onFailure' in options.retryBudget ? options.retryBudget : createRetryBudget(options.retryBudget);
  const transport = {
    fetch: options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init)),
    policy,
    budget,
    timeoutMs: options.timeoutMs ?? 30_000,
    newIdempotencyKey: options.idempotencyKey ?? (() => globalThis.crypto.randomUUID()),
    random: options.random ?? Math.random,
  };
  const raw = createFetchClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
  });

  async function call(method: Method, path: string, init: object = {}): Promise<unknown> {
    const rest: Record<string, unknown> = { ...(init as Record<string, unknown>) };
    const callOptions: CallOptions = {};
    for (const key of CALL_OPTION_KEYS) {
      if (key in rest) (callOptions as Record<string, unknown>)[key] = rest[key];
      delete rest[key];
    }
    // Errors are thrown by `send`, so openapi-fetch only ever sees a 2xx here.
    const result = await raw.request(method, path as never, { ...rest, fetch: (request: Request) => send(request, callOptions, transport) } as never);
    return (result as { data?: unknown }).data;
  }

  function paginate(path: string, given: object = {}) {
    const init = given as Record<string, unknown>;
    async function* pages() {
      const params = (init.params ?? {}) as { query?: Record<string, unknown> };
      let cursor = params.query?.cursor as string | undefined;
      for (;;) {
        const query = { ...params.query, ...(cursor ? { cursor } : {}) };
        const page = (await call('get', path, { ...init, params: { ...params, query } })) as { data: unknown[]; has_more: boolean; next_cursor?: string | null };
        yield page;
        if (!page.has_more || !page.next_cursor) return;
        cursor = page.next_cursor;
      }
    }
    async function* items() {
      for await (const page of pages()) yield* page.data;
    }
    return {
      [Symbol.asyncIterator]: () => items(),
      pages,
      async toArray({ max = 10_000 }: { max?: number } = {}) {
        const all: unknown[] = [];
        for await (const item of items()) {
          if (all.length >= max) throw new RangeError(`more than ${max} records; pass a larger max or iterate instead`);
          all.push(item);
        }
        return all;
      },
    };
  }

  return {
    GET: (path, ...init) => call('get', path, init[0]),
    POST: (path, ...init) => call('post', path, init[0]),
    PATCH: (path, ...init) => call('patch', path, init[0]),
    DELETE: (path, ...init) => call('delete', path, init[0]),
    paginate: (path, ...init) => paginate(path, init[0]),
    retryBudget: budget,
  } as CrmClient;
}
