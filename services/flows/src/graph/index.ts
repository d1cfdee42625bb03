export * from './flow-graph';
export * from './node-configs';
