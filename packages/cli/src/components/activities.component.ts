import { DEFAULT_PORTS, optionalEnv } from '@crm/kit';
import { migrations, startActivities } from '@crm/activities';
import { loadSecret, openSql } from '../runtime';
import type { ServiceComponent } from './component';

export const activitiesComponent: ServiceComponent = {
  name: 'activities',
  defaultPort: DEFAULT_PORTS.activities,
  database: { schema: 'activities', migrations },
  async start({ log, grpcAddr, bus, mode }) {
    const cursorSecret = loadSecret('CURSOR_SECRET', mode);
    const db = await openSql(optionalEnv('DB_SCHEMA') ?? 'activities', log);
    const running = await startActivities({ db, bus, cursorSecret, grpcAddr, log });
    return {
      address: running.server.address,
      stop: async () => {
        await running.stop();
        await db.close();
      },
    };
  },
};
