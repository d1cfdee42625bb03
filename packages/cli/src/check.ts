import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { type AddressProblem, type ConfigOf, type Logger, addressFields, checkStoredAddresses, createLogger, pgErrorOf, readConfig, setting } from '@crm/kit';
import { readAllInOneRecord } from './all-in-one-record';
import { type ParsedArgs, UsageError, rejectUnknownOptions } from './args';
import type { ServiceComponent } from './components/component';
import { allComponents, loadComponent } from './components/load';
import { dataDir, openDocumentStore, openSql } from './runtime';
import { COMMON, sqlSettings } from './settings';

/** The directory keeps its addresses in documents, not in declared tables: it is checked by its own reader. */
const DIRECTORY = 'directory';

/** A context to check: reads its stored addresses, reports each one the rule refuses, answers how many records it read. */
interface Source {
  context: string;
  check(report: (problem: AddressProblem) => void): Promise<number>;
}

const SETTINGS = (oneSqlContext: string | undefined) => ({
  ...COMMON,
  // DB_SCHEMA is read only when one Postgres-backed context is checked, as `crm migrate` reads it.
  ...sqlSettings(oneSqlContext ?? 'unused', oneSqlContext ? 'component' : 'all-in-one'),
  CURSOR_SECRET: setting.optionalSecret(),
  MONGO_URL: setting.optionalUrl('mongodb', 'mongodb+srv'),
  MONGO_DB: setting.string('crm'),
});
type Settings = ConfigOf<ReturnType<typeof SETTINGS>>;

/** The contexts that keep addresses: the Postgres-backed ones whose declarations have an email field, and the directory. */
async function contextsWithAddresses(names: readonly string[]): Promise<{ sql: ServiceComponent[]; directory: boolean }> {
  const keepsAddresses = (c: ServiceComponent | undefined) => Boolean(c?.database?.resources.some((spec) => addressFields(spec).length));
  if (!names.length) return { sql: (await allComponents()).filter(keepsAddresses), directory: true };
  const sql: ServiceComponent[] = [];
  for (const name of new Set(names)) {
    if (name === DIRECTORY) continue;
    const component = await loadComponent(name);
    if (!keepsAddresses(component)) throw new UsageError(`"${name}" keeps no email addresses; name a context that does, or none for all of them`);
    sql.push(component!);
  }
  return { sql, directory: names.includes(DIRECTORY) };
}

/**
 * Each store the check reads must be there already: reading must not create an embedded database
 * (PGlite, the directory's file) where none was, and an embedded store belongs to the process that
 * runs on it.
 */
function checkEmbeddedStores(settings: Settings, embedded: string[]): void {
  if (!embedded.length) return;
  const running = readAllInOneRecord(dataDir(settings));
  if (running) {
    throw new Error(
      `an all-in-one (pid ${running.pid}) runs on ${dataDir(settings)} and owns its embedded stores (${embedded.join(', ')}); ` +
        'stop it first, or set DATABASE_URL and MONGO_URL to check real servers',
    );
  }
  for (const folder of embedded) {
    if (!existsSync(folder)) throw new Error(`no embedded store at ${folder}: is CRM_DATA_DIR the data folder of this installation?`);
  }
}

function sqlSource(component: ServiceComponent, settings: Settings, log: Logger): Source {
  const database = component.database!;
  const schema = settings.DB_SCHEMA ?? database.schema;
  return {
    context: component.name,
    async check(report) {
      const db = await openSql(schema, settings, log, { readOnly: true });
      try {
        let read = 0;
        for (const spec of database.resources) {
          try {
            read += await checkStoredAddresses(db, spec, report);
          } catch (error) {
            // 42P01: no such table, so this schema is not the context's (or was never migrated).
            if (pgErrorOf(error)?.code === '42P01') {
              throw new Error(`${component.name}: no table ${spec.table} in schema ${db.schema} (DB_SCHEMA names the context's schema; crm migrate creates it)`);
            }
            throw error;
          }
        }
        return read;
      } finally {
        await db.close();
      }
    },
  };
}

function directorySource(settings: Settings, log: Logger): Source {
  return {
    context: DIRECTORY,
    async check(report) {
      const { checkDirectoryAddresses } = await import('@crm/directory');
      const store = await openDocumentStore(settings, log);
      try {
        return await checkDirectoryAddresses(store, report);
      } finally {
        await store.close();
      }
    },
  };
}

/**
 * `crm check addresses [context...]`: every stored address (contacts, sent emails, users,
 * integrations' senders) that the address rule refuses, one JSON line each on stdout, and a summary
 * on stderr. Nothing is changed. Exit 0 when none is found, 1 when some are, 2 when the check could
 * not run.
 */
export async function runCheck(args: ParsedArgs): Promise<void> {
  const [what, ...names] = args.positional;
  if (what !== 'addresses') throw new UsageError(what ? `unknown check "${what}"` : 'crm check needs what to check: addresses');
  rejectUnknownOptions(args, []);
  const contexts = await contextsWithAddresses(names);
  try {
    const settings = readConfig(SETTINGS(contexts.sql.length === 1 && names.length ? contexts.sql[0]!.name : undefined));
    // stdout carries only what was found, one JSON line each.
    const log = createLogger('crm-check', settings.LOG_LEVEL, process.stderr);
    const embedded = [
      ...(settings.DATABASE_URL ? [] : contexts.sql.map((c) => path.join(dataDir(settings), settings.DB_SCHEMA ?? c.database!.schema))),
      ...(contexts.directory && !settings.MONGO_URL ? [path.join(dataDir(settings), DIRECTORY)] : []),
    ];
    checkEmbeddedStores(settings, embedded);
    const sources = [...contexts.sql.map((c) => sqlSource(c, settings, log)), ...(contexts.directory ? [directorySource(settings, log)] : [])];

    const found: Record<string, number> = {};
    let read = 0;
    for (const source of sources) {
      found[source.context] = 0;
      read += await source.check((problem) => {
        found[source.context]!++;
        process.stdout.write(`${JSON.stringify({ context: source.context, ...problem })}\n`);
      });
    }
    const total = Object.values(found).reduce((a, b) => a + b, 0);
    const byContext = Object.entries(found)
      .map(([context, n]) => `${context} ${n}`)
      .join(', ');
    process.stderr.write(
      `crm check addresses: ${total === 0 ? 'no address breaks' : `${total} ${total === 1 ? 'address breaks' : 'addresses break'}`} ` +
        `the address rule (${byContext}), in ${read} records read; nothing was changed\n`,
    );
    process.exitCode = total === 0 ? 0 : 1;
  } catch (error) {
    // Whatever stopped it (configuration, a store that cannot be read), the check did not run to
    // the end: exit 2, never 1, which says addresses were found.
    process.stderr.write(`crm: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}
