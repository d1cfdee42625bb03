import { DirectoryError, DirectoryErrorCode, INTEGRATION_TYPES, integrations as integrationsSpec } from '@crm/directory-contract';
import { CrmError, type CursorCodec, type FieldIssue, type ListQuery, type Page, decryptSecret, encryptSecret, isUuid, mapLimit, newId, remainingMs } from '@crm/kit';
import { type AggregateDeps, LIMITS, optionalText, requireIds, requiredId, requiredText, throwIfAny } from './aggregate-support';
import { INDEX_NAMES, type IntegrationDoc, type IntegrationStatus } from './directory.schema';
import type { CheckOutcome, SmtpCheck } from './integration-check';
import { type SmtpConfig, integrationConfig, parseSmtpConfig } from './integration-config';
import { documentLister } from './store/document-list';
import { DuplicateKeyError, type DocumentCollection } from './store/document-store';
import type { FindWorkspace } from './workspaces';

/**
 * Integrations: a workspace's accounts with outside systems. The secret is encrypted at rest
 * (`secrets.ts`) and leaves only through `readIntegrationSecret` and `getSendingIntegration`, for
 * other services; the non-secret settings are checked per type (`integration-config.ts`). An
 * integration's `status` is what the last check of its server found (`integration-check.ts`): at
 * creation, then whenever the check is an interval old (`checkDueIntegrations`).
 */

