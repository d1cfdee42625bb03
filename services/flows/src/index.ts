export { FLOWS_SETTINGS, flowsService } from './main';
export type { FlowsService } from './flows.service';
