export { buildApp, type GatewayDeps, PREFIXES, BODY_LIMIT } from './app';
export { startGateway, type GatewayConfig, type RunningGateway } from './server';
export { createKeyCache, type Principal, type ResolveKey } from './plugins/auth';
export { CONTEXTS, type ServiceContext } from './contexts';
export { buildOpenApi, describeApi, API_VERSION } from './openapi';
export { GATEWAY_SETTINGS, type GatewaySettings, gatewayConfigFrom } from './settings';
