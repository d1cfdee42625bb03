import { DirectoryError, DirectoryErrorCode, integrations as integrationsSpec } from '@crm/directory-contract';
import { CrmError, type CursorCodec, type FieldIssue, type ListQuery, type Page, isUuid, newId } from '@crm/kit';
import { type AggregateDeps, LIMITS, optionalText, requireIds, requiredId, requiredText, throwIfAny } from './aggregate-support';
import { INDEX_NAMES, type IntegrationDoc, type IntegrationStatus } from './directory.schema';
import { type SmtpConfig, integrationConfig, parseSmtpConfig } from './integration-config';
import { decryptSecret, encryptSecret } from './secrets';
import { documentLister } from './store/document-list';
import { DuplicateKeyError, type DocumentCollection } from './store/document-store';
import type { FindWorkspace } from './workspaces';

/**
 * Integrations: a workspace's accounts with outside systems. The secret is encrypted at rest
 * (`secrets.ts`) and leaves only through `readIntegrationSecret` and `getSendingIntegration`, for
 * other services; the non-secret settings are checked per type (`integration-config.ts`).
 */

export interface Integration {
  id: string;
  workspace_id: string;
  type: string;
  name: string;
  status: IntegrationStatus;
  enabled: boolean;
  svc_uid: string | null;
  /** Non-secret settings; never the secret. */
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** The workspace's SMTP account as messaging needs it: settings and the decrypted password. */
export interface SendingIntegration {
  integration_id: string;
  config: SmtpConfig;
  password: string;
  updated_at: string;
}

export interface CreateIntegrationInput {
  workspace_id: string;
  type: string;
  name: string;
  /** Encrypted at rest; never returned by any operation but `readIntegrationSecret`. */
  secret: string;
  svc_uid?: string | null;
  /** Non-secret settings, checked for the type (smtp: host required). */
  config?: Record<string, unknown> | null;
}

export interface Integrations {
  createIntegration(input: CreateIntegrationInput): Promise<Integration>;
  getIntegration(workspaceId: string, id: string): Promise<Integration>;
  /** GET /v1/integrations: never a secret, in any record. */
  listIntegrations(workspaceId: string, query: ListQuery): Promise<Page>;
  /** For other services' internal use (messaging sending through an integration); never exposed by the API. */
  readIntegrationSecret(workspaceId: string, id: string): Promise<string>;
  /** The workspace's enabled `smtp` integration (the most recently changed one), for messaging. */
  getSendingIntegration(workspaceId: string): Promise<SendingIntegration | undefined>;
}

export interface IntegrationsDeps extends AggregateDeps {
  integrations: DocumentCollection<IntegrationDoc>;
  cursors: CursorCodec;
  /** 32-byte AES-256-GCM key for integration secrets (SECRETS_KEY). */
  secretsKey: Buffer;
  findWorkspace: FindWorkspace;
}

const SECRET_MAX = 65_536;
const INTEGRATION_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

export function createIntegrations(deps: IntegrationsDeps): Integrations {
  const { integrations, cursors, secretsKey, findWorkspace, ready, timestamp } = deps;
  const integrationList = documentLister({ spec: integrationsSpec, collection: integrations, cursors, toRecord: (doc) => ({ ...toIntegration(doc) }) });

  async function findIntegration(workspaceId: string, id: string): Promise<IntegrationDoc> {
    const doc =
      isUuid(id) && isUuid(workspaceId) ? await integrations.findOne({ _id: id, workspace_id: workspaceId }) : null;
    if (!doc) throw CrmError.notFound('integration');
    return doc;
  }

  return {
    async createIntegration(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      const type = requiredText(issues, 'type', input?.type, 64);
      if (type && !INTEGRATION_TYPE.test(type)) {
        issues.push({ field: 'type', message: 'must be lowercase letters, digits and underscores, starting with a letter' });
      }
      const name = requiredText(issues, 'name', input?.name, LIMITS.name);
      // The secret is taken verbatim: trimming could change a password.
      const secret = input?.secret;
      if (typeof secret !== 'string' || secret.length === 0) {
        issues.push({ field: 'secret', message: 'is required' });
      } else if (secret.length > SECRET_MAX) {
        issues.push({ field: 'secret', message: `must be at most ${SECRET_MAX} characters` });
      }
      const svcUid = optionalText(issues, 'svc_uid', input?.svc_uid, LIMITS.svcUid);
      const config = integrationConfig(issues, type, input?.config);
      throwIfAny(issues);
      await ready();
      await findWorkspace(workspaceId);

      const id = newId();
      const at = timestamp();
      const doc: IntegrationDoc = {
        _id: id,
        workspace_id: workspaceId,
        type,
        name,
        status: 'connected',
        enabled: true,
        svc_uid: svcUid,
        secret: encryptSecret(secret as string, secretsKey, secretBinding(workspaceId, id)),
        config,
        created_at: at,
        updated_at: at,
      };
      try {
        await integrations.insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError && err.index === INDEX_NAMES.integrationSvcUid) {
          throw new DirectoryError(DirectoryErrorCode.SvcUidTaken, 'another integration in the workspace already has this svc_uid');
        }
        throw err;
      }
      return toIntegration(doc);
    },

    async getIntegration(workspaceId, id) {
      requireIds({ workspace_id: workspaceId, id });
      await ready();
      return toIntegration(await findIntegration(workspaceId, id));
    },

    async listIntegrations(workspaceId, query) {
      requireIds({ workspace_id: workspaceId });
      await ready();
      return integrationList.list(workspaceId, query);
    },

    async readIntegrationSecret(workspaceId, id) {
      requireIds({ workspace_id: workspaceId, id });
      await ready();
      const doc = await findIntegration(workspaceId, id);
      return decryptSecret(doc.secret, secretsKey, secretBinding(workspaceId, id));
    },

    async getSendingIntegration(workspaceId) {
      requireIds({ workspace_id: workspaceId });
      await ready();
      if (!isUuid(workspaceId)) return undefined;
      const [doc] = await integrations.find({ workspace_id: workspaceId, type: 'smtp', enabled: true }, { sort: { updated_at: -1 }, limit: 1 });
      if (!doc) return undefined;
      const config = parseSmtpConfig(doc.config ?? {});
      if (!config) return undefined;
      return {
        integration_id: doc._id,
        config,
        password: decryptSecret(doc.secret, secretsKey, secretBinding(workspaceId, doc._id)),
        updated_at: doc.updated_at,
      };
    },
  };
}

/** Ties a stored secret to its integration, so a ciphertext copied onto another record will not decrypt. */
const secretBinding = (workspaceId: string, integrationId: string): string =>
  `integration:${workspaceId}:${integrationId}`;

function toIntegration(doc: IntegrationDoc): Integration {
  return {
    id: doc._id,
    workspace_id: doc.workspace_id,
    type: doc.type,
    name: doc.name,
    status: doc.status,
    enabled: doc.enabled,
    svc_uid: doc.svc_uid,
    config: doc.config ?? {},
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}
