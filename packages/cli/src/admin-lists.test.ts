import { randomBytes } from 'node:crypto';
import { type DirectoryService, createDirectoryService, createEmbeddedStore, directoryGrpcBinding } from '@crm/directory';
import { type RunningGrpcServer, createLogger, startGrpcServer } from '@crm/kit';
import { runAdmin } from './admin';
import { UsageError, parseArgs } from './args';

/**
 * `crm admin workspace list` and `crm admin key list` against a directory over gRPC, as the
 * command runs them: JSON on stdout, one object per line.
 */
let server: RunningGrpcServer;
let directory: DirectoryService;
let close: () => Promise<void>;

beforeAll(async () => {
  const store = await createEmbeddedStore();
  directory = createDirectoryService({ store, secretsKey: randomBytes(32), keyPepper: 'test-pepper', cursorSecret: randomBytes(32) });
  server = await startGrpcServer('127.0.0.1:0', [directoryGrpcBinding(directory, createLogger('test', 'silent'))]);
  close = async () => {
    await server.shutdown(100);
    await store.close();
  };
});
afterAll(() => close());

/** What a command printed, line by line, parsed. */
async function admin(line: string): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    const args = parseArgs(line.split(' '));
    await runAdmin({ positional: args.positional.slice(1), options: args.options }, server.address);
  } finally {
    spy.mockRestore();
  }
  const text = written.join('');
  expect(text.endsWith('\n') || text === '').toBe(true);
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('workspace list prints every workspace, oldest first, one per line, across pages', async () => {
  const created = [];
  for (const name of ['Acme', 'Globex', 'Initech']) created.push(await directory.createWorkspace({ name }));
  expect(await admin('admin workspace list --limit 2')).toEqual(created.map((w) => ({ id: w.id, name: w.name, created_at: w.created_at })));
  expect(await admin('admin workspace list')).toHaveLength(3);
  await expect(admin('admin workspace list --limit 0')).rejects.toThrow(UsageError);
});

test('key list prints every key of the workspace, revoked ones with revoked_at, never the key', async () => {
  const workspace = await directory.createWorkspace({ name: 'Keys' });
  const [created] = await admin(`admin key create --workspace ${workspace.id} --scopes contacts:read --name CI`);
  await admin(`admin key revoke ${created!.id}`);
  const active = await directory.createApiKey({ workspace_id: workspace.id, scopes: ['*'], env: 'test' });
  const listed = await admin(`admin key list --workspace ${workspace.id}`);
  expect(listed).toEqual([
    {
      id: active.id,
      workspace_id: workspace.id,
      name: null,
      prefix: active.key.slice(0, 13),
      scopes: ['*'],
      env: 'test',
      user_id: null,
      created_by_name: '',
      created_at: active.created_at,
      last_used_at: null,
      revoked_at: null,
    },
    expect.objectContaining({ id: created!.id, name: 'CI', scopes: ['contacts:read'], env: 'live', revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }),
  ]);
  expect(JSON.stringify(listed)).not.toContain(String(created!.key));
  expect(JSON.stringify(listed)).not.toContain(active.key);
  await expect(admin('admin key list')).rejects.toThrow('missing --workspace');
});