export interface Integration {
  id: string;
  workspace_id: string;
  type: string;
  name: string;
  status: IntegrationStatus;
  /** Why the last check failed, never carrying the secret; null unless `status` is `error`. */
  status_reason: string | null;
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

/** A check the periodic round ran (`checkDueIntegrations`). */
export interface IntegrationCheckResult {
  integration_id: string;
  workspace_id: string;
  status: CheckOutcome['status'];
  status_reason: string | null;
  /** Whether the status or its reason differ from what the record said before. */
  changed: boolean;
}

export interface Integrations {
  /**
   * Stores the integration as `checking` and checks its server at once. The answer waits for that
   * check while the caller's deadline allows (up to the check's own timeout), so it normally
   * carries `connected` or `error`; past that it is `checking`, and the check records its outcome
   * when it ends.
   */
  createIntegration(input: CreateIntegrationInput): Promise<Integration>;
  getIntegration(workspaceId: string, id: string): Promise<Integration>;
  /** GET /v1/integrations: never a secret, in any record. */
  listIntegrations(workspaceId: string, query: ListQuery): Promise<Page>;
  /** For other services' internal use (messaging sending through an integration); never exposed by the API. */
  readIntegrationSecret(workspaceId: string, id: string): Promise<string>;
  /** The workspace's enabled `smtp` integration (the most recently changed one), for messaging. */
  getSendingIntegration(workspaceId: string): Promise<SendingIntegration | undefined>;
  /**
   * Checks again, across every workspace, the enabled integrations whose last check began at least
   * `intervalMs` ago (or never, or whose check was abandoned), at most `limit` of them. Each check
   * is claimed first, so replicas running this at once check an integration once.
   */
  checkDueIntegrations(intervalMs: number, options?: { limit?: number; signal?: AbortSignal }): Promise<IntegrationCheckResult[]>;
}

export interface IntegrationsDeps extends AggregateDeps {
  integrations: DocumentCollection<IntegrationDoc>;
  cursors: CursorCodec;
  /** 32-byte AES-256-GCM key for integration secrets (SECRETS_KEY). */
  secretsKey: Buffer;
  findWorkspace: FindWorkspace;
  /** Checks an smtp integration's server (`integration-check.ts`). */
  smtpCheck: SmtpCheck;
}

const SECRET_MAX = 65_536;
const KNOWN_TYPES: readonly string[] = INTEGRATION_TYPES;
/** Kept back from the caller's deadline, so the answer reaches it in time when creation waits for the check. */
const DEADLINE_RESERVE_MS = 1_000;
/** Time for a check that used all of its timeout to write its outcome. */
const RECORD_SLACK_MS = 500;
/** How long a check's lease outlasts the check's own timeout, to record its outcome. */
const LEASE_MARGIN_MS = 5_000;
const CHECKS_AT_ONCE = 8;

export function createIntegrations(deps: IntegrationsDeps): Integrations {
  const { integrations, cursors, secretsKey, findWorkspace, ready, timestamp, smtpCheck } = deps;
  const integrationList = documentLister({ spec: integrationsSpec, collection: integrations, cursors, toRecord: (doc) => ({ ...toIntegration(doc) }) });

  async function findIntegration(workspaceId: string, id: string): Promise<IntegrationDoc> {
    const doc =
      isUuid(id) && isUuid(workspaceId) ? await integrations.findOne({ _id: id, workspace_id: workspaceId }) : null;
    if (!doc) throw CrmError.notFound('integration');
    return doc;
  }

  const newLease = (at: number) => ({ id: newId(), until: new Date(at + smtpCheck.timeoutMs + LEASE_MARGIN_MS).toISOString() });

  /**
   * Runs the check that `leaseId` holds and records what it found. Only the holder writes, and
   * only over the config it checked: a later check, or a change of the record, wins. Never throws:
   * a result that cannot be written leaves the record due again once the lease lapses, as does a
   * check that `signal` stopped, which records nothing.
   */
  async function checkAndRecord(doc: IntegrationDoc, leaseId: string, password: string | undefined, signal?: AbortSignal): Promise<CheckOutcome> {
    const config = parseSmtpConfig(doc.config ?? {});
    const outcome: CheckOutcome =
      password === undefined
        ? { status: 'error', reason: 'its secret cannot be decrypted with this SECRETS_KEY' }
        : config
          ? await smtpCheck.check(config, password, signal).catch(() => ({ status: 'error' as const, reason: 'the check could not run' }))
          : { status: 'error', reason: 'its config is not a usable smtp config' };
    if (signal?.aborted) return outcome;
    await integrations
      .updateOne(
        { _id: doc._id, workspace_id: doc.workspace_id, updated_at: doc.updated_at, 'check_lease.id': leaseId },
        { $set: { status: outcome.status, status_reason: outcome.reason, status_checked_at: timestamp(), check_lease: null } },
      )
      .catch(() => undefined);
    return outcome;
  }

  const decrypted = (doc: IntegrationDoc): string | undefined => {
    try {
      return decryptSecret(doc.secret, secretsKey, secretBinding(doc.workspace_id, doc._id));
    } catch {
      return undefined;
    }
  };

  return {
    async createIntegration(input) {
      const issues: FieldIssue[] = [];
      const workspaceId = requiredId(issues, 'workspace_id', input?.workspace_id);
      const type = typeof input?.type === 'string' ? input.type.trim() : '';
      if (!KNOWN_TYPES.includes(type)) issues.push({ field: 'type', message: type ? `must be one of ${KNOWN_TYPES.join(', ')}` : 'is required' });
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
      // The creation's own check holds the lease, so no periodic round checks it meanwhile.
      const lease = newLease(Date.parse(at));
      const doc: IntegrationDoc = {
        _id: id,
        workspace_id: workspaceId,
        type,
        name,
        status: 'checking',
        status_reason: null,
        status_checked_at: null,
        check_lease: lease,
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
      const checked = checkAndRecord(doc, lease.id, secret as string);
      const waitMs = Math.min(smtpCheck.timeoutMs + RECORD_SLACK_MS, (remainingMs() ?? Number.POSITIVE_INFINITY) - DEADLINE_RESERVE_MS);
      if (waitMs > 0) await settledWithin(checked, waitMs);
      return toIntegration((await integrations.findOne({ _id: id, workspace_id: workspaceId })) ?? doc);
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

    async checkDueIntegrations(intervalMs, { limit = 100, signal } = {}) {
      await ready();
      const now = Date.parse(timestamp());
      const due = await integrations.find(
        {
          type: 'smtp',
          enabled: true,
          $and: [
            { $or: [{ check_lease: null }, { 'check_lease.until': { $lt: new Date(now).toISOString() } }] },
            { $or: [{ status_checked_at: null }, { status_checked_at: { $lte: new Date(now - intervalMs).toISOString() } }] },
          ],
        },
        { sort: { status_checked_at: 1 }, limit },
      );
      const results = await mapLimit(due, CHECKS_AT_ONCE, async (doc): Promise<IntegrationCheckResult | undefined> => {
        if (signal?.aborted) return undefined;
        // Taken only if nobody took it, or finished a check, since it was read.
        const lease = newLease(now);
        const claim = await integrations.updateOne(
          {
            _id: doc._id,
            workspace_id: doc.workspace_id,
            status_checked_at: doc.status_checked_at ?? null,
            ...(doc.check_lease ? { 'check_lease.id': doc.check_lease.id } : { check_lease: null }),
          },
          { $set: { check_lease: lease } },
        );
        if (claim.matchedCount === 0) return undefined;
        const outcome = await checkAndRecord(doc, lease.id, decrypted(doc), signal);
        if (signal?.aborted) return undefined;
        return {
          integration_id: doc._id,
          workspace_id: doc.workspace_id,
          status: outcome.status,
          status_reason: outcome.reason,
          changed: outcome.status !== doc.status || outcome.reason !== (doc.status_reason ?? null),
        };
      });
      return results.filter((result) => result !== undefined);
    },
  };
}

/** Waits for `work` at most `ms`; never rejects (`work` never does either). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
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
    status_reason: doc.status_reason ?? null,
    enabled: doc.enabled,
    svc_uid: doc.svc_uid,
    config: doc.config ?? {},
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}
