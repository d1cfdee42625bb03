export * from './contact-fields';
export * from './flow-graph';
export * from './graph-walk';
export * from './node-configs';
export * from './node-ids';
