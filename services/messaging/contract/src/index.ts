/**
 * The messaging context's contract: resource declarations, the route table and the context's own
 * error codes, shared by the gateway and the messaging service (and the flow engine, which queues
 * sends through it).
 */
export { sentEmails, MAIL_PROVIDERS, MAX_BODY_LENGTH, MAX_SUBJECT_LENGTH, SENT_EMAIL_STATUSES } from './sent-emails.resource';
export { emailEvents, BOUNCE_TYPES, EMAIL_EVENT_TYPES } from './email-events.resource';
export {
  touchpoints,
  TOUCHPOINT_CHANNELS,
  TOUCHPOINT_DIRECTIONS,
  TOUCHPOINT_SOURCES,
  TOUCHPOINT_STATUSES,
} from './touchpoints.resource';
export { chatappTemplates, emailTemplates, CHATAPP_CHANNELS } from './templates.resource';
export { messagingApi } from './messaging.api';
export { MESSAGING_ERRORS, MessagingError, MessagingErrorCode } from './messaging.errors';
export {
  DEFAULT_PERFORMANCE_WINDOW,
  PERFORMANCE_COUNTERS,
  PERFORMANCE_WINDOWS,
  TIMELINE_DEFAULT_LIMIT,
  TIMELINE_KINDS,
  TIMELINE_MAX_LIMIT,
  parsePerformanceQuery,
  parseTimelineQuery,
  type PerformanceCounter,
  type PerformanceWindow,
  type TimelineKind,
  type TimelineQuery,
} from './views';
