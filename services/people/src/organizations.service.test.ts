import { CrmError, newId, parseListQuery } from '@crm/kit';
import { expectEventually, sqlBackends } from '@crm/kit/testing';
import { organizations } from '@crm/people-contract';
import { type PeopleHarness, openPeople } from './testing/harness';
import { PeopleEvents } from '@crm/proto';

describe.each(sqlBackends())('organizations on $name', (backend) => {
  let h: PeopleHarness;
  const ws = newId();
  const otherWs = newId();
  const ctx = { workspaceId: ws };

  beforeAll(async () => {
    h = await openPeople(backend, 't_orgs');
  });
  afterAll(async () => h.close());

  const org = async (fields: Record<string, unknown> = {}, workspaceId = ws) =>
    (await h.people.organizations.create({ workspaceId }, { name: 'Org', ...fields })).id as string;

  test('create, get and patch, with custom fields; name is required and website_url a URL', async () => {
    const created = await h.people.organizations.create(ctx, {
      name: 'Acme',
      domain: 'acme.test',
      website_url: 'https://acme.test',
      industry: 'manufacturing',
      country: 'US',
      employees: 120,
    });
    expect(created).toMatchObject({ name: 'Acme', domain: 'acme.test', industry: 'manufacturing', country: 'US', employees: 120, svc_uid: null });
    expect(await h.people.organizations.get(ws, created.id as string)).toEqual(created);
    const patched = await h.people.organizations.update(ctx, created.id as string, { country: null, employees: null });
    expect(patched).toMatchObject({ country: null, name: 'Acme' });
    expect(patched).not.toHaveProperty('employees');

    const error = (await h.people.organizations.create(ctx, { website_url: 'acme.test', domain: 5 }).catch((e: unknown) => e)) as CrmError;
    expect(error.code).toBe('validation_failed');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'website_url', message: 'must be an http(s) URL' },
        { field: 'domain', message: 'must be a string' },
      ]),
    );
    await expect(h.people.organizations.update(ctx, created.id as string, { name: null })).rejects.toMatchObject({ code: 'validation_failed' });
    await expectEventually(() => expect(h.eventsOf(PeopleEvents.OrganizationUpdated).map((e) => e.data.id)).toContain(created.id));
  });

  test('the same domain may belong to several organizations; svc_uid may not', async () => {
    await org({ domain: 'shared.test', svc_uid: 'sf-1' });
    await expect(org({ domain: 'shared.test' })).resolves.toBeDefined();
    await expect(org({ svc_uid: 'sf-1' })).rejects.toMatchObject({ code: 'conflict', details: { field: 'svc_uid' } });
  });

  test('lists filter by industry, country and domain, sort by name and industry, and search name, domain and website', async () => {
    const tag = newId().slice(-8);
    const a = await org({ name: `Zeta ${tag}`, industry: 'energy', country: 'NO', domain: `zeta-${tag}.test` });
    const b = await org({ name: `Alpha ${tag}`, industry: 'biotech', country: 'NO', website_url: `https://alpha-${tag}.test/about` });
    const c = await org({ name: `Mid ${tag}`, country: 'SE' });
    const list = async (params: Record<string, string>) =>
      (await h.people.organizations.list(ws, parseListQuery(organizations, params))).data.map((o) => o.id);
    expect(await list({ q: tag, sort: 'name' })).toEqual([b, c, a]);
    expect(await list({ q: tag, sort: 'industry' })).toEqual([b, a, c]);
    expect(await list({ q: tag, country: 'NO' })).toEqual([b, a]);
    expect(await list({ industry: 'energy', q: tag })).toEqual([a]);
    expect(await list({ domain: `zeta-${tag}.test` })).toEqual([a]);
    expect(await list({ q: `alpha-${tag}.test/ABOUT` })).toEqual([b]);
    expect(() => parseListQuery(organizations, { sort: 'country' })).toThrow(/unknown key/);
  });

  test("a contact's organization must exist in its workspace", async () => {
    const mine = await org();
    const theirs = await org({}, otherWs);
    const linked = await h.people.contacts.create(ctx, { first_name: 'Linked', organization_id: mine });
    expect(linked.organization_id).toBe(mine);
    for (const organization_id of [theirs, newId()]) {
      await expect(h.people.contacts.create(ctx, { first_name: 'X', organization_id })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'organization_id', message: 'no organization with this id in the workspace' }],
      });
      await expect(h.people.contacts.update(ctx, linked.id as string, { organization_id })).rejects.toMatchObject({
        code: 'validation_failed',
      });
    }
    expect((await h.people.contacts.update(ctx, linked.id as string, { organization_id: null })).organization_id).toBeNull();
  });

  test('deleting an organization clears organization_id on its contacts, which publish contact.updated', async () => {
    const doomed = await org({ svc_uid: `o-${newId()}` });
    const kept = await org();
    const members = [
      await h.people.contacts.create(ctx, { first_name: 'A', organization_id: doomed }),
      await h.people.contacts.create(ctx, { first_name: 'B', organization_id: doomed }),
    ];
    const other = await h.people.contacts.create(ctx, { first_name: 'C', organization_id: kept });
    await h.people.organizations.delete(ctx, doomed);
    await expect(h.people.organizations.get(ws, doomed)).rejects.toMatchObject({ code: 'not_found' });
    for (const m of members) {
      const after = await h.people.contacts.get(ws, m.id as string);
      expect(after.organization_id).toBeNull();
      expect(after.updated_at >= (m.updated_at as string)).toBe(true);
    }
    expect((await h.people.contacts.get(ws, other.id as string)).organization_id).toBe(kept);
    await expectEventually(() => {
      expect(h.eventsOf(PeopleEvents.OrganizationDeleted).find((e) => e.data.id === doomed)).toBeDefined();
      const cleared = h.eventsOf(PeopleEvents.ContactUpdated).filter((e) => members.some((m) => m.id === e.data.id));
      expect(cleared.map((e) => e.data.changed)).toEqual([['organization_id'], ['organization_id']]);
    });
    await expect(h.people.organizations.delete({ workspaceId: otherWs }, kept)).rejects.toMatchObject({ code: 'not_found' });
  });
});
