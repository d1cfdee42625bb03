import type { ServiceComponent } from './component';

const isMissingModule = (error: unknown, module: string) =>
  (error as NodeJS.ErrnoException)?.code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes(module);

/**
 * One component by name, loading only its own module (`./<name>.component`): `crm start people`
 * needs the people service and none of the others, so each service's image holds only its own
 * code (scripts/image-files.mjs computes what it holds; test/infra checks it). A component without
 * a module of its own is found in the full list, which loads every service.
 */
export async function loadComponent(name: string): Promise<ServiceComponent | undefined> {
  if (/^[a-z][a-z0-9-]*$/.test(name)) {
    const module = `./${name}.component`;
    let exported: Record<string, unknown> = {};
    try {
      // require, not import(): a CommonJS module resolved the same way compiled and under Jest.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      exported = require(module) as Record<string, unknown>;
    } catch (error) {
      if (!isMissingModule(error, module)) throw error;
    }
    const own = Object.values(exported).find((value) => (value as ServiceComponent | undefined)?.name === name);
    if (own) return own as ServiceComponent;
  }
  return (await allComponents()).find((c) => c.name === name);
}

/** Every component (all-in-one, `crm migrate` without a name, usage). */
export async function allComponents(): Promise<readonly ServiceComponent[]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./index') as typeof import('./index')).SERVICE_COMPONENTS;
}
