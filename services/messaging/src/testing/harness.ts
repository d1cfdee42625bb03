import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  type CrmEvent,
  type EventBus,
  type RunningSqlService,
  type SqlClient,
  createLogger,
  createMemoryBus,
  readConfig,
  startSqlService,
} from '@crm/kit';
import type { SqlBackend } from '@crm/kit/testing';
import { type RunningDirectory, createEmbeddedStore, startDirectory } from '@crm/directory';
import { type PeopleService, peopleService } from '@crm/people';
import { MESSAGING_SETTINGS, messagingService } from '../main';
import type { MessagingService } from '../messaging.service';

/**
 * Messaging with its real peers, in one process: the directory on its embedded store, people and
 * messaging on the backend's Postgres (or PGlite), one in-process bus, and every event published.
 */
export interface MessagingHarness {
  db: SqlClient;
  bus: EventBus;
  messaging: RunningSqlService<MessagingService>;
  people: RunningSqlService<PeopleService>;
  /** The directory's service (workspaces, users, integrations), on its embedded store. */
  directory: RunningDirectory['service'];
  workspaceId: string;
  userId: string;
  dataDir: string;
  /** The secret messaging signs tracking tokens with (the deployment's CURSOR_SECRET). */
  trackingSecret: string;
  events: CrmEvent[];
  eventsOf(type: string): CrmEvent[];
  /** A contact of the workspace with this address. */
  contact(email: string, fields?: Record<string, unknown>): Promise<string>;
  /** Writes a contact's address in people's table directly, as an earlier release may have stored it. */
  storeAddress(contactId: string, email: string): Promise<void>;
  /** Another messaging instance on the same database (Postgres only): a second replica. */
  replica(env?: NodeJS.ProcessEnv): Promise<RunningSqlService<MessagingService>>;
  /** Another messaging deployment with its own database and settings, on the same peers and bus. */
  another(env?: NodeJS.ProcessEnv): Promise<RunningSqlService<MessagingService>>;
  close(): Promise<void>;
}

const log = createLogger('test', 'silent');

export async function openMessaging(backend: SqlBackend, env: NodeJS.ProcessEnv = {}, reopen?: (schema: string) => Promise<SqlClient>): Promise<MessagingHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crm-messaging-'));
  const store = await createEmbeddedStore({ dataDir: path.join(dataDir, 'directory') });
  const directory = await startDirectory({ store, secretsKey: randomBytes(32), keyPepper: 'pepper', cursorSecret: randomBytes(32), grpcAddr: '127.0.0.1:0', log });
  const workspace = await directory.service.createWorkspace({ name: 'Acme' });
  const user = await directory.service.createUser({ workspace_id: workspace.id, email: 'ana@acme.test', full_name: 'Ana Lima', role: 'admin' });
  const bus = createMemoryBus();
  const events: CrmEvent[] = [];
  const observer = await bus.subscribe({ durable: 'messaging-test-observer', subjects: ['crm.>'], handler: async (event) => void events.push(event) });

  const peopleDb = await backend.open('t_msg_people');
  const cursorSecret = randomBytes(32).toString('base64');
  const addresses: Record<string, string> = { directory: directory.server.address };
  const people = await startSqlService(peopleService, {
    db: peopleDb.db,
    bus,
    cursorSecret,
    grpcAddr: '127.0.0.1:0',
    log,
    config: {},
    peerAddress: (name) => addresses[name]!,
  });
  addresses.people = people.server.address;

  const messagingDb = await backend.open('t_msg');
  const settings = (more: NodeJS.ProcessEnv) =>
    readConfig(MESSAGING_SETTINGS, { CRM_DATA_DIR: dataDir, DELIVERY_RETRY_BASE_MS: '50', PUBLIC_URL: 'http://127.0.0.1:8080', ...env, ...more });
  const start = (db: SqlClient, more: NodeJS.ProcessEnv = {}) =>
    startSqlService(messagingService, { db, bus, cursorSecret, grpcAddr: '127.0.0.1:0', log, config: settings(more), peerAddress: (name) => addresses[name]! });
  const messaging = await start(messagingDb.db);
  const replicas: { running: RunningSqlService<MessagingService>; db: SqlClient; drop?: () => Promise<void> }[] = [];

  return {
    db: messagingDb.db,
    bus,
    messaging,
    people,
    directory: directory.service,
    workspaceId: workspace.id,
    userId: user.id,
    dataDir,
    trackingSecret: cursorSecret,
    events,
    eventsOf: (type) => events.filter((e) => e.type === type),
    async contact(email, fields = {}) {
      const created = await people.service.contacts.create({ workspaceId: workspace.id }, { email, first_name: 'Ada', ...fields });
      return String(created.id);
    },
    async storeAddress(contactId, email) {
      await peopleDb.db.query('UPDATE contacts SET email = $3 WHERE workspace_id = $1 AND id = $2', [workspace.id, contactId, email]);
    },
    async replica(more = {}) {
      if (!reopen) throw new Error('a replica needs a second connection to the same database');
      const db = await reopen(messagingDb.db.schema);
      const running = await start(db, more);
      replicas.push({ running, db });
      return running;
    },
    async another(more = {}) {
      const opened = await backend.open(`t_msg_${replicas.length}`);
      const running = await start(opened.db, more);
      replicas.push({ running, db: opened.db, drop: opened.drop });
      return running;
    },
    async close() {
      for (const r of replicas) {
        await r.running.stop();
        if (r.drop) await r.drop();
        else await r.db.close();
      }
      await messaging.stop();
      await people.stop();
      await observer.stop();
      await bus.close();
      await directory.stop();
      await store.close();
      await messagingDb.drop();
      await peopleDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
