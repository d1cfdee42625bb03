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
});
