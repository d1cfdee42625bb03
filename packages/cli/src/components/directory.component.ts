import { DEFAULT_PORTS } from '@crm/kit';
import { type DirectorySettings, directorySettings, startDirectory } from '@crm/directory';
import { loadSecret, loadSecretsKey, openDocumentStore } from '../runtime';
import type { CommonSettings } from '../settings';
import type { ServiceComponent } from './component';

export const directoryComponent: ServiceComponent<CommonSettings & DirectorySettings> = {
  name: 'directory',
  defaultPort: DEFAULT_PORTS.directory,
  // A component's replicas share the secrets; all-in-one generates any left unset (runtime.ts).
  settings: (mode) => directorySettings(mode === 'component' ? 'required' : 'optional'),
  async start({ log, grpcAddr, mode, settings }) {
    const secretsKey = loadSecretsKey(settings, mode);
    const keyPepper = loadSecret('KEY_PEPPER', settings, mode);
    const cursorSecret = loadSecret('CURSOR_SECRET', settings, mode);
    const store = await openDocumentStore(settings, log);
    const running = await startDirectory({
      store,
      secretsKey,
      keyPepper,
      cursorSecret,
      grpcAddr,
      log,
      integrationCheckIntervalMs: settings.INTEGRATION_CHECK_INTERVAL_MS,
      integrationCheckTimeoutMs: settings.INTEGRATION_CHECK_TIMEOUT_MS,
      // Set-password links point at the gateway; all-in-one puts its own address here when unset.
      publicUrl: settings.PUBLIC_URL,
    });
    return {
      address: running.server.address,
      stop: async (drainUntil) => {
        await running.stop(drainUntil - Date.now());
        await store.close();
      },
    };
  },
};
