/**
 * The mail core of messaging: pure, transport-free building blocks the service wires together.
 * See README.md beside this file for the flow, the limits and the rules.
 */
export {
  createTemplateRenderer,
  DEFAULT_TEMPLATE_LIMITS,
  SAMPLE_VARIABLES,
  TemplateError,
  type RenderedTemplates,
  type TemplateErrorReason,
  type TemplateField,
  type TemplateLimits,
  type TemplateRenderer,
  type TemplateRendererOptions,
  type Templates,
  type TemplateVariables,
} from './template-renderer';
export {
  buildMessage,
  headerText,
  MessageBuildError,
  type BuiltMessage,
  type MailAddress,
  type MessageBuildErrorCode,
  type MessageInput,
} from './message-builder';
export {
  createTrackingTokens,
  insertOpenPixel,
  MAX_LINK_INDEX,
  rewriteLinks,
  TRACKING_PATHS,
  TrackingError,
  trackingUrl,
  type ClaimOf,
  type RewriteLinksOptions,
  type RewrittenLinks,
  type TrackingClaim,
  type TrackingErrorCode,
  type TrackingKind,
  type TrackingTokens,
  type TrackingTokensOptions,
} from './tracking';
export {
  DEFAULT_BOT_RULES,
  detectBot,
  KNOWN_AGENTS,
  type BotReason,
  type BotRules,
  type BotVerdict,
  type EngagementHit,
  type EngagementType,
  type RecentClick,
} from './bot-detection';
export {
  deliveryReport,
  type DeliveryReport,
  type DsnRecipient,
} from './delivery-status';
export {
  dsnSeverity,
  enhancedStatusIn,
  isPermanentReply,
  smtpRefusal,
  type BounceSeverity,
  type SmtpRefusal,
} from './bounce-severity';
export {
  isMailDomain,
  isSentEmailId,
  messageIdFor,
  messageIdsIn,
  sentEmailIdFromMessageId,
  sentEmailIdFromVerp,
  VERP_PREFIX,
  verpAddressFor,
} from './mail-ids';
