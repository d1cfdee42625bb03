import { spawnSync } from 'node:child_process';
import { MongoClient } from 'mongodb';
import type { StartedTestContainer } from 'testcontainers';
import { runDocumentListContract } from './document-list.contract';
import { runDocumentStoreContract } from './document-store.contract';
import { createMongoStore } from './mongo-store';

/**
 * Runs the document store contract against real MongoDB: the server at MONGO_URL when set, else a
 * throwaway `mongo:7` container when testcontainers finds a container engine. With neither, the
 * suite is skipped and says why. A MONGO_URL that does not
 * answer fails the suite: it was configured on purpose.
 */
type Target = { kind: 'url'; url: string } | { kind: 'container' } | { kind: 'none'; reason: string };

// Probed in a child process because Jest cannot skip a suite after an asynchronous check, and
// because loading testcontainers can itself fail (it needs a newer Node than some machines run).
const PROBE = `
try {
  require('testcontainers').getContainerRuntimeClient().then(
    () => process.exit(0),
    (e) => { console.log('no container engine found (' + e.message + ')'); process.exit(1); });
} catch (e) {
  console.log('testcontainers cannot be loaded on Node ' + process.version + ' (' + e.message + ')');
  process.exit(1);
}`;

function resolveTarget(): Target {
  const url = process.env.MONGO_URL;
  if (url) return { kind: 'url', url };
  const probe = spawnSync(process.execPath, ['-e', PROBE], { cwd: __dirname, encoding: 'utf8', timeout: 30_000 });
  if (probe.status === 0) return { kind: 'container' };
  return { kind: 'none', reason: probe.stdout.trim() || probe.error?.message || 'container engine probe failed' };
}

const target = resolveTarget();

// CRM_REQUIRE_SERVICES covers the services a development machine runs (Postgres, Redis, NATS);
// MongoDB is required only where MONGO_URL names one, and then an unreachable server fails.
if (target.kind === 'none') {
  console.warn(`MongoDB document store contract skipped: MONGO_URL is not set and ${target.reason}.`);
  describe.skip('DocumentStore contract: mongodb', () => {
    it('needs MONGO_URL or a container engine', () => undefined);
  });
} else {
  let url = target.kind === 'url' ? target.url : '';
  let container: StartedTestContainer | undefined;
  let admin: MongoClient | undefined;
  const databases: string[] = [];

  // Connects once up front so an unreachable server fails the suite with one clear error, quickly.
  beforeAll(async () => {
    if (target.kind === 'container') {
      const { GenericContainer, Wait } = await import('testcontainers');
      container = await new GenericContainer('mongo:7')
        .withExposedPorts(27017)
        .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
        .start();
      url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    }
    admin = await new MongoClient(url, { serverSelectionTimeoutMS: 5_000 }).connect();
  }, 180_000);

  afterAll(async () => {
    // A shared server outlives the run: drop the databases the tests created.
    if (admin && !container) {
      for (const name of databases) await admin.db(name).dropDatabase();
    }
    await admin?.close();
    await container?.stop();
  });

  // One database per test (and per Jest worker, through the pid) so tests never see each other's data.
  const openDatabase = async () => {
    const dbName = `directory_contract_${process.pid}_${databases.length}`;
    databases.push(dbName);
    return createMongoStore({ url, dbName, clientOptions: { serverSelectionTimeoutMS: 5_000 } });
  };
  runDocumentStoreContract('mongodb', openDatabase);
  runDocumentListContract('mongodb', openDatabase);
}
