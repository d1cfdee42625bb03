export {
  DEFAULT_SEND_QUOTA_PER_HOUR,
  SEND_QUOTA_WINDOW_MS,
  createMemorySendQuota,
  createRedisSendQuota,
  type SendQuota,
  type SendQuotaDecision,
} from './send-quota';
