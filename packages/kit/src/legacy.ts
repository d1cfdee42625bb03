/**
 * Resources renamed in API 2.0.0 (gateway/README.md, "Paths"), old name → new name. One table: the
 * gateway answers the old paths with 404 naming the new one, and key creation refuses the old
 * scopes naming the new ones.
 */
export const RENAMED_RESOURCES: Readonly<Record<string, string>> = {
  lists: 'pools',
  sequences: 'flows',
  list_contacts: 'pool_contacts',
  sequence_nodes: 'flow_nodes',
  sequence_runs: 'flow_runs',
};
