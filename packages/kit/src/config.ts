import { emailAddressProblem } from './email-address';
import { parseDateTime } from './time';

/**
 * Configuration from the environment, read once per process at start: each process declares the
 * variables it reads as a schema, and `readConfig` returns them typed or fails with ONE error that
 * lists every missing or malformed variable, so an operator fixes a deployment in one pass.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** One variable: how to read it, or why it cannot be read. Absent and empty are the same. */
export interface Setting<T> {
  read(raw: string | undefined, name: string): { value: T } | { problem: string };
  /** For usage text and docs. */
  readonly describe: string;
}

export type ConfigSchema = Readonly<Record<string, Setting<unknown>>>;
// NonNullable: a variable a schema declares only in some modes (an optional key) reads as T | undefined.
export type ConfigOf<S extends ConfigSchema> = { readonly [K in keyof S]: NonNullable<S[K]> extends Setting<infer T> ? T : never };

const ok = <T>(value: T) => ({ value });
const problem = (text: string) => ({ problem: text });

function required<T>(parse: (raw: string, name: string) => { value: T } | { problem: string }, describe: string): Setting<T> {
  return { describe, read: (raw, name) => (raw === undefined ? problem(`${name} is required (${describe})`) : parse(raw, name)) };
}

function withDefault<T>(setting: Setting<T>, fallback: T): Setting<T> {
  return { describe: `${setting.describe}; default ${String(fallback)}`, read: (raw, name) => (raw === undefined ? ok(fallback) : setting.read(raw, name)) };
}

function optional<T>(setting: Setting<T>): Setting<T | undefined> {
  return { describe: `${setting.describe}; optional`, read: (raw, name) => (raw === undefined ? ok(undefined) : setting.read(raw, name)) };
}

const parseString = (raw: string) => ok(raw);

function parseInt(min: number, max: number) {
  return (raw: string, name: string) =>
    /^\d{1,15}$/.test(raw) && +raw >= min && +raw <= max ? ok(+raw) : problem(`${name} must be a whole number from ${min} to ${max}, got "${raw.slice(0, 40)}"`);
}

function parseUrl(protocols: readonly string[]) {
  return (raw: string, name: string) => {
    const url = URL.parse(raw);
    if (url && protocols.includes(url.protocol.replace(/:$/, ''))) return ok(raw);
    // Reported without echoing the value: a URL may carry credentials.
    return problem(`${name} must be a ${protocols.join(' or ')} URL`);
  };
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/;
function parseAddress(raw: string, name: string) {
  const match = HOST_PORT.exec(raw);
  return match && +match[2]! <= 65_535 ? ok(raw) : problem(`${name} must be host:port, got "${raw.slice(0, 80)}"`);
}

// A date and a time with its offset, read as the API reads them (time.ts: RFC 3339, a real day).
function parseTime(raw: string, name: string) {
  const at = parseDateTime(raw);
  return at ? ok(at) : problem(`${name} must be a date and time with its offset, such as 2026-11-27T06:00:00Z, got "${raw.slice(0, 40)}"`);
}

// An address, by the rule every address the API takes follows (email-address.ts).
function parseEmail(raw: string, name: string) {
  const reason = emailAddressProblem(raw);
  return reason ? problem(`${name} is not an address a mail server takes: ${reason}`) : ok(raw);
}

/** The kinds of setting a schema is written with. */
export const setting = {
  /** Free text; required unless a default is given. */
  string: (fallback?: string): Setting<string> => {
    const base = required(parseString, 'text');
    return fallback === undefined ? base : withDefault(base, fallback);
  },
  optionalString: (): Setting<string | undefined> => optional(required(parseString, 'text')),
  /** A secret: never echoed in an error. */
  secret: (): Setting<string> => required(parseString, 'a secret shared by every replica'),
  optionalSecret: (): Setting<string | undefined> => optional(required(parseString, 'a secret')),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): Setting<number> =>
    withDefault(required(parseInt(min, max), `a whole number from ${min} to ${max}`), fallback),
  optionalInt: (min = 0, max = Number.MAX_SAFE_INTEGER): Setting<number | undefined> =>
    optional(required(parseInt(min, max), `a whole number from ${min} to ${max}`)),
  port: (fallback: number): Setting<number> => withDefault(required(parseInt(0, 65_535), 'a TCP port'), fallback),
  /** An email address, by the API's rule (syntax and RFC 5321 limits). */
  optionalEmail: (): Setting<string | undefined> => optional(required(parseEmail, 'an email address')),
  /** A moment: a date and time with its offset (RFC 3339). */
  optionalTime: (): Setting<Date | undefined> => optional(required(parseTime, 'a date and time such as 2026-11-27T06:00:00Z')),
  /** host:port. */
  address: (fallback?: string): Setting<string> => {
    const base = required(parseAddress, 'host:port');
    return fallback === undefined ? base : withDefault(base, fallback);
  },
  optionalAddress: (): Setting<string | undefined> => optional(required(parseAddress, 'host:port')),
  optionalUrl: (...protocols: string[]): Setting<string | undefined> => optional(required(parseUrl(protocols), `a ${protocols.join('/')} URL`)),
  url: (fallback: string | undefined, ...protocols: string[]): Setting<string> => {
    const base = required(parseUrl(protocols), `a ${protocols.join('/')} URL`);
    return fallback === undefined ? base : withDefault(base, fallback);
  },
  oneOf: <const V extends string>(values: readonly V[], fallback: V): Setting<V> =>
    withDefault(
      required((raw, name) => ((values as readonly string[]).includes(raw) ? ok(raw as V) : problem(`${name} must be one of ${values.join(', ')}`)), values.join(' | ')),
      fallback,
    ),
  /** A Postgres schema (or other SQL identifier). */
  identifier: (fallback: string): Setting<string> =>
    withDefault(
      required((raw, name) => (/^[a-z_][a-z0-9_]{0,62}$/.test(raw) ? ok(raw) : problem(`${name} must be a lowercase SQL identifier`)), 'an identifier'),
      fallback,
    ),
};

/**
 * Reads every variable of the schema from `env`; throws one ConfigError listing each missing or
 * malformed variable (secrets and URLs are never echoed).
 */
export function readConfig<S extends ConfigSchema>(schema: S, env: NodeJS.ProcessEnv = process.env): ConfigOf<S> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(schema)) {
    const raw = env[name];
    const result = spec.read(raw === '' ? undefined : raw, name);
    if ('problem' in result) problems.push(result.problem);
    else values[name] = result.value;
  }
  if (problems.length) {
    throw new ConfigError(`invalid configuration (${problems.length} problem${problems.length > 1 ? 's' : ''}):\n  - ${problems.join('\n  - ')}`);
  }
  return values as ConfigOf<S>;
}

/** Default addresses of the components, as all-in-one binds them and distributed setups override them. */
export const DEFAULT_PORTS = {
  gateway: 8080,
  directory: 50051,
  people: 50052,
  flows: 50053,
  messaging: 50054,
  activities: 50055,
  webhooks: 50056,
} as const;

/** `<NAME>_ADDR`: where a component is reached. */
export type AddressEnv<N extends string> = `${Uppercase<N>}_ADDR`;
export const addressEnv = <N extends string>(name: N): AddressEnv<N> => `${name.toUpperCase() as Uppercase<N>}_ADDR`;
