import fc from 'fast-check';
import { createCursorCodec } from './cursor';
import { newId } from './ids';
import { compileListQuery, compileSearchWindow } from './keyset-sql';
import { type ListQuery, isShortSearch, parseListQuery } from './list-query';
import { type FieldSpec, type ResourceSpec, baseFields, defineResource, searchColumnSql } from './resource';
import { createResourceStore } from './resource-store';
import type { SqlClient } from './sql';
import { sqlBackends } from './testing/sql-backends';
import { OUTBOX_MIGRATION_SQL } from './events';

/**
 * The keyset compiler against an oracle: rows with many ties and nulls are paged through with every
 * sort shape, and the concatenated pages must equal the same rows sorted in memory by the rules of
 * gateway/README.md, Lists (nulls last in both directions, id as the final tie-breaker in the first key's direction).
 */
const things = defineResource({
  name: 'things',
  singular: 'thing',
  table: 'things',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    label: { type: 'string', sort: true, search: true, filter: true },
    rank: { type: 'integer', sort: true, filter: true },
    due_at: { type: 'datetime', sort: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});

/** The same rows, with a second name for created_at whose queries use created_at's column (sameAs). */
const twins = defineResource({
  ...things,
  name: 'twins',
  timeField: 'posted_at',
  fields: { ...things.fields, posted_at: { type: 'datetime', readOnly: true, nullable: false, sort: true, filter: true, sameAs: 'created_at' } },
});

/** The same rows, searched through a stored search column (the search window applies). */
const found = defineResource({ ...things, name: 'found', searchColumn: 'search_text' });

const WS = newId();
const OTHER_WS = newId();
type Row = { id: string; label: string | null; rank: number | null; due_at: string | null; created_at: string; updated_at: string };

function seededRandom(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

function oracle(rows: Row[], query: ListQuery): string[] {
  const firstDir = query.sort[0]!.direction === 'asc' ? 1 : -1;
  return [...rows]
    .sort((x, y) => {
      for (const { field, direction } of query.sort) {
        const a = x[field as keyof Row];
        const b = y[field as keyof Row];
        if (a === null && b === null) continue;
        if (a === null) return 1;
        if (b === null) return -1;
        const c = compare(a, b);
        if (c) return direction === 'asc' ? c : -c;
      }
      return compare(x.id, y.id) * firstDir;
    })
    .map((r) => r.id);
}

describe.each(sqlBackends())('keyset pagination on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  const rows: Row[] = [];
  const store = () => createResourceStore({ db, spec: things, cursors: createCursorCodec('x'.repeat(32)) });

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_keyset'));
    await db.query(OUTBOX_MIGRATION_SQL);
    await db.query(`CREATE TABLE things (
      id uuid PRIMARY KEY, workspace_id uuid NOT NULL, svc_uid text, label text, rank int,
      due_at timestamptz(3), custom jsonb NOT NULL DEFAULT '{}', created_at timestamptz(3) NOT NULL, updated_at timestamptz(3) NOT NULL,
      posted_at timestamptz(3) GENERATED ALWAYS AS (created_at) STORED,
      search_text text GENERATED ALWAYS AS (lower(coalesce(label, ''))) STORED)`);
    const random = seededRandom(42);
    // Lower-case only: the oracle compares by code point, the database by its collation.
    const labels = ['alpha', 'beta', 'epsilon', 'gamma', 'delta'];
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 157; i++) {
      const created = new Date(base + Math.floor(random() * 10) * 1_000).toISOString();
      const row: Row = {
        id: newId(),
        label: random() < 0.25 ? null : labels[Math.floor(random() * labels.length)]!,
        rank: random() < 0.3 ? null : Math.floor(random() * 4),
        due_at: random() < 0.3 ? null : new Date(base + Math.floor(random() * 5) * 3_600_000).toISOString(),
        // Many equal creation times, so the id tie-breaker is exercised on the default order.
        created_at: created,
        updated_at: created,
      };
      rows.push(row);
    }
    for (const ws of [WS, OTHER_WS]) {
      for (const r of rows) {
        await db.query(
          `INSERT INTO things (id, workspace_id, label, rank, due_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`,
          [ws === WS ? r.id : newId(), ws, r.label, r.rank, r.due_at, r.created_at],
        );
      }
    }
  });
  afterAll(async () => drop());

  const sorts = [undefined, 'label', '-label', 'rank', '-rank', 'due_at', '-due_at', 'created_at', '-updated_at', 'rank,label', '-rank,label', 'label,-due_at', '-due_at,-rank,label'];

  test.each(sorts.map((s) => [s ?? '(default)', s]))('sort %s pages exactly through the oracle order', async (_name, sort) => {
    for (const limit of [1, 7, 50]) {
      const raw = { limit: String(limit), ...(sort ? { sort } : {}) };
      const expected = oracle(rows, parseListQuery(things, raw));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store().list(WS, parseListQuery(things, { ...raw, ...(cursor ? { cursor } : {}) }));
        expect(page.data.length).toBeLessThanOrEqual(limit);
        seen.push(...page.data.map((r) => r.id as string));
        expect(page.hasMore).toBe(page.nextCursor !== null);
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor && pages < 500);
      expect(seen).toEqual(expected);
    }
  });

  test('filters, bounds and q combine with paging and stay inside the workspace', async () => {
    const raw = { rank: '2', since: '2026-01-01T00:00:03Z', until: '2026-01-01T00:00:08Z', q: 'ETA', limit: '3', sort: 'label' };
    const query = parseListQuery(things, raw);
    const expected = oracle(
      rows.filter((r) => r.rank === 2 && r.created_at >= '2026-01-01T00:00:03.000Z' && r.created_at < '2026-01-01T00:00:08.000Z' && (r.label ?? '').toLowerCase().includes('eta')),
      query,
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store().list(WS, parseListQuery(things, { ...raw, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.data.map((r) => r.id as string));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(expected.length).toBeGreaterThan(0);
    expect(seen).toEqual(expected);
  });

  test('q treats LIKE wildcards literally', async () => {
    const page = await store().list(WS, parseListQuery(things, { q: '%_%' }));
    expect(page.data).toEqual([]);
  });

  test('a cursor replayed with another sort, filter or workspace is refused', async () => {
    const first = await store().list(WS, parseListQuery(things, { limit: '5', sort: 'label' }));
    const cursor = first.nextCursor!;
    await expect(store().list(WS, parseListQuery(things, { cursor, sort: '-label' }))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(store().list(WS, parseListQuery(things, { cursor, sort: 'label', rank: '1' }))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(store().list(OTHER_WS, parseListQuery(things, { cursor, sort: 'label' }))).rejects.toMatchObject({ code: 'invalid_request' });
    // The page size may change between pages.
    const next = await store().list(WS, parseListQuery(things, { cursor, sort: 'label', limit: '10' }));
    expect(next.data).toHaveLength(10);
  });

  test('a field with sameAs is filtered, bounded and sorted on its twin column', async () => {
    const raw = { since: '2026-01-01T00:00:02Z', until: '2026-01-01T00:00:09Z', sort: 'posted_at', limit: '7' };
    const compiled = compileListQuery(twins, 'id', WS, parseListQuery(twins, { ...raw, posted_at: '2026-01-01T00:00:05Z' }), undefined);
    expect(compiled.text).not.toMatch(/posted_at/);
    expect(compiled.text).toMatch(/created_at = .* created_at >= .* created_at < .* ORDER BY created_at ASC/);
    const twinStore = createResourceStore({ db, spec: twins, cursors: createCursorCodec('x'.repeat(32)) });
    const expected = oracle(
      rows.filter((r) => r.created_at >= '2026-01-01T00:00:02.000Z' && r.created_at < '2026-01-01T00:00:09.000Z'),
      parseListQuery(things, { ...raw, sort: 'created_at' }),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await twinStore.list(WS, parseListQuery(twins, { ...raw, ...(cursor ? { cursor } : {}) }));
      for (const r of page.data) expect(r.posted_at).toBe(r.created_at);
      seen.push(...page.data.map((r) => r.id as string));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(expected.length).toBeGreaterThan(7);
    expect(seen).toEqual(expected);
  });

  test.each([2, 10, 40, 1_000])('a search pages exactly through the oracle order with a window of %i rows', async (windowSize) => {
    let windows = 0;
    let filled = 0;
    const counting: SqlClient = {
      ...db,
      query: async (text: string, params?: unknown[]) => {
        const result = await db.query(text, params);
        if (text.includes(') AS w WHERE')) {
          windows++;
          if (result.rows.length > Number(/LIMIT (\d+)\) ORDER BY/.exec(text)![1]) - 1) filled++;
        }
        return result;
      },
    } as SqlClient;
    const searched = createResourceStore({ db: counting, spec: found, cursors: createCursorCodec('x'.repeat(32)), searchWindow: windowSize });
    for (const raw of [
      { q: 'eta' },
      { q: 'ALP', sort: 'created_at' },
      { q: 'mma', since: '2026-01-01T00:00:02Z', until: '2026-01-01T00:00:08Z' },
      { q: 'zzz' },
      { q: 'eta', sort: 'label' },
    ]) {
      for (const limit of [1, 7, 50]) {
        const query = parseListQuery(found, { ...raw, limit: String(limit) });
        const expected = oracle(
          rows.filter(
            (r) =>
              (r.label ?? '').includes(raw.q.toLowerCase()) &&
              (!raw.since || r.created_at >= new Date(raw.since).toISOString()) &&
              (!raw.until || r.created_at < new Date(raw.until).toISOString()),
          ),
          query,
        );
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await searched.list(WS, parseListQuery(found, { ...raw, limit: String(limit), ...(cursor ? { cursor } : {}) }));
          seen.push(...page.data.map((r) => r.id as string));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(seen).toEqual(expected);
      }
    }
    // The window was asked first each time; from 10 rows on it answered some pages itself (at 2,
    // no page of these searches fits in it).
    expect(windows).toBeGreaterThan(0);
    if (windowSize >= 10) expect(filled).toBeGreaterThan(0);
  });

  test('the search window applies only to a search in the time order without other filters', () => {
    const compile = (raw: Record<string, string>) => compileSearchWindow(found, 'id', WS, parseListQuery(found, raw), undefined);
    expect(compile({ q: 'eta' })?.text).toMatch(/LIMIT 20000\) AS w WHERE search_text LIKE lower\(\$2::text\) ORDER BY created_at DESC, id DESC LIMIT 51\)/);
    expect(compile({ q: 'eta', sort: 'created_at', since: '2026-01-01T00:00:00Z' })).toBeDefined();
    expect(compile({})).toBeUndefined();
    expect(compile({ q: 'eta', rank: '1' })).toBeUndefined();
    expect(compile({ q: 'eta', updated_since: '2026-01-01T00:00:00Z' })).toBeUndefined();
    expect(compile({ q: 'eta', sort: '-updated_at' })).toBeUndefined();
    expect(compile({ q: 'eta', sort: 'created_at,label' })).toBeUndefined();
    expect(compileSearchWindow(things, 'id', WS, parseListQuery(things, { q: 'eta' }), undefined)).toBeUndefined();
  });

  test('updated_since is strictly greater', async () => {
    const at = rows[0]!.created_at;
    const page = await store().list(WS, parseListQuery(things, { updated_since: at, limit: '100', sort: 'created_at' }));
    expect(page.data.every((r) => (r.updated_at as string) > at)).toBe(true);
  });
});

describe('sameAs', () => {
  const spec = (posted: FieldSpec) => () => defineResource({ ...things, name: 'twins', fields: { ...things.fields, posted_at: posted } });
  test('names another field of the same type and nullability', () => {
    expect(spec({ type: 'datetime', readOnly: true, nullable: false, sort: true, sameAs: 'created_at' })).not.toThrow();
    expect(spec({ type: 'datetime', sort: true, sameAs: 'nowhere' })).toThrow(/posted_at: sameAs names nowhere/);
    expect(spec({ type: 'datetime', sort: true, sameAs: 'toString' })).toThrow(/sameAs names toString/);
    expect(spec({ type: 'string', readOnly: true, nullable: false, sameAs: 'created_at' })).toThrow(/same type/);
    expect(spec({ type: 'datetime', nullable: true, sameAs: 'created_at' })).toThrow(/nullability/);
  });
});

/**
 * Short terms (fewer than 3 characters): each page examines a bounded number of rows and resumes
 * after the last one it examined. Against a naive filter: over generated rows with `%`, `_`, `\`,
 * spaces, multi-byte characters and both cases, in two fields, searched field by field and through
 * a search column, in every kind of order, the pages together give exactly the matching records in
 * the list's order, each once.
 */
const notes = defineResource({
  name: 'notes',
  singular: 'note',
  table: 'notes',
  timeField: 'created_at',
  maxLimit: 100,
  customFields: true,
  fields: {
    id: baseFields.id,
    svc_uid: baseFields.svc_uid,
    title: { type: 'string', sort: true, search: true },
    body: { type: 'text', search: true },
    rank: { type: 'integer', sort: true, filter: true },
    created_at: { ...baseFields.created_at, sort: true },
    updated_at: { ...baseFields.updated_at, sort: true },
  },
});
const notesByColumn = defineResource({ ...notes, name: 'notes_by_column', searchColumn: 'search_text' });

/** Case pairs JavaScript and both databases fold alike (no İ, no final sigma), and characters without case. */
const LETTERS = ['a', 'A', 'b', 'B', 'ø', 'Ø', 'é', 'É', 'ж', 'Ж', '%', '_', '\\', ' ', '.', '😀', '中'];
type Note = { id: string; title: string | null; body: string | null; rank: number | null; created_at: string };

describe.each(sqlBackends())('short search terms on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  /** Every statement the stores ran, to tell the walk from the other plans. */
  const statements: string[] = [];

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_short_q'));
    await db.query(`CREATE TABLE notes (
      id uuid PRIMARY KEY, workspace_id uuid NOT NULL, svc_uid text, title text, body text, rank int,
      custom jsonb NOT NULL DEFAULT '{}', created_at timestamptz(3) NOT NULL, updated_at timestamptz(3) NOT NULL,
      search_text text GENERATED ALWAYS AS (${searchColumnSql(notes)}) STORED)`);
  });
  afterAll(async () => drop());

  const counting = (): SqlClient =>
    ({
      ...db,
      query: async (text: string, params?: unknown[], options?: unknown) => {
        statements.push(text);
        return db.query(text, params, options as never);
      },
    }) as SqlClient;
  const storeOf = (spec: ResourceSpec, walk: number) =>
    createResourceStore({ db: counting(), spec, cursors: createCursorCodec('x'.repeat(32)), searchWalk: { index: walk, table: walk } });

  async function insert(workspaceId: string, rows: Note[]): Promise<void> {
    if (!rows.length) return;
    const params: unknown[] = [];
    const tuples = rows.map((r) => {
      params.push(r.id, workspaceId, r.title, r.body, r.rank, r.created_at);
      const n = params.length;
      return `($${n - 5}::uuid, $${n - 4}::uuid, $${n - 3}, $${n - 2}, $${n - 1}::int, $${n}::timestamptz, $${n}::timestamptz)`;
    });
    await db.query(`INSERT INTO notes (id, workspace_id, title, body, rank, created_at, updated_at) VALUES ${tuples.join(', ')}`, params);
  }

  /** Every page of a list, in turn; the records and how many pages it took. */
  async function pageThrough(store: ReturnType<typeof storeOf>, workspaceId: string, raw: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list(workspaceId, parseListQuery(store.spec, { ...raw, ...(cursor ? { cursor } : {}) }));
      expect(page.data.length).toBeLessThanOrEqual(Number(raw.limit));
      expect(page.hasMore).toBe(page.nextCursor !== null);
      ids.push(...page.data.map((r) => r.id as string));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 1_000);
    return { ids, pages };
  }

  const text = (minLength: number, maxLength: number) => fc.array(fc.constantFrom(...LETTERS), { minLength, maxLength }).map((cs) => cs.join(''));
  const note = fc.record({
    title: fc.option(text(0, 5), { nil: null }),
    body: fc.option(text(0, 5), { nil: null }),
    rank: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
    // Few distinct times: ties on created_at, broken by id.
    second: fc.integer({ min: 0, max: 4 }),
  });

  test('the pages of a short term hold exactly what a naive filter finds, in the list order, with at most a walk of rows per page', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(note, { maxLength: 30 }),
        // Mostly short terms; some of 3 characters, which take the other plans, against the same filter.
        text(1, 3).filter((q) => q.trim() !== ''),
        fc.constantFrom(undefined, 'created_at', 'title', '-title', 'rank', '-rank,title', 'rank,-created_at'),
        fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        async (generated, q, sort, rank, limit, walk, byColumn) => {
          const workspaceId = newId();
          const rows: Note[] = generated.map((g) => ({
            id: newId(),
            title: g.title,
            body: g.body,
            rank: g.rank,
            created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, g.second)).toISOString(),
          }));
          await insert(workspaceId, rows);
          // The same rows in another workspace never appear.
          await insert(newId(), rows.map((r) => ({ ...r, id: newId() })));

          const spec = byColumn ? notesByColumn : notes;
          const raw = { q, limit: String(limit), ...(sort ? { sort } : {}), ...(rank !== undefined ? { rank: String(rank) } : {}) };
          const listed = rows.filter((r) => rank === undefined || r.rank === rank);
          const term = q.toLowerCase();
          const matching = listed.filter((r) => [r.title, r.body].some((f) => f !== null && f.toLowerCase().includes(term)));
          const expected = oracle(matching as unknown as Row[], parseListQuery(spec, raw));

          statements.length = 0;
          const { ids, pages } = await pageThrough(storeOf(spec, walk), workspaceId, raw);
          expect(ids).toEqual(expected);
          if (isShortSearch(q)) {
            // Every page was one walk; a page that was not full examined a whole walk of rows.
            expect(statements.every((s) => s.includes(` LIMIT ${walk}) AS walk`))).toBe(true);
            expect(pages).toBeLessThanOrEqual(Math.floor(listed.length / walk) + Math.ceil(expected.length / limit) + 1);
          } else {
            expect(statements.some((s) => s.includes(') AS walk'))).toBe(false);
          }
        },
      ),
      { numRuns: backend.name === 'postgres' ? 200 : 150 },
    );
  });

  test('one page per walk: a term found nowhere gives empty pages that say there is more, and a walk that finds exactly a page goes on', async () => {
    const workspaceId = newId();
    const base = Date.UTC(2026, 0, 1);
    const rows = Array.from({ length: 23 }, (_, i) => ({ id: newId(), title: `t${i}`, body: null, rank: i % 3, created_at: new Date(base + i * 1000).toISOString() }));
    await insert(workspaceId, rows);
    for (const [spec, walk, pages] of [[notes, 5, 5], [notesByColumn, 23, 2], [notes, 30, 1]] as const) {
      const store = storeOf(spec, walk);
      const first = await store.list(workspaceId, parseListQuery(spec, { q: 'ø' }));
      expect([first.data, first.hasMore]).toEqual([[], walk <= 23]);
      expect((await pageThrough(store, workspaceId, { q: 'ø', limit: '50' })).pages).toBe(pages);
    }
    // The one match, the oldest row, comes after four walks that found nothing.
    expect(await pageThrough(storeOf(notes, 5), workspaceId, { q: 'T0', limit: '1' })).toEqual({ ids: [rows[0]!.id], pages: 5 });
    expect(await pageThrough(storeOf(notes, 5), workspaceId, { q: '%', limit: '50', sort: '-rank' })).toEqual({ ids: [], pages: 5 });
    // A walk that finds exactly a page's worth still says there is more: t10 to t19 come later.
    const ones = [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19].map((i) => rows[i]!.id);
    expect((await pageThrough(storeOf(notes, 5), workspaceId, { q: 't1', limit: '1', sort: 'created_at' })).ids).toEqual(ones);
  });
});
