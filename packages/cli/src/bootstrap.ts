import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { directoryCaller } from './directory-client';


export interface FirstKey {
  workspaceId: string;
  workspaceName: string;
  key: string;
  /** The workspace's owner, and the one-time link that sets their password (24 h). */
  owner: { email: string; link: string; expiresAt: string };
}

export const DEFAULT_WORKSPACE_NAME = 'Default workspace';
export const DEFAULT_OWNER_EMAIL = 'owner@example.com';

/**
 * On the first start of a data folder: a default workspace, its owner (OWNER_EMAIL) with a link to
 * set their password and sign in, and one full-scope key; the key and the link are returned to be
 * printed once. A marker file (holding ids, never the key or the link) makes later starts skip it.
 */
export async function bootstrapDefaultWorkspace(directoryAddr: string, dataDir: string, ownerEmail: string): Promise<FirstKey | undefined> {
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
    const owner = await directory.call<{ id: string; email: string }>('CreateUser', {
      workspace_id: workspace.id,
      email: ownerEmail,
      full_name: 'Owner',
      role: 'owner',
    });
    const invite = await directory.call<{ link: string; expires_at: string }>('IssuePasswordToken', { workspace_id: workspace.id, user_id: owner.id });
    writeFileSync(
      marker,
      JSON.stringify({ workspace_id: workspace.id, key_id: key.id, owner_id: owner.id, created_at: new Date().toISOString() }, null, 2),
      { mode: 0o600 },
    );
    return {
      workspaceId: workspace.id,
      workspaceName: workspace.name,
      key: key.key,
      owner: { email: owner.email, link: invite.link, expiresAt: invite.expires_at },
    };
  } finally {
    directory.close();
  }
}
