import { DEFAULT_PORTS, optionalEnv } from '@crm/kit';
import { migrations, startPeople } from '@crm/people';
import { loadSecret, openSql } from '../runtime';
import type { ServiceComponent } from './component';

export const peopleComponent: ServiceComponent = {
  name: 'people',
  defaultPort: DEFAULT_PORTS.people,
  database: { schema: 'people', migrations },
  async start({ log, grpcAddr, bus, mode }) {
    const cursorSecret = loadSecret('CURSOR_SECRET', mode);
    const db = await openSql(optionalEnv('DB_SCHEMA') ?? 'people', log);
    const running = await startPeople({ db, bus, cursorSecret, grpcAddr, log });
    return {
      address: running.server.address,
      stop: async () => {
        await running.stop();
        await db.close();
      },
    };
  },
};
