import { type AddressProblem, emailAddressProblem } from '@crm/kit';
import { COLLECTIONS, type IntegrationDoc, type UserDoc } from './directory.schema';
import type { DocumentStore, Filter } from './store/document-store';

const PAGE = 500;

/** Every document of a collection, in pages along `_id`. */
async function* documents<T extends { _id: string }>(store: DocumentStore, name: string): AsyncGenerator<T> {
  const collection = store.collection<T>(name);
  let after: string | undefined;
  for (;;) {
    const filter: Filter = after === undefined ? {} : { _id: { $gt: after } };
    const page = await collection.find(filter, { sort: { _id: 1 }, limit: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!._id;
  }
}

/**
 * The addresses the directory keeps (a user's email, an smtp integration's `from_email`) that the
 * address rule refuses, for `crm check addresses`. Read only: a document written under an older
 * rule is reported, never changed. Answers how many documents were read.
 */
export async function checkDirectoryAddresses(store: DocumentStore, report: (problem: AddressProblem) => void): Promise<number> {
  let read = 0;
  for await (const user of documents<UserDoc>(store, COLLECTIONS.users)) {
    read++;
    const reason = typeof user.email === 'string' ? emailAddressProblem(user.email) : 'must be an email address';
    if (reason) report({ resource: 'users', id: user._id, workspace_id: user.workspace_id, field: 'email', reason });
  }
  for await (const integration of documents<IntegrationDoc>(store, COLLECTIONS.integrations)) {
    read++;
    // Only an smtp integration's settings are an address it sends from; other types keep any JSON.
    const sender = integration.type === 'smtp' ? integration.config?.from_email : undefined;
    if (sender === undefined) continue;
    const reason = typeof sender === 'string' ? emailAddressProblem(sender) : 'must be an email address';
    if (reason) report({ resource: 'integrations', id: integration._id, workspace_id: integration.workspace_id, field: 'config.from_email', reason });
  }
  return read;
}
