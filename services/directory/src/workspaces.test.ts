import { isUuid } from '@crm/kit';
import type { DirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';
import { OTHER_UUID, expectCrmError, openTestDirectory } from './testing/test-directory';

describe('workspaces', () => {
  let raw: DocumentStore;
  let directory: DirectoryService;

  beforeEach(async () => {
    ({ raw, directory } = await openTestDirectory());
  });

  afterEach(async () => {
    await raw.close();
  });

  it('creates a workspace with a UUIDv7 id and a millisecond UTC timestamp, and reads it back', async () => {
    const ws = await directory.createWorkspace({ name: '  Acme  ' });
    expect(ws).toEqual({ id: expect.any(String), name: 'Acme', created_at: '2026-05-15T10:00:00.000Z' });
    expect(isUuid(ws.id)).toBe(true);
    expect(ws.id[14]).toBe('7');
    expect(await directory.getWorkspace(ws.id)).toEqual(ws);
  });

  it('answers not_found for an unknown or malformed id', async () => {
    await expectCrmError(directory.getWorkspace(OTHER_UUID), 'not_found');
    await expectCrmError(directory.getWorkspace('not-a-uuid'), 'not_found');
  });

  it('refuses a missing or blank name', async () => {
    const err = await expectCrmError(directory.createWorkspace({ name: '   ' }), 'validation_failed');
    expect(err.details).toEqual([{ field: 'name', message: 'is required' }]);
    await expectCrmError(directory.createWorkspace({} as never), 'validation_failed');
  });

  it('lists every workspace oldest first, a page at a time, until next_after is null', async () => {
    const created = [];
    for (const name of ['A', 'B', 'C', 'D', 'E']) created.push(await directory.createWorkspace({ name }));
    const first = await directory.listWorkspaces({ limit: 2 });
    expect(first).toEqual({ data: created.slice(0, 2), next_after: created[1]!.id });
    const second = await directory.listWorkspaces({ limit: 2, after: first.next_after });
    expect(second).toEqual({ data: created.slice(2, 4), next_after: created[3]!.id });
    expect(await directory.listWorkspaces({ limit: 2, after: second.next_after })).toEqual({ data: created.slice(4), next_after: null });
    // The default page holds them all.
    expect(await directory.listWorkspaces({})).toEqual({ data: created, next_after: null });
  });

  it('refuses a page size past the bound and an after that no page gave', async () => {
    const err = await expectCrmError(directory.listWorkspaces({ limit: 1001, after: 'nope' }), 'validation_failed');
    expect(err.details).toEqual([
      { field: 'limit', message: expect.stringContaining('1 to 1000') },
      { field: 'after', message: expect.any(String) },
    ]);
    await expectCrmError(directory.listWorkspaces({ limit: -1 }), 'validation_failed');
  });
});
