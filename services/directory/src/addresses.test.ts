import { type AddressProblem, type RunningGrpcServer, createClient, createLogger, newId, startGrpcServer, toStruct, unary } from '@crm/kit';
import { loadDirectory } from '@crm/proto';
import type * as grpc from '@grpc/grpc-js';
import { directoryGrpcBinding } from './directory.grpc';
import { COLLECTIONS } from './directory.schema';
import type { DirectoryService } from './directory.service';
import { parseSmtpConfig } from './integration-config';
import type { DocumentStore } from './store/document-store';
import { checkDirectoryAddresses } from './stored-addresses';
import { expectCrmError, openTestDirectory } from './testing/test-directory';

/**
 * The directory's addresses (a user's email, an smtp integration's from_email) follow the one
 * address rule of kit (email-address.ts), over gRPC as `crm admin` calls it; stored ones that break
 * it are reported by `checkDirectoryAddresses` and keep working.
 */
const LOCAL_65 = `${'a'.repeat(65)}@example.com`;
const LOCAL_64 = `${'a'.repeat(64)}@example.com`;
const LOCAL_65_MESSAGE = 'local part must be at most 64 octets (UTF-8 bytes); it has 65';

let raw: DocumentStore;
let directory: DirectoryService;
let server: RunningGrpcServer;
let client: grpc.Client;
let workspaceId: string;

beforeAll(async () => {
  ({ raw, directory } = await openTestDirectory());
  server = await startGrpcServer('127.0.0.1:0', [directoryGrpcBinding(directory, createLogger('test', 'silent'))]);
  client = createClient(loadDirectory().crm.directory.v1.DirectoryService, server.address);
  workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
});

afterAll(async () => {
  client?.close();
  await server?.shutdown(100);
  await raw?.close();
});

const user = (email: string) => ({ workspace_id: workspaceId, email, full_name: 'Ada Lovelace', role: 'member' });
const smtp = (fromEmail: string) => ({ workspace_id: workspaceId, type: 'smtp', name: 'Mail', secret: 'pw', config: { host: 'smtp.acme.test', from_email: fromEmail } });

describe('a user', () => {
  test('with a 65-octet local part is refused naming email, over gRPC as in process', async () => {
    await expect(unary(client, 'CreateUser', user(LOCAL_65))).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'email', message: LOCAL_65_MESSAGE }],
    });
    const err = await expectCrmError(directory.createUser(user(`${'é'.repeat(32)}a@example.com`)), 'validation_failed');
    expect(err.details).toEqual([{ field: 'email', message: LOCAL_65_MESSAGE }]);
    expect(await raw.collection(COLLECTIONS.users).find({ workspace_id: workspaceId })).toEqual([]);
  });

  test('at the limits is created, and a label or whole address past them is refused', async () => {
    await expect(directory.createUser(user(LOCAL_64))).resolves.toMatchObject({ email: LOCAL_64 });
    const label = await expectCrmError(directory.createUser(user(`ada@${'b'.repeat(64)}.com`)), 'validation_failed');
    expect(label.details).toEqual([{ field: 'email', message: 'each domain label must be at most 63 octets (UTF-8 bytes); one has 64' }]);
    const whole = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.io`;
    const total = await expectCrmError(directory.createUser(user(whole)), 'validation_failed');
    expect(total.details).toEqual([{ field: 'email', message: 'must be at most 254 octets (UTF-8 bytes); it has 256' }]);
    // The same syntax as every other address: a doubled dot is no address.
    await expectCrmError(directory.createUser(user('ada..lovelace@example.com')), 'validation_failed');
  });
});

describe('an smtp integration', () => {
  test('with a from_email past the limits is refused naming config.from_email', async () => {
    await expect(unary(client, 'CreateIntegration', { ...smtp(LOCAL_65), config: toStruct(smtp(LOCAL_65).config) })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'config.from_email', message: LOCAL_65_MESSAGE }],
    });
    const err = await expectCrmError(directory.createIntegration(smtp('mail@exa..mple.com')), 'validation_failed');
    expect(err.details).toEqual([{ field: 'config.from_email', message: 'must be an email address' }]);
  });

  test('stored with a sender the rule now refuses still sends from it', () => {
    expect(parseSmtpConfig({ host: 'smtp.acme.test', from_email: LOCAL_65 })).toMatchObject({ host: 'smtp.acme.test', from_email: LOCAL_65 });
    expect(parseSmtpConfig({ host: 'smtp.acme.test', from_email: 42 })).toBeUndefined();
    expect(parseSmtpConfig({ host: 'bad host', from_email: LOCAL_65 })).toBeUndefined();
  });
});

test('stored addresses that break the rule are reported, and left as they are', async () => {
  const other = newId();
  const badUser = { _id: newId(), workspace_id: other, email: LOCAL_65, email_lower: LOCAL_65, full_name: 'Old', role: 'member', is_active: true, svc_uid: null, created_at: '2020-01-01T00:00:00.000Z', updated_at: '2020-01-01T00:00:00.000Z' };
  const integration = (type: string, config: Record<string, unknown>) => ({
    _id: newId(),
    workspace_id: other,
    type,
    name: 'Old mail',
    status: 'connected',
    enabled: true,
    svc_uid: null,
    secret: { v: 1, iv: '', tag: '', ct: '' },
    config,
    created_at: '2020-01-01T00:00:00.000Z',
    updated_at: '2020-01-01T00:00:00.000Z',
  });
  const badSender = integration('smtp', { host: 'smtp.acme.test', from_email: `ada@${'b'.repeat(64)}.com` });
  await raw.collection(COLLECTIONS.users).insertOne(badUser);
  await raw.collection(COLLECTIONS.integrations).insertOne(badSender);
  // Another type's settings are any JSON: a from_email there is not an address anything sends from.
  await raw.collection(COLLECTIONS.integrations).insertOne(integration('crm_sync', { from_email: 'not an address' }));

  const found: AddressProblem[] = [];
  const read = await checkDirectoryAddresses(raw, (p) => found.push(p));
  expect(found).toEqual([
    { resource: 'users', id: badUser._id, workspace_id: other, field: 'email', reason: LOCAL_65_MESSAGE },
    {
      resource: 'integrations',
      id: badSender._id,
      workspace_id: other,
      field: 'config.from_email',
      reason: 'each domain label must be at most 63 octets (UTF-8 bytes); one has 64',
    },
  ]);
  expect(read).toBe((await raw.collection(COLLECTIONS.users).find({})).length + (await raw.collection(COLLECTIONS.integrations).find({})).length);
  expect(await raw.collection(COLLECTIONS.users).findOne({ _id: badUser._id })).toEqual(badUser);
});
