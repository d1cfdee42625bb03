export { migrations } from './migrations';
export { createMessagingService, type MessagingService, type MessagingSettings } from './messaging.service';
export { messagingGrpcBinding } from './messaging.grpc';
export { messagingService, MESSAGING_SETTINGS } from './main';
export * as mail from './mail';
