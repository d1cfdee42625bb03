/**
 * Deletes the durable consumers of the `CRM` stream whose names contain any of `names`. Services
 * name their durables after their schema, so a run (a test stack, a bench) that used fresh schemas
 * leaves none behind: one left would go on taking every later event of a long-lived server.
 */
export async function deleteDurables(servers: string, names: readonly string[]): Promise<void> {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    const doomed: string[] = [];
    for await (const consumer of jsm.consumers.list('CRM')) {
      if (names.some((name) => consumer.name.includes(name))) doomed.push(consumer.name);
    }
    for (const name of doomed) await jsm.consumers.delete('CRM', name);
  } finally {
    await nc.close();
  }
}
