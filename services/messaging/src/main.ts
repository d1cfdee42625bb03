import { REDIS_SETTINGS, type RedisClient, type SqlServiceDefinition, createMemorySendQuota, createRedis, createRedisSendQuota, setting } from '@crm/kit';
import { directoryApi } from '@crm/directory-contract';
import { messagingApi } from '@crm/messaging-contract';
import { peopleApi } from '@crm/people-contract';
import { activityLedger, createActivityLedger } from './activity-ledger.consumer';
import { activityTouchpoints, createActivityTouchpoints } from './activity-touchpoints.consumer';
import { contactDeletions, createContactDeletions } from './contact-deletions.consumer';
import { inboundSmtpWorker } from './inbound/inbound-smtp.worker';
import { messagingGrpcBinding } from './messaging.grpc';
import { type MessagingService, createMessagingService } from './messaging.service';
import { migrations } from './migrations';

/** The variables messaging reads; their names are contracts (the root README.md, "Running distributed"). */
export const MESSAGING_SETTINGS = {
  PUBLIC_URL: setting.url('http://127.0.0.1:8080', 'http', 'https'),
  MAIL_DOMAIN: setting.optionalString(),
  MAIL_FROM: setting.optionalEmail(),
  SMTP_URL: setting.optionalUrl('smtp', 'smtps'),
  INBOUND_SMTP_ADDR: setting.optionalAddress(),
  INBOUND_MAX_BYTES: setting.int(10 * 1024 * 1024, 1_024, 100 * 1024 * 1024),
  SEND_QUOTA_PER_HOUR: setting.int(5_000, 1, 10_000_000),
  // One server, or with REDIS_CLUSTER=true the seed URLs of a Redis Cluster (README.md, "Send quota").
  REDIS_URL: REDIS_SETTINGS.REDIS_URL,
  REDIS_CLUSTER: REDIS_SETTINGS.REDIS_CLUSTER,
  DELIVERY_CONCURRENCY: setting.int(16, 1, 256),
  DELIVERY_RETRY_BASE_MS: setting.int(60_000, 10, 3_600_000),
  DELIVERY_MAX_ATTEMPTS: setting.int(6, 1, 50),
  DELIVERY_LEASE_MS: setting.int(120_000, 5_000, 3_600_000),
  CRM_DATA_DIR: setting.string('.data'),
} as const;

const redisOf = new WeakMap<MessagingService, RedisClient>();

/**
 * The messaging service: sends (queued by the API and the flow engine, delivered by its worker),
 * email events, touchpoints, templates, the suppression list and the send quota; the inbound SMTP
 * listener when INBOUND_SMTP_ADDR is set; touchpoints of activities' calls and meetings.
 */
export const messagingService: SqlServiceDefinition<MessagingService, { people: typeof peopleApi; directory: typeof directoryApi }, typeof MESSAGING_SETTINGS> = {
  name: 'messaging',
  migrations,
  resources: messagingApi.routes.map((route) => route.spec),
  peers: { people: peopleApi, directory: directoryApi },
  config: MESSAGING_SETTINGS,
  create({ db, cursors, cursorSecret, afterCommit, log, clock, peers, config }) {
    const publicUrl = config.PUBLIC_URL.replace(/\/+$/, '');
    const mailDomain = config.MAIL_DOMAIN ?? new URL(publicUrl).hostname;
    const redis = config.REDIS_URL ? createRedis({ url: config.REDIS_URL, cluster: config.REDIS_CLUSTER }) : undefined;
    const quota = redis ? createRedisSendQuota(redis, config.SEND_QUOTA_PER_HOUR) : createMemorySendQuota(config.SEND_QUOTA_PER_HOUR);
    const service = createMessagingService({
      db,
      cursors,
      afterCommit,
      log,
      clock,
      quota,
      people: peers.people,
      directory: peers.directory,
      settings: {
        publicUrl,
        mailDomain,
        defaultFrom: config.MAIL_FROM ?? `outreach@${mailDomain}`,
        smtpUrl: config.SMTP_URL,
        dataDir: config.CRM_DATA_DIR,
        // The cursor secret's family: one secret every replica shares already (the tokens derive their own key).
        trackingSecrets: [cursorSecret],
        deliveryConcurrency: config.DELIVERY_CONCURRENCY,
        retryBaseMs: config.DELIVERY_RETRY_BASE_MS,
        maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
        leaseMs: config.DELIVERY_LEASE_MS,
        inboundMaxBytes: config.INBOUND_MAX_BYTES,
      },
    });
    if (redis) redisOf.set(service, redis);
    return service;
  },
  bindings: (service, log) => [messagingGrpcBinding(service, log)],
  consumers: async (service, { bus, db, log, afterCommit }) => [
    await activityTouchpoints.subscribe(bus, db.schema, createActivityTouchpoints({ db, log, afterCommit })),
    await activityLedger.subscribe(bus, db.schema, createActivityLedger({ db, log })),
    await contactDeletions.subscribe(bus, db.schema, createContactDeletions({ db, log, afterCommit })),
  ],
  workers: (service, { config, log }) => [
    service.delivery,
    ...(config.INBOUND_SMTP_ADDR ? [inboundSmtpWorker({ inbound: service.inbound, address: config.INBOUND_SMTP_ADDR, log, maxBytes: config.INBOUND_MAX_BYTES })] : []),
  ],
  async close(service) {
    await service.close();
    redisOf.get(service)?.disconnect();
  },
};
