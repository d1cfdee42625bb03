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
import { type ActivitiesService, activitiesService } from '@crm/activities';
import { createEmbeddedStore, startDirectory } from '@crm/directory';
import { MESSAGING_SETTINGS, type MessagingService, messagingService } from '@crm/messaging';
import { type PeopleService, peopleService } from '@crm/people';
import type { FlowsService } from '../flows.service';
import { FLOWS_SETTINGS, flowsService } from '../main';

/**
 * Flows with every real peer, in one process: the directory on its embedded store; people,
 * activities, messaging and flows on the backend's Postgres (or PGlite), one in-process bus that
 * carries every event between them. Messaging writes .eml files (its log provider) unless the
 * environment gives it an SMTP_URL.
 */
export interface FlowsHarness {
  bus: EventBus;
  flows: RunningSqlService<FlowsService>;
  flowsDb: SqlClient;
  people: RunningSqlService<PeopleService>;
  activities: RunningSqlService<ActivitiesService>;
  messaging: RunningSqlService<MessagingService>;
  /** Messaging's database (to set up what only its own paths write, such as a suppression). */
  messagingDb: SqlClient;
  workspaceId: string;
  userId: string;
  /** Another workspace of the same deployment. */
  otherWorkspaceId: string;
  dataDir: string;
  events: CrmEvent[];
  eventsOf(type: string): CrmEvent[];
  contact(email: string | null, fields?: Record<string, unknown>, workspaceId?: string): Promise<string>;
  /** A second flows replica on the same database (Postgres only), with its own engine. */
  replica(env?: NodeJS.ProcessEnv): Promise<RunningSqlService<FlowsService>>;
  close(): Promise<void>;
}

const log = createLogger('test', 'silent');

export async function openFlows(
  backend: SqlBackend,
  env: { flows?: NodeJS.ProcessEnv; messaging?: NodeJS.ProcessEnv } = {},
  reopen?: (schema: string) => Promise<SqlClient>,
): Promise<FlowsHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crm-flows-'));
  const store = await createEmbeddedStore({ dataDir: path.join(dataDir, 'directory') });
  const directory = await startDirectory({ store, secretsKey: randomBytes(32), keyPepper: 'pepper', cursorSecret: randomBytes(32), grpcAddr: '127.0.0.1:0', log });
  const workspace = await directory.service.createWorkspace({ name: 'Acme' });
  const other = await directory.service.createWorkspace({ name: 'Globex' });
  const user = await directory.service.createUser({ workspace_id: workspace.id, email: 'ana@acme.test', full_name: 'Ana Lima', role: 'admin' });
  const bus = createMemoryBus();
  const events: CrmEvent[] = [];
  const observer = await bus.subscribe({ durable: 'flows-test-observer', subjects: ['crm.>'], handler: async (event) => void events.push(event) });

  const cursorSecret = randomBytes(32).toString('base64');
  const addresses: Record<string, string> = { directory: directory.server.address };
  const opened: { db: SqlClient; drop(): Promise<void> }[] = [];
  const start = async <S>(definition: Parameters<typeof startSqlService<S>>[0], prefix: string, config: Record<string, unknown> = {}) => {
    const db = await backend.open(prefix);
    opened.push(db);
    const running = await startSqlService(definition as never, {
      db: db.db,
      bus,
      cursorSecret,
      grpcAddr: '127.0.0.1:0',
      log,
      config: config as never,
      peerAddress: (name: string) => addresses[name]!,
    });
    addresses[definition.name] = (running as RunningSqlService<S>).server.address;
    return { running: running as RunningSqlService<S>, db: db.db };
  };

  const people = await start<PeopleService>(peopleService as never, 't_fl_people');
  const activities = await start<ActivitiesService>(activitiesService as never, 't_fl_act');
  const messaging = await start<MessagingService>(
    messagingService as never,
    't_fl_msg',
    readConfig(MESSAGING_SETTINGS, { CRM_DATA_DIR: dataDir, DELIVERY_RETRY_BASE_MS: '50', PUBLIC_URL: 'http://127.0.0.1:8080', ...env.messaging }),
  );
  const flowsConfig = (more: NodeJS.ProcessEnv = {}) => readConfig(FLOWS_SETTINGS, { FLOW_ENGINE_POLL_MS: '50', ...env.flows, ...more });
  const flows = await start<FlowsService>(flowsService as never, 't_fl_flows', flowsConfig());
  const replicas: { running: RunningSqlService<FlowsService>; db: SqlClient }[] = [];

  return {
    bus,
    flows: flows.running,
    flowsDb: flows.db,
    people: people.running,
    activities: activities.running,
    messaging: messaging.running,
    messagingDb: messaging.db,
    workspaceId: workspace.id,
    userId: user.id,
    otherWorkspaceId: other.id,
    dataDir,
    events,
    eventsOf: (type) => events.filter((e) => e.type === type),
    async contact(email, fields = {}, workspaceId = workspace.id) {
      const created = await people.running.service.contacts.create({ workspaceId }, { ...(email ? { email } : {}), first_name: 'Ada', ...fields });
      return String(created.id);
    },
    async replica(more = {}) {
      if (!reopen) throw new Error('a replica needs a second connection to the same database');
      const db = await reopen(flows.db.schema);
      const running = await startSqlService(flowsService, {
        db,
        bus,
        cursorSecret,
        grpcAddr: '127.0.0.1:0',
        log,
        config: flowsConfig(more),
        peerAddress: (name) => addresses[name]!,
      });
      replicas.push({ running, db });
      return running;
    },
    async close() {
      for (const r of replicas) {
        await r.running.stop();
        await r.db.close();
      }
      await flows.running.stop();
      await messaging.running.stop();
      await activities.running.stop();
      await people.running.stop();
      await observer.stop();
      await bus.close();
      await directory.stop();
      await store.close();
      for (const db of opened.reverse()) await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
