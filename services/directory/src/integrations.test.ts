import { randomBytes } from 'node:crypto';
import { INTEGRATION_TYPES, integrations } from '@crm/directory-contract';
import { CrmError, type RawListParams, parseListQuery } from '@crm/kit';
import fc from 'fast-check';
import { COLLECTIONS } from './directory.schema';
import { createDirectoryService, type DirectoryService } from './directory.service';
import type { SmtpCheck } from './integration-check';
import type { DocumentStore } from './store/document-store';
import { OTHER_UUID, cursorSecret, expectCrmError, openTestDirectory } from './testing/test-directory';

/** Finds every server up but `down.acme.test`, whose check fails the way a refused connection does. */
const checkByHost: SmtpCheck = {
  timeoutMs: 1_000,
  check: async (config) =>
    config.host === 'down.acme.test' ? { status: 'error', reason: 'connect ECONNREFUSED 192.0.2.1:587' } : { status: 'connected', reason: null },
};

describe('integrations', () => {
  let raw: DocumentStore;
  let directory: DirectoryService;

  beforeEach(async () => {
    ({ raw, directory } = await openTestDirectory({ smtpCheck: checkByHost }));
  });

  afterEach(async () => {
    await raw.close();
  });

  let workspaceId: string;
  beforeEach(async () => {
    workspaceId = (await directory.createWorkspace({ name: 'Acme' })).id;
  });

  const smtp = () => ({ workspace_id: workspaceId, type: 'smtp', name: 'Outbound mail', secret: ' s3cr3t-p4ss ', config: { host: 'smtp.acme.test' } });

  it('creates an enabled integration whose status is its check\'s, and whose record carries no secret', async () => {
    const integration = await directory.createIntegration(smtp());
    expect(integration).toEqual({
      id: expect.any(String),
      workspace_id: workspaceId,
      type: 'smtp',
      name: 'Outbound mail',
      status: 'connected',
      status_reason: null,
      enabled: true,
      config: { host: 'smtp.acme.test' },
      svc_uid: null,
      created_at: '2026-05-15T10:00:00.000Z',
      updated_at: '2026-05-15T10:00:00.000Z',
    });
    expect(await directory.getIntegration(workspaceId, integration.id)).toEqual(integration);
    const down = await directory.createIntegration({ ...smtp(), config: { host: 'down.acme.test' } });
    expect(down).toMatchObject({ status: 'error', status_reason: 'connect ECONNREFUSED 192.0.2.1:587' });
    expect(await directory.getIntegration(workspaceId, down.id)).toEqual(down);
  });

  it('encrypts the secret at rest and gives it back verbatim only through readIntegrationSecret', async () => {
    const { id } = await directory.createIntegration(smtp());
    const stored = await raw.collection(COLLECTIONS.integrations).findOne({ _id: id });
    expect(JSON.stringify(stored)).not.toContain('s3cr3t');
    expect(stored).toMatchObject({ secret: { v: 1, iv: expect.any(String), tag: expect.any(String), ct: expect.any(String) } });
    expect(await directory.readIntegrationSecret(workspaceId, id)).toBe(' s3cr3t-p4ss ');
  });

  it('cannot decrypt with another secrets key', async () => {
    const { id } = await directory.createIntegration(smtp());
    const wrongKey = createDirectoryService({ store: raw, secretsKey: randomBytes(32), cursorSecret });
    const err = await wrongKey.readIntegrationSecret(workspaceId, id).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Not a CrmError: the client sees `internal`, and nothing about the cause.
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(CrmError);
  });

  it('lists integrations by type, status and enabled, never with a secret', async () => {
    const mail = await directory.createIntegration(smtp());
    const down = await directory.createIntegration({ ...smtp(), name: 'Old relay', secret: 'tok-123', config: { host: 'down.acme.test' } });
    const list = async (raw: RawListParams) => directory.listIntegrations(workspaceId, parseListQuery(integrations, raw));
    const all = await list({ sort: 'type' });
    expect(all.data.map((i) => i.id)).toEqual([mail.id, down.id]);
    expect(JSON.stringify(all)).not.toMatch(/s3cr3t|tok-123|secret/);
    expect((await list({ type: 'smtp', enabled: 'true', status: 'connected' })).data).toEqual([{ ...mail }]);
    expect((await list({ status: 'error' })).data).toEqual([{ ...down }]);
    expect((await list({ status: 'checking' })).data).toEqual([]);
    await expectCrmError(list({ enabled: 'yes' }), 'invalid_request');
    await expectCrmError(list({ type: 'hubspot' }), 'invalid_request');
  });

  it('scopes reads to the workspace', async () => {
    const { id } = await directory.createIntegration(smtp());
    const other = await directory.createWorkspace({ name: 'Other' });
    await expectCrmError(directory.getIntegration(other.id, id), 'not_found');
    await expectCrmError(directory.readIntegrationSecret(other.id, id), 'not_found');
  });

  it('keeps svc_uid unique per workspace', async () => {
    await directory.createIntegration({ ...smtp(), svc_uid: 'ext-9' });
    await expectCrmError(directory.createIntegration({ ...smtp(), svc_uid: 'ext-9' }), 'conflict');
    const other = await directory.createWorkspace({ name: 'Other' });
    await expect(directory.createIntegration({ ...smtp(), workspace_id: other.id, svc_uid: 'ext-9' })).resolves.toBeDefined();
  });

  it('validates its fields', async () => {
    const err = await expectCrmError(
      directory.createIntegration({ workspace_id: workspaceId, type: 'Gmail OAuth', name: ' ', secret: '' }),
      'validation_failed',
    );
    expect((err.details as { field: string }[]).map((i) => i.field)).toEqual(['type', 'name', 'secret']);
    await expectCrmError(directory.createIntegration({ ...smtp(), workspace_id: OTHER_UUID }), 'not_found');
  });

  it('refuses every type it does not know, naming `type`, and stores nothing', async () => {
    const known: readonly string[] = INTEGRATION_TYPES;
    const unknownType = fc
      .oneof(fc.string(), fc.stringMatching(/^[a-z][a-z0-9_]{0,63}$/), fc.constantFrom('fax', 'SMTP', ' smtp', 'smtps', 'hubspot', 'chatapp', 'log'))
      .filter((type) => !known.includes(type.trim()));
    await fc.assert(
      fc.asyncProperty(unknownType, async (type) => {
        const err = await expectCrmError(directory.createIntegration({ ...smtp(), type }), 'validation_failed');
        expect(err.details).toEqual([{ field: 'type', message: type.trim() === '' ? 'is required' : 'must be one of smtp' }]);
      }),
      { numRuns: 200 },
    );
    expect(await raw.collection(COLLECTIONS.integrations).find({ workspace_id: workspaceId })).toEqual([]);
  });
});
