export { buildApp, type GatewayDeps, PREFIXES, BODY_LIMIT } from './app';
export { startGateway, type GatewayConfig, type RunningGateway } from './server';
export { createKeyCache, type Principal, type ResolveKey } from './plugins/auth';
export { LEGACY_PATHS } from './routes/legacy.routes';
export { CONTEXTS, type ServiceContext } from './contexts';
