import { DEFAULT_PORTS } from '@crm/kit';
import { startDirectory } from '@crm/directory';
import { loadSecret, loadSecretsKey, openDocumentStore } from '../runtime';
import { directorySettings } from '../settings';
import type { ServiceComponent } from './component';

export const directoryComponent: ServiceComponent = {
  name: 'directory',
  defaultPort: DEFAULT_PORTS.directory,
  settings: directorySettings,
  async start({ log, grpcAddr, mode, settings }) {
    const secretsKey = loadSecretsKey(settings, mode);
    const keyPepper = loadSecret('KEY_PEPPER', settings, mode);
    const cursorSecret = loadSecret('CURSOR_SECRET', settings, mode);
    const store = await openDocumentStore(settings, log);
    const running = await startDirectory({ store, secretsKey, keyPepper, cursorSecret, grpcAddr, log });
    return {
      address: running.server.address,
      stop: async (drainUntil) => {
        await running.stop(drainUntil - Date.now());
        await store.close();
      },
    };
  },
};
