import type { SqlClient } from '@crm/kit';

/**
 * Runs `queue` with new delivery rows held a day ahead, so a test can act on a queued send before
 * any delivery worker may take it; `releaseHeld` makes them due again.
 */
export async function withHeldDeliveries<T>(db: SqlClient, queue: () => Promise<T>): Promise<T> {
  await db.query(`CREATE OR REPLACE FUNCTION hold_delivery() RETURNS trigger AS $$ BEGIN NEW.next_attempt_at := now() + interval '1 day'; RETURN NEW; END $$ LANGUAGE plpgsql`);
  await db.query(`DROP TRIGGER IF EXISTS hold_delivery ON deliveries`);
  await db.query(`CREATE TRIGGER hold_delivery BEFORE INSERT ON deliveries FOR EACH ROW EXECUTE FUNCTION hold_delivery()`);
  try {
    return await queue();
  } finally {
    await db.query(`DROP TRIGGER IF EXISTS hold_delivery ON deliveries`);
  }
}

export async function releaseHeld(db: SqlClient): Promise<void> {
  await db.query(`UPDATE deliveries SET next_attempt_at = now() WHERE state <> 'done' AND next_attempt_at > now() + interval '1 hour'`);
}
