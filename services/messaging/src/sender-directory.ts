import { CrmError, type ServiceClient, fromStruct } from '@crm/kit';
import type { DirectoryServiceDefinition } from '@crm/proto';

/**
 * Who a workspace's mail comes from and through which server, asked of the directory and kept for
 * a short while (sends come in bursts; an integration or a user changes rarely, and a change is
 * seen within the cache's life).
 */
export interface SmtpAccount {
  integrationId: string;
  /** Changes when the integration does: a cached transport older than this is rebuilt. */
  version: string;
  host: string;
  port: number;
  secure: boolean;
  username?: string;
  password: string;
}

export interface Sender {
  /** The integration's from_email, else the owner's address; undefined leaves it to MAIL_FROM. */
  fromEmail?: string;
  fromName?: string;
  /** Envelope sender bounces+{id}@MAIL_DOMAIN (default), or the from address. */
  verp: boolean;
  /** `sender.*` of the templates: the owner's full_name, first_name, email. */
  variables: Record<string, unknown>;
}

export interface SenderDirectory {
  sender(workspaceId: string, ownerId: string | null): Promise<Sender>;
  /** The workspace's own SMTP server, when it has an enabled smtp integration. */
  smtpAccount(workspaceId: string): Promise<SmtpAccount | undefined>;
}

interface Cached<T> {
  at: number;
  value: Promise<T>;
}

interface Integration {
  account: SmtpAccount;
  fromEmail?: string;
  fromName?: string;
  verp: boolean;
}

export function createSenderDirectory(directory: ServiceClient<DirectoryServiceDefinition>, ttlMs = 30_000, now: () => number = Date.now): SenderDirectory {
  const integrations = new Map<string, Cached<Integration | undefined>>();
  const users = new Map<string, Cached<{ full_name: string; email: string } | undefined>>();

  function cached<T>(map: Map<string, Cached<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const hit = map.get(key);
    if (hit && now() - hit.at < ttlMs) return hit.value;
    const value = load();
    map.set(key, { at: now(), value });
    // A failed look-up is not remembered: the next send asks again.
    value.catch(() => map.delete(key));
    if (map.size > 10_000) map.delete(map.keys().next().value!);
    return value;
  }

  const integration = (workspaceId: string) =>
    cached(integrations, workspaceId, async () => {
      const found = await directory.call('GetSendingIntegration', { workspace_id: workspaceId });
      if (!found.found) return undefined;
      const config = fromStruct(found.config) as Record<string, unknown>;
      return {
        account: {
          integrationId: found.integration_id,
          version: found.updated_at,
          host: String(config.host),
          port: Number(config.port),
          secure: config.secure === true,
          username: typeof config.username === 'string' ? config.username : undefined,
          password: found.password,
        },
        fromEmail: typeof config.from_email === 'string' ? config.from_email : undefined,
        fromName: typeof config.from_name === 'string' ? config.from_name : undefined,
        verp: config.verp !== false,
      };
    });

  const user = (workspaceId: string, id: string) =>
    cached(users, `${workspaceId}:${id}`, async () => {
      try {
        const found = await directory.call('GetUser', { workspace_id: workspaceId, id });
        return { full_name: found.full_name, email: found.email };
      } catch (error) {
        // An owner_id that names no user of the workspace (owners are not checked against the
        // directory) simply has no sender details.
        if (error instanceof CrmError && error.code === 'not_found') return undefined;
        throw error;
      }
    });

  return {
    async sender(workspaceId, ownerId) {
      const [account, owner] = await Promise.all([integration(workspaceId), ownerId ? user(workspaceId, ownerId) : Promise.resolve(undefined)]);
      return {
        fromEmail: account?.fromEmail ?? owner?.email,
        fromName: account?.fromName ?? owner?.full_name,
        verp: account?.verp ?? true,
        variables: owner ? { full_name: owner.full_name, first_name: owner.full_name.split(/\s+/)[0] ?? '', email: owner.email } : {},
      };
    },
    async smtpAccount(workspaceId) {
      return (await integration(workspaceId))?.account;
    },
  };
}
