import {
  type ApiRecord,
  type CursorCodec,
  type EncryptedSecret,
  type FieldValue,
  type PendingWrite,
  type ResourceStore,
  type SqlClient,
  type SqlQueryable,
  type WriteContext,
  CrmError,
  createResourceStore,
  decryptSecret,
  encryptSecret,
  isUuid,
  newId,
} from '@crm/kit';
import { isWebhookEventType, webhookDeliveries, webhookEndpoints } from '@crm/webhooks-contract';
import { type EgressPolicy, urlProblem } from './egress';
import { generateSecret } from './signing';

/** How long the previous secret still signs after a rotation. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export interface WebhooksService {
  endpoints: ResourceStore;
  deliveries: ResourceStore;
  /** A new secret for the endpoint; the previous one signs too for 24 h. Answers the endpoint with the new secret. */
  rotateSecret(workspaceId: string, id: string): Promise<ApiRecord>;
  /** Sends a delivery again now (same webhook-id): pending, due now; answers it. */
  retryDelivery(workspaceId: string, id: string): Promise<ApiRecord>;
  /** The secrets that sign an endpoint's deliveries now: the current one, then the previous one within 24 h. */
  signingSecrets(workspaceId: string, endpointId: string): Promise<string[]>;
  /** The same from the columns already read (the delivery worker's claim returns them). */
  openSecrets(workspaceId: string, endpointId: string, sealed: SealedSecrets): string[];
}

/** An endpoint's signing secrets as stored: sealed with SECRETS_KEY, the previous one with its expiry. */
export interface SealedSecrets {
  signing_secret: unknown;
  previous_signing_secret: unknown;
  previous_signing_secret_expires_at: Date | string | null;
}

export interface WebhooksServiceDeps {
  db: SqlClient;
  cursors: CursorCodec;
  /** 32-byte AES-256-GCM key of endpoint secrets at rest (SECRETS_KEY). */
  secretsKey: Buffer;
  egress: EgressPolicy;
  now?: () => Date;
  /** Wakes the delivery worker (a retry asked for now). */
  wakeDelivery?: () => void;
}

/** A secret is bound to its endpoint (associated data): copied into another record, it does not decrypt. */
const secretBinding = (workspaceId: string, id: string) => `webhook_endpoint:${workspaceId}:${id}`;

/** URL and event types, checked on create and on any update that sets them; enabled defaults to true. */
function endpointRules(egress: EgressPolicy) {
  return (write: PendingWrite): Record<string, FieldValue> => {
    const issues: { field: string; message: string }[] = [];
    const url = write.fields.url;
    if (typeof url === 'string') {
      const problem = urlProblem(url, egress);
      if (problem) issues.push({ field: 'url', message: problem });
    }
    const types = write.fields.event_types;
    if (types !== undefined) {
      if (!Array.isArray(types)) issues.push({ field: 'event_types', message: 'must be an array of event type names' });
      else {
        const bad = types.findIndex((type) => !isWebhookEventType(type));
        if (bad >= 0) issues.push({ field: `event_types[${bad}]`, message: 'is not an event type (see the event_types field for the list)' });
        else if (new Set(types).size !== types.length) issues.push({ field: 'event_types', message: 'must not repeat a type' });
      }
    }
    if (issues.length) throw CrmError.validation(issues);
    const derived: Record<string, FieldValue> = {};
    if (write.mode === 'create') {
      derived.enabled = write.fields.enabled ?? true;
      if (types === undefined || types === null) derived.event_types = [] as unknown as FieldValue;
    } else if (write.fields.enabled === true && write.current?.enabled === false) {
      // Enabled again by hand: the reason the service gave no longer holds.
      derived.disabled_reason = null;
    }
    if (write.fields.event_types === null) derived.event_types = [] as unknown as FieldValue;
    return derived;
  };
}

