/**
 * People's consumer of activity events (`node test/bench/dist/bench/activity.bench.js`; figures in
 * README.md, Messaging, "Over NATS"): how many activity events a second people's store applies to
 * contacts' last_touchpoint_at / last_engagement_at, the events handed to it directly (no bus), as
 * a subscription with 8 and with 64 handlers at once would, on this machine's Postgres. Each event
 * moves a contact (their times increase), so every one is a write; 300 contacts, 3,000 events a
 * round, three rounds per concurrency (the first warms up). Also the process's CPU per event.
 *
 * Environment: DATABASE_URL, BENCH_EVENTS (default 3000).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createCursorCodec, createLogger, createPgClient, newId, newRawEvent, runMigrations } from '@crm/kit';
import { createPeopleService, migrations } from '@crm/people';
import { MessagingEvents } from '@crm/proto';
import { DATABASE_URL, log } from './bench-stack';

const EVENTS = Number(process.env.BENCH_EVENTS || 3_000);
const CONTACTS = 300;

async function main(): Promise<void> {
  const schema = `bact_${randomBytes(3).toString('hex')}`;
  const db = await createPgClient({ url: DATABASE_URL, schema, max: 10, applicationName: 'crm-bench' });
  try {
    await runMigrations(db, migrations);
    const people = createPeopleService({ db, cursors: createCursorCodec(randomBytes(32).toString('base64')), log: createLogger('bench', 'silent') });
    const workspaceId = newId();
    const ids: string[] = [];
    for (let i = 0; i < CONTACTS; i++) ids.push((await people.contacts.create({ workspaceId }, { first_name: `C${i}` })).id as string);
    let day = 0;
    for (const concurrency of [8, 64]) {
      for (let round = 0; round < 3; round++) {
        // Later each round, so every event moves its contact: a sent email, then an outbound touchpoint.
        const base = Date.UTC(2026, 0, 1) + day++ * 86_400_000;
        const events = Array.from({ length: EVENTS }, (_, i) => {
          const at = new Date(base + i * 1_000).toISOString();
          return i % 2
            ? newRawEvent(MessagingEvents.EmailSent, workspaceId, { sent_email_id: newId(), contact_id: ids[i % CONTACTS], sent_at: at })
            : newRawEvent(MessagingEvents.TouchpointRecorded, workspaceId, {
                touchpoint_id: newId(), contact_id: ids[i % CONTACTS], channel: 'email', direction: 'outbound', status: 'completed', occurred_at: at,
              });
        });
        let next = 0;
        const started = performance.now();
        const cpu = process.cpuUsage();
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            for (let i = next++; i < events.length; i = next++) await people.activity.apply(events[i]!);
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        log(
          `activity events, ${concurrency} at once, round ${round + 1}: ${(EVENTS / seconds).toFixed(0)} events/s, ` +
            `${((used.user + used.system) / 1000 / EVENTS).toFixed(3)} ms of this process's CPU each`,
        );
      }
    }
  } finally {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
