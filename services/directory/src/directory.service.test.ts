import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDirectoryService } from './directory.service';
import type { DocumentStore } from './store/document-store';
import { createEmbeddedStore } from './store/embedded-store';
import { cursorSecret, expectCrmError, openTestDirectory, passingSmtpCheck, secretsKey } from './testing/test-directory';

describe('directory service', () => {
  let raw: DocumentStore;

  beforeEach(async () => {
    ({ raw } = await openTestDirectory());
  });

  afterEach(async () => {
    await raw.close();
  });

  it('creates its unique indexes itself, so a process that did not migrate still refuses duplicates', async () => {
    const fresh = await createEmbeddedStore();
    const service = createDirectoryService({ store: fresh, secretsKey, cursorSecret });
    const ws = await service.createWorkspace({ name: 'Acme' });
    const user = { workspace_id: ws.id, email: 'a@x.io', full_name: 'A', role: 'member' };
    await service.createUser(user);
    await expectCrmError(service.createUser(user), 'conflict');
    await fresh.close();
  });

  it('refuses a secrets key that is not 32 bytes', () => {
    expect(() => createDirectoryService({ store: raw, secretsKey: randomBytes(16), cursorSecret })).toThrow(/32 bytes/);
  });
});

describe('directory service over a persisted embedded store', () => {
  it('authenticates a key and decrypts a secret after a restart', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'crm-directory-'));
    try {
      const first = await createEmbeddedStore({ dataDir });
      const before = createDirectoryService({ store: first, secretsKey, keyPepper: 'p', cursorSecret, smtpCheck: passingSmtpCheck });
      const ws = await before.createWorkspace({ name: 'Acme' });
      const { key, id: keyId } = await before.createApiKey({ workspace_id: ws.id, scopes: ['contacts:*'] });
      const integration = await before.createIntegration({ workspace_id: ws.id, type: 'smtp', name: 'Mail', secret: 'pw', config: { host: 'smtp.acme.test' } });
      await first.close();

      const second = await createEmbeddedStore({ dataDir });
      const after = createDirectoryService({ store: second, secretsKey, keyPepper: 'p', cursorSecret });
      expect(await after.authenticate(key)).toMatchObject({ workspace_id: ws.id, key_id: keyId, scopes: ['contacts:*'] });
      expect(await after.readIntegrationSecret(ws.id, integration.id)).toBe('pw');
      await second.close();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
