import { randomBytes } from 'node:crypto';
import { integrations } from '@crm/directory-contract';
import { type CrmError, type ResourceSpec, type RunningGrpcServer, createClient, createLogger, fromProtoValue, messageToRecord, startGrpcServer, toStruct, unary } from '@crm/kit';
import { compileRecordDecoders, loadDirectory, loadTypes } from '@crm/proto';
import type * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { LOADER_TO_OBJECT, PREVIOUS_RELEASE, releaseTypes } from '../../../proto/src/testing/releases';
import { directoryGrpcBinding } from './directory.grpc';
import { OTHER_UUID } from './testing/test-directory';
import { type DirectoryService, createDirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';
import { createEmbeddedStore } from './store/embedded-store';
import { passingSmtpCheck } from './testing/test-directory';

/**
 * Integration's config on the wire during a rolling deployment (directory.proto, Integration):
 * this release's directory answers it in field 11 (`config`) and, the same bytes, in field 10
 * (`legacy_config`), so a caller of the previous release, which reads field 10, still gets it.
 * The callers' side (this release reading either) is gateway/src/routes/integration-config.test.ts.
 */
const CONFIG = { host: 'smtp.acme.test', port: 2525, secure: false, from_name: 'Acme' };

let store: DocumentStore;
let server: RunningGrpcServer;
let client: grpc.Client;
let directory: DirectoryService;

beforeAll(async () => {
  store = await createEmbeddedStore();
  directory = createDirectoryService({ store, secretsKey: randomBytes(32), keyPepper: 'test-pepper', cursorSecret: randomBytes(32), smtpCheck: passingSmtpCheck });
  server = await startGrpcServer('127.0.0.1:0', [directoryGrpcBinding(directory, createLogger('test', 'silent'))]);
  client = createClient(loadDirectory().crm.directory.v1.DirectoryService, server.address);
});

afterAll(async () => {
  client?.close();
  await server?.shutdown(100);
  await store?.close();
});

/** A call's answer as the bytes the directory wrote. */
const bytesOf = (method: string, request: unknown) => unary<unknown, Buffer>(client, method, request, { deserialize: (bytes) => bytes });

/** The length-delimited fields of a message, by number, as they are on the wire. */
function delimitedFields(bytes: Uint8Array): Map<number, Buffer[]> {
  const r = protobuf.Reader.create(bytes);
  const fields = new Map<number, Buffer[]>();
  while (r.pos < r.len) {
    const tag = r.uint32();
    if ((tag & 7) !== 2) r.skipType(tag & 7);
    else fields.set(tag >>> 3, [...(fields.get(tag >>> 3) ?? []), Buffer.from(r.bytes())]);
  }
  return fields;
}

/** The three answers that carry an Integration, in a workspace of their own: created, got, and listed. */
async function answers(): Promise<Record<'created' | 'got' | 'listed', Buffer>> {
  const workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
  const created = await bytesOf('CreateIntegration', { workspace_id: workspaceId, type: 'smtp', name: 'Mail', secret: 'pw', config: toStruct(CONFIG) });
  const { id } = loadDirectory().crm.directory.v1.DirectoryService.service.GetIntegration.responseDeserialize(created) as { id: string };
  const got = await bytesOf('GetIntegration', { workspace_id: workspaceId, id });
  const page = await bytesOf('ListIntegrations', { workspace_id: workspaceId, filters: { type: 'smtp' } });
  const data = delimitedFields(page).get(1) ?? [];
  expect(data).toHaveLength(1);
  return { created, got, listed: data[0]! };
}

test('every answer carries the config as a Value in field 11, and the same bytes in field 10', async () => {
  const valueType = loadTypes('crm/directory/v1/directory.proto').lookupType('google.protobuf.Value');
  for (const [answer, bytes] of Object.entries(await answers())) {
    const fields = delimitedFields(bytes);
    expect([answer, fields.get(11)?.length, fields.get(10)?.length]).toEqual([answer, 1, 1]);
    expect(fields.get(10)![0]!.equals(fields.get(11)![0]!)).toBe(true);
    expect(fromProtoValue(valueType.toObject(valueType.decode(fields.get(11)![0]!), LOADER_TO_OBJECT))).toEqual(CONFIG);
  }
});

test("a caller of the previous release reads the config from field 10, as its gateway and command line did", async () => {
  const previous = releaseTypes(PREVIOUS_RELEASE, 'crm/directory/v1/directory.proto');
  const integration = previous.lookupType('crm.directory.v1.Integration');
  const page = previous.lookupType('crm.directory.v1.ListIntegrationsResponse');
  expect(integration.fields.config!.id).toBe(10);
  // Its declaration: `config` read from the message's field of that name, with no fallback.
  const itsSpec: ResourceSpec = { ...integrations, fields: { ...integrations.fields, config: { ...integrations.fields.config, legacyProtoField: undefined } } };
  const itsDecoders = compileRecordDecoders(integration, page, Object.entries(itsSpec.fields).map(([name, field]) => ({ name, json: field.type === 'json' })))!;
  for (const [answer, bytes] of Object.entries(await answers())) {
    const message = integration.toObject(integration.decode(bytes), LOADER_TO_OBJECT);
    // The command line printed fromProtoValue(config); the gateway, messageToRecord or its record decoder.
    expect([answer, fromProtoValue(message.config)]).toEqual([answer, CONFIG]);
    expect([answer, messageToRecord(itsSpec, message).config]).toEqual([answer, CONFIG]);
    expect([answer, itsDecoders.record(bytes).config]).toEqual([answer, CONFIG]);
  }
});

test("this release's callers read field 11, and the record keeps one `config`", async () => {
  const { got } = await answers();
  const message = loadDirectory().crm.directory.v1.DirectoryService.service.GetIntegration.responseDeserialize(got) as Record<string, unknown>;
  const record = messageToRecord(integrations, message);
  expect(record.config).toEqual(CONFIG);
  expect(Object.keys(record)).toEqual(Object.keys(integrations.fields));
});

/**
 * Sign-in and the settings page's keys over the wire, end to end through the binding, with the
 * real argon2id defaults: what the gateway's pages send and read.
 */
describe('sign-in and session keys over gRPC', () => {
  const call = <T = Record<string, unknown>>(method: string, request: unknown) => unary<unknown, T>(client, method, request);
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as CrmError);

  it('sets a password with a link, signs in, manages keys, signs out', async () => {
    const workspace = await directory.createWorkspace({ name: 'Acme' });
    const user = await directory.createUser({ workspace_id: workspace.id, email: 'owner@acme.test', full_name: 'Olive Owner', role: 'owner' });

    const link = await call<{ token: string; link: string; mailed: boolean; user_id: string; expires_at: string }>('IssuePasswordToken', {
      workspace_id: workspace.id,
      user_id: user.id,
    });
    expect(link).toEqual({ user_id: user.id, token: expect.any(String), link: `http://127.0.0.1:8080/settings/password?token=${link.token}`, expires_at: expect.any(String), mailed: false });
    expect(await call('CheckPasswordToken', { token: link.token })).toEqual({ user_id: user.id, workspace_id: workspace.id, email: 'owner@acme.test', expires_at: link.expires_at });

    const weak = await failure(call('SetPassword', { password: 'short', token: link.token }));
    expect(weak).toMatchObject({ code: 'validation_failed', details: [{ field: 'password', message: 'must be at least 12 characters' }] });
    expect(await call('SetPassword', { password: 'correct horse battery staple', token: link.token })).toEqual({ user_id: user.id, workspace_id: workspace.id });
    expect(await failure(call('CheckPasswordToken', { token: link.token }))).toMatchObject({ code: 'unauthorized', reason: 'invalid_password_token' });

    expect(await failure(call('SignIn', { email: 'owner@acme.test', password: 'wrong horse battery staple' }))).toMatchObject({
      code: 'unauthorized',
      reason: 'invalid_credentials',
      message: 'email or password is incorrect',
    });
    const session = await call<{ session_id: string; csrf_token: string; user: Record<string, unknown> }>('SignIn', {
      email: 'OWNER@acme.test',
      password: 'correct horse battery staple',
    });
    expect(session).toEqual({
      session_id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user: { ...user, svc_uid: undefined },
      workspace,
      expires_at: expect.any(String),
      idle_expires_at: expect.any(String),
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const got = await call('GetSession', { session_id: session.session_id });
    expect(got).toEqual({ ...session, session_id: '' });

    const created = await call<{ id: string; key: string }>('CreateSessionApiKey', { session_id: session.session_id, name: 'CI', env: 'test', scopes: ['contacts:read'] });
    expect(created).toMatchObject({ key: expect.stringMatching(/^svc_test_/), env: 'test', scopes: ['contacts:read'], workspace_id: workspace.id });
    const cliKey = await directory.createApiKey({ workspace_id: workspace.id, scopes: ['*'] });
    // Newest first: the command line's key came after the page's.
    const listed = await call<{ data: Record<string, unknown>[] }>('ListSessionApiKeys', { session_id: session.session_id });
    expect(listed.data).toEqual([
      expect.objectContaining({ id: cliKey.id, name: '', user_id: '', created_by_name: '', last_used_at: '' }),
      { id: created.id, workspace_id: workspace.id, name: 'CI', prefix: created.key.slice(0, 13), scopes: ['contacts:read'], env: 'test', user_id: user.id, created_by_name: 'Olive Owner', created_at: expect.any(String), last_used_at: '', revoked_at: '' },
    ]);
    expect(await call('RevokeSessionApiKey', { session_id: session.session_id, id: created.id })).toEqual({ id: created.id, revoked: true });

    expect(await call('EndSession', { session_id: session.session_id })).toEqual({ ended: true });
    expect(await failure(call('GetSession', { session_id: session.session_id }))).toMatchObject({ code: 'unauthorized', reason: 'invalid_session' });
    expect(await failure(call('ListSessionApiKeys', { session_id: session.session_id }))).toMatchObject({ code: 'unauthorized', reason: 'invalid_session' });

    expect(await call('DeactivateUser', { workspace_id: workspace.id, id: user.id })).toMatchObject({ id: user.id, is_active: false });
    expect(await failure(call('SignIn', { email: 'owner@acme.test', password: 'correct horse battery staple' }))).toMatchObject({ reason: 'invalid_credentials' });
  });

  it("the operator's command line names a user by id alone; a call naming a workspace is held to it", async () => {
    const workspace = await directory.createWorkspace({ name: 'Ops' });
    const other = await directory.createWorkspace({ name: 'Other' });
    const user = await directory.createUser({ workspace_id: workspace.id, email: 'ops@acme.test', full_name: 'Ops', role: 'member' });

    const invite = await call<{ user_id: string; link: string }>('IssuePasswordToken', { user_id: user.id });
    expect(invite).toMatchObject({ user_id: user.id, link: expect.stringContaining('/settings/password?token=') });
    expect(await failure(call('IssuePasswordToken', { workspace_id: other.id, user_id: user.id }))).toMatchObject({ code: 'not_found' });
    expect(await failure(call('IssuePasswordToken', { user_id: OTHER_UUID }))).toMatchObject({ code: 'not_found' });

    expect(await failure(call('DeactivateUser', { workspace_id: other.id, id: user.id }))).toMatchObject({ code: 'not_found' });
    expect(await call('DeactivateUser', { id: user.id })).toMatchObject({ id: user.id, workspace_id: workspace.id, is_active: false });
  });
});

/** The operator's lists (`crm admin workspace list`, `crm admin key list`) over the wire. */
describe("the operator's lists over gRPC", () => {
  const call = <T = Record<string, unknown>>(method: string, request: unknown) => unary<unknown, T>(client, method, request);

  it('pages through every workspace with next_after, ending with an empty one', async () => {
    const mine = [await directory.createWorkspace({ name: 'Page 1' }), await directory.createWorkspace({ name: 'Page 2' })];
    const seen: { id: string; name: string; created_at: string }[] = [];
    let after = '';
    do {
      const page = await call<{ data: { id: string; name: string; created_at: string }[]; next_after: string }>('ListWorkspaces', { limit: 1, after });
      expect(page.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.data);
      after = page.next_after;
    } while (after);
    expect(seen.slice(-2)).toEqual(mine);
    expect(new Set(seen.map((w) => w.id)).size).toBe(seen.length);
  });

  it("lists a workspace's keys with revoked_at, empty for an active one", async () => {
    const workspace = await directory.createWorkspace({ name: 'Keys' });
    const revoked = await directory.createApiKey({ workspace_id: workspace.id, scopes: ['contacts:read'], name: 'old' });
    await directory.revokeApiKey(revoked.id);
    const active = await directory.createApiKey({ workspace_id: workspace.id, scopes: ['*'] });
    const listed = await call<{ data: Record<string, unknown>[] }>('ListApiKeys', { workspace_id: workspace.id });
    expect(listed.data.map((k) => [k.id, k.name, k.revoked_at === '' ? 'active' : 'revoked'])).toEqual([
      [active.id, '', 'active'],
      [revoked.id, 'old', 'revoked'],
    ]);
    expect(listed.data[1]!.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(JSON.stringify(listed)).not.toContain(active.key);
  });
});
