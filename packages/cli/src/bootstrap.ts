import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { directoryCaller } from './directory-client';


export interface FirstKey {
  workspaceId: string;
  workspaceName: string;
  key: string;
}

export const DEFAULT_WORKSPACE_NAME = 'Default workspace';

/**
 * On the first start of a data folder: a default workspace and one full-scope key, which is
 * returned to be printed once. A marker file (holding ids, never the key) makes later starts skip it.
 */
export async function bootstrapDefaultWorkspace(directoryAddr: string, dataDir: string): Promise<FirstKey | undefined> {
  const marker = path.join(dataDir, 'bootstrap.json');
  if (existsSync(marker)) return undefined;
  const directory = directoryCaller(directoryAddr);
  try {
    const workspace = await directory.call<{ id: string; name: string }>('CreateWorkspace', { name: DEFAULT_WORKSPACE_NAME });
    const key = await directory.call<{ id: string; key: string }>('CreateApiKey', {
      workspace_id: workspace.id,
      scopes: ['*'],
      env: 'live',
      name: 'first-start key',
    });
    writeFileSync(
      marker,
      JSON.stringify({ workspace_id: workspace.id, key_id: key.id, created_at: new Date().toISOString() }, null, 2),
      { mode: 0o600 },
    );
    return { workspaceId: workspace.id, workspaceName: workspace.name, key: key.key };
  } finally {
    directory.close();
  }
}
