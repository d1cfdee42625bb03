/**
 * Graphs as a client sends them, for the graph's tests: node builders and a realistic sample. Test
 * code only (the build leaves this folder out).
 */
export type RawNode = { key: string; type: string; label?: unknown; config?: unknown; [k: string]: unknown };
export type RawEdge = { from?: unknown; to?: unknown; when?: unknown; [k: string]: unknown };

export const email = (key: string, extra: Record<string, unknown> = {}): RawNode => ({
  key,
  type: 'email',
  label: `Email ${key}`,
  config: { subject: `Hello {{ first_name }} (${key})`, body: '<p>Hi</p>', ...extra },
});
export const wait = (key: string, duration_seconds = 86_400): RawNode => ({ key, type: 'wait', config: { duration_seconds } });
export const task = (key: string, type = 'task'): RawNode => ({ key, type, config: { title: `Do ${key}` } });
export const branch = (key: string, condition: unknown = 'opened', within_seconds: unknown = 3600): RawNode => ({
  key,
  type: 'branch',
  config: { condition, within_seconds },
});
export const end = (key: string): RawNode => ({ key, type: 'end', config: {} });

/** A realistic flow: email, wait, branch on open, then a follow-up or a call task. */
export const sample = () => ({
  nodes: [
    email('intro'),
    wait('pause'),
    branch('opened', 'opened', 172_800),
    email('follow_up'),
    task('call', 'call'),
    end('done'),
  ],
  edges: [
    { from: 'intro', to: 'pause' },
    { from: 'pause', to: 'opened' },
    { from: 'opened', to: 'follow_up', when: true },
    { from: 'opened', to: 'call', when: false },
    { from: 'follow_up', to: 'done' },
  ] as RawEdge[],
});
