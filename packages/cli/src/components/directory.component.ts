import { DEFAULT_PORTS } from '@crm/kit';
import { startDirectory } from '@crm/directory';
import { loadSecret, loadSecretsKey, openDocumentStore } from '../runtime';
import type { ServiceComponent } from './component';

export const directoryComponent: ServiceComponent = {
  name: 'directory',
  defaultPort: DEFAULT_PORTS.directory,
  async start({ log, grpcAddr, mode }) {
    const secretsKey = loadSecretsKey(mode);
    const keyPepper = loadSecret('KEY_PEPPER', mode);
    const store = await openDocumentStore(log);
    const running = await startDirectory({ store, secretsKey, keyPepper, grpcAddr, log });
    return {
      address: running.server.address,
      stop: async () => {
        await running.stop();
        await store.close();
      },
    };
  },
};
