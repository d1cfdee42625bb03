import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runDocumentListContract } from './document-list.contract';
import { runDocumentStoreContract } from './document-store.contract';
import { DuplicateKeyError } from './document-store';
import { DEFAULT_EMBEDDED_FILE, createEmbeddedStore } from './embedded-store';

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'crm-embedded-store-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

runDocumentStoreContract('embedded, in memory', () => createEmbeddedStore());
runDocumentStoreContract('embedded, persisted to a file', async () => createEmbeddedStore({ dataDir: await tempDir() }));
runDocumentListContract('embedded', () => createEmbeddedStore());

describe('embedded store persistence', () => {
  interface Item {
    _id: string;
    n: number;
    email?: string;
  }

  it('reloads documents and unique indexes from its file after re-creation', async () => {
    const dataDir = await tempDir();
    const first = await createEmbeddedStore({ dataDir });
    await first.ensureIndexes([{ collection: 'items', name: 'items_email_unique', keys: { email: 1 }, unique: true }]);
    await first.collection<Item>('items').insertOne({ _id: 'a', n: 1, email: 'a@x.io' });
    await first.collection<Item>('items').insertOne({ _id: 'b', n: 2, email: 'b@x.io' });
    await first.collection<Item>('items').updateOne({ _id: 'a' }, { $inc: { n: 10 } });
    await first.collection<Item>('items').deleteOne({ _id: 'b' });
    await first.close();

    const second = await createEmbeddedStore({ dataDir });
    expect(await second.collection<Item>('items').find({})).toEqual([{ _id: 'a', n: 11, email: 'a@x.io' }]);
    await expect(second.collection<Item>('items').insertOne({ _id: 'c', n: 3, email: 'a@x.io' })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await second.close();
  });

  it('persists every one of many concurrent writes, leaving no temporary file', async () => {
    const dataDir = await tempDir();
    const store = await createEmbeddedStore({ dataDir });
    const items = store.collection<Item>('items');
    await Promise.all(Array.from({ length: 50 }, (_, i) => items.insertOne({ _id: `i${i}`, n: i })));
    await Promise.all(Array.from({ length: 50 }, (_, i) => items.updateOne({ _id: `i${i}` }, { $inc: { n: 100 } })));
    await store.close();

    expect(await fs.readdir(dataDir)).toEqual([DEFAULT_EMBEDDED_FILE]);
    const reopened = await createEmbeddedStore({ dataDir });
    const all = await reopened.collection<Item>('items').find({}, { sort: { n: 1 } });
    expect(all.map((d) => d.n)).toEqual(Array.from({ length: 50 }, (_, i) => i + 100));
    await reopened.close();
  });

  it('waits for the file write before a write call resolves', async () => {
    const dataDir = await tempDir();
    const store = await createEmbeddedStore({ dataDir });
    await store.collection<Item>('items').insertOne({ _id: 'a', n: 1 });
    const onDisk = JSON.parse(await fs.readFile(path.join(dataDir, DEFAULT_EMBEDDED_FILE), 'utf8'));
    expect(onDisk.collections.items).toEqual([{ _id: 'a', n: 1 }]);
    await store.close();
  });

  it('refuses to start over a corrupt file instead of overwriting it', async () => {
    const dataDir = await tempDir();
    await fs.writeFile(path.join(dataDir, DEFAULT_EMBEDDED_FILE), '{"version":1,"collections":{');
    await expect(createEmbeddedStore({ dataDir })).rejects.toThrow(/not valid JSON/);
    await fs.writeFile(path.join(dataDir, DEFAULT_EMBEDDED_FILE), '{"version":2}');
    await expect(createEmbeddedStore({ dataDir })).rejects.toThrow(/unknown format/);
  });

  it('removes temporary files a crash left behind', async () => {
    const dataDir = await tempDir();
    const stale = path.join(dataDir, `${DEFAULT_EMBEDDED_FILE}.999.1.tmp`);
    await fs.writeFile(stale, '{"half":');
    const store = await createEmbeddedStore({ dataDir });
    await store.close();
    await expect(fs.access(stale)).rejects.toThrow();
  });

  it('refuses operations after close', async () => {
    const store = await createEmbeddedStore();
    await store.close();
    await expect(store.collection<Item>('items').findOne({})).rejects.toThrow(/closed/);
  });

  it('refuses replacement documents and unsupported operators, as MongoDB does', async () => {
    const store = await createEmbeddedStore();
    const items = store.collection<Item>('items');
    await items.insertOne({ _id: 'a', n: 1 });
    await expect(items.updateOne({ _id: 'a' }, { n: 2 } as never)).rejects.toThrow(/unsupported update operator n/);
    await expect(items.updateOne({ _id: 'a' }, { $set: { _id: 'b' } })).rejects.toThrow(/immutable/);
    expect(await items.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
    await store.close();
  });
});
