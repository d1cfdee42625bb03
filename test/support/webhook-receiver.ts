import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** One POST the receiver got, whether or not it verified. */
export interface ReceivedWebhook {
  path: string;
  /** The webhook-id header: the event's id, the same on every attempt. */
  id: string;
  timestamp: string;
  signature: string;
  /** The body exactly as sent, and parsed. */
  body: string;
  payload: any;
  /** Which of the path's secrets verify it (standardwebhooks' `Webhook.verify`), in the order given. */
  verifiedWith: string[];
  /** What the receiver answered; undefined for a request it held. */
  answered?: number;
}

/** How the receiver treats a path's deliveries: answer this status, or hold the request open. */
export type PathBehaviour = { status: number } | 'hang';

export interface WebhookReceiver {
  /** The URL of one path on this receiver: each endpoint gets its own, so deliveries are told apart by path. */
  url(path: string): string;
  /** The secrets that may sign a path's deliveries; every delivery is checked against each. */
  setSecrets(path: string, secrets: readonly string[]): void;
  /** Answer a path's deliveries this way from now on (default: 204 once verified). */
  behave(path: string, behaviour: PathBehaviour | undefined): void;
  /** Every request, in order of arrival. */
  readonly received: readonly ReceivedWebhook[];
  /** A path's requests that verified with at least one of its secrets. */
  verified(path: string): ReceivedWebhook[];
  /** Requests that verified with none of their path's secrets (answered 401): a test expects none. */
  unverified(): ReceivedWebhook[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP receiver of webhooks, verifying every delivery as a receiver would with the
 * Standard Webhooks library, never the service's own signing code. A request that verifies with
 * none of its path's secrets is answered 401 and recorded, so a test sees it. A path can be told to
 * answer an error, or to hold its requests until the receiver closes (the sender's timeout ends them).
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const secrets = new Map<string, readonly string[]>();
  const behaviours = new Map<string, PathBehaviour>();
  const held = new Set<ServerResponse>();

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    const header = (name: string) => String(req.headers[name] ?? '');
    const headers = { 'webhook-id': header('webhook-id'), 'webhook-timestamp': header('webhook-timestamp'), 'webhook-signature': header('webhook-signature') };
    const verifiedWith = (secrets.get(path) ?? []).filter((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      payload = undefined;
    }
    const delivery: ReceivedWebhook = { path, id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], body, payload, verifiedWith };
    received.push(delivery);
    const behaviour = behaviours.get(path);
    if (behaviour === 'hang') {
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    const status = verifiedWith.length === 0 ? 401 : (behaviour?.status ?? 204);
    delivery.answered = status;
    res.writeHead(status).end();
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    setSecrets: (path, list) => secrets.set(path, [...list]),
    behave: (path, behaviour) => (behaviour ? behaviours.set(path, behaviour) : behaviours.delete(path)),
    received,
    verified: (path) => received.filter((d) => d.path === path && d.verifiedWith.length > 0),
    unverified: () => received.filter((d) => d.verifiedWith.length === 0),
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