export function createWebhooksService({ db, cursors, secretsKey, egress, now = () => new Date(), wakeDelivery }: WebhooksServiceDeps): WebhooksService {
  if (secretsKey.length !== 32) throw new Error('secretsKey must be 32 bytes');
  const seal = (workspaceId: string, id: string, secret: string) => JSON.stringify(encryptSecret(secret, secretsKey, secretBinding(workspaceId, id)));
  /**
   * Opened secrets, by what was opened (the binding and the sealed value, which a rotation
   * changes): the delivery worker opens an endpoint's secrets for every delivery, and AES-GCM with
   * its key setup costs more than the delivery's signature. Bounded like signing.ts's keys.
   */
  const opened = new Map<string, string>();
  const unseal = (workspaceId: string, id: string, sealed: unknown) => {
    const cacheKey = `${secretBinding(workspaceId, id)}|${JSON.stringify(sealed)}`;
    let secret = opened.get(cacheKey);
    if (secret === undefined) {
      secret = decryptSecret(sealed as EncryptedSecret, secretsKey, secretBinding(workspaceId, id));
      if (opened.size >= 10_000) opened.delete(opened.keys().next().value!);
      opened.set(cacheKey, secret);
    }
    return secret;
  };

  /** The secrets that sign now, from an endpoint's sealed columns: the current one, then the previous one within 24 h. */
  function openSecrets(workspaceId: string, endpointId: string, row: SealedSecrets): string[] {
    const secrets = [unseal(workspaceId, endpointId, row.signing_secret)];
    const expires = row.previous_signing_secret_expires_at;
    if (row.previous_signing_secret && expires && new Date(expires).getTime() > now().getTime()) {
      secrets.push(unseal(workspaceId, endpointId, row.previous_signing_secret));
    }
    return secrets;
  }

  /** The secrets that sign an endpoint's deliveries now, read from its row; none for an endpoint of no such workspace. */
  async function signingSecrets(workspaceId: string, endpointId: string): Promise<string[]> {
    const { rows } = await db.query<SealedSecrets>(
      `SELECT signing_secret, previous_signing_secret, previous_signing_secret_expires_at FROM webhook_endpoints WHERE workspace_id = $1::uuid AND id = $2::uuid`,
      [workspaceId, endpointId],
    );
    return rows[0] ? openSecrets(workspaceId, endpointId, rows[0]) : [];
  }

  const endpointStore = createResourceStore({ db, cursors, spec: webhookEndpoints, beforeWrite: endpointRules(egress), events: () => [] });
  const deliveryStore = createResourceStore({ db, cursors, spec: webhookDeliveries, events: () => [] });

  const endpoints: ResourceStore = {
    ...endpointStore,
    spec: endpointStore.spec,
    async create(ctx: WriteContext, body: unknown, options = {}) {
      const id = options.id ?? newId();
      const secret = generateSecret();
      let sealed = false;
      const record = await endpointStore.create(ctx, body, {
        ...options,
        id,
        async inTransaction(tx, created) {
          await tx.query(`UPDATE webhook_endpoints SET signing_secret = $3::jsonb WHERE workspace_id = $1::uuid AND id = $2::uuid`, [
            ctx.workspaceId,
            id,
            seal(ctx.workspaceId, id, secret),
          ]);
          sealed = true;
          return options.inTransaction?.(tx, created);
        },
      });
      // A repeat of an Idempotency-Key replays the recorded record without running the transaction:
      // the secret is then the one sealed by the first run (the current one), not the unused new one.
      if (!sealed) return { ...record, secret: (await signingSecrets(ctx.workspaceId, record.id as string))[0] ?? null };
      return { ...record, secret };
    },
  };

  return {
    endpoints,
    deliveries: deliveryStore,

    async rotateSecret(workspaceId, id) {
      const secret = generateSecret();
      const at = now();
      const rotated = await db.transaction(async (tx: SqlQueryable) => {
        const { rows } = await tx.query<{ signing_secret: unknown }>(
          `SELECT signing_secret FROM webhook_endpoints WHERE workspace_id = $1::uuid AND id = $2::uuid FOR UPDATE`,
          [workspaceId, id],
        );
        if (!rows[0]) return false;
        await tx.query(
          `UPDATE webhook_endpoints SET signing_secret = $3::jsonb, previous_signing_secret = signing_secret,
             previous_signing_secret_expires_at = $4::timestamptz, updated_at = $5::timestamptz
           WHERE workspace_id = $1::uuid AND id = $2::uuid`,
          [workspaceId, id, seal(workspaceId, id, secret), new Date(at.getTime() + PREVIOUS_SECRET_TTL_MS).toISOString(), at.toISOString()],
        );
        return true;
      });
      if (!rotated) throw CrmError.notFound('webhook_endpoint');
      return { ...(await endpointStore.get(workspaceId, id)), secret };
    },

    async retryDelivery(workspaceId, id) {
      if (!isUuid(id)) throw CrmError.notFound('webhook_delivery');
      const { rows } = await db.query(
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $3::timestamptz, updated_at = $3::timestamptz
         WHERE workspace_id = $1::uuid AND id = $2::uuid RETURNING id`,
        [workspaceId, id, now().toISOString()],
      );
      if (!rows[0]) throw CrmError.notFound('webhook_delivery');
      wakeDelivery?.();
      return deliveryStore.get(workspaceId, id);
    },

    signingSecrets,
    openSecrets,
  };
}
