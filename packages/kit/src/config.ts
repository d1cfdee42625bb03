/** Reading configuration from the environment, failing at start with a message that names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function env(name: string, fallback?: string): string {
  const value = process.env[name];
  if (value !== undefined && value !== '') return value;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`environment variable ${name} is required`);
}

export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function intEnv(name: string, fallback: number): number {
  const raw = optionalEnv(name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`environment variable ${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

/** Default addresses of the components, as all-in-one binds them and distributed setups override them. */
export const DEFAULT_PORTS = {
  gateway: 8080,
  directory: 50051,
  people: 50052,
  flows: 50053,
  messaging: 50054,
  activities: 50055,
} as const;
