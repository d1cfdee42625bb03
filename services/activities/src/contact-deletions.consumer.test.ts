import { type SqlClient, createCursorCodec, newEvent, newId, runMigrations } from '@crm/kit';
import { sqlBackends } from '@crm/kit/testing';
import { PeopleEvents } from '@crm/proto';
import { type ActivitiesService, createActivitiesService } from './activities.service';
import { createContactDetach } from './contact-deletions.consumer';
import { migrations } from './migrations';

jest.setTimeout(30_000);

describe.each(sqlBackends())('a deleted contact\'s activities on $name', (backend) => {
  let db: SqlClient;
  let drop: () => Promise<void>;
  let service: ActivitiesService;

  beforeAll(async () => {
    ({ db, drop } = await backend.open('t_contact_detach'));
    await runMigrations(db, migrations);
    service = createActivitiesService({ db, cursors: createCursorCodec('c'.repeat(32)) });
  }, 60_000);
  afterAll(() => drop());

  test('stay, without the contact, in its workspace only; a redelivery changes nothing', async () => {
    const ws = { workspaceId: newId() };
    const other = { workspaceId: newId() };
    const [gone, kept] = [newId(), newId()];
    const slot = { scheduled_start: '2026-08-10T14:00:00Z', scheduled_end: '2026-08-10T15:00:00Z' };
    const records = {
      task: await service.tasks.create(ws, { title: 'Call back', contact_id: gone }),
      call: await service.callLogs.create(ws, { status: 'completed', contact_id: gone }),
      meeting: await service.meetings.create(ws, { title: 'Demo', contact_id: gone, ...slot }),
      keptTask: await service.tasks.create(ws, { title: 'Other contact', contact_id: kept }),
      // The same contact id in another workspace is another workspace's business.
      otherTask: await service.tasks.create(other, { title: 'Elsewhere', contact_id: gone }),
    };
    const detach = createContactDetach(db);
    const deleted = newEvent(PeopleEvents.ContactDeleted, ws.workspaceId, { id: gone, svc_uid: null });
    expect(await detach(deleted)).toBe(3);
    expect(await detach(deleted)).toBe(0);
    expect((await service.tasks.get(ws.workspaceId, String(records.task.id))).contact_id).toBeNull();
    expect((await service.callLogs.get(ws.workspaceId, String(records.call.id))).contact_id).toBeNull();
    const meeting = await service.meetings.get(ws.workspaceId, String(records.meeting.id));
    expect([meeting.contact_id, meeting.title]).toEqual([null, 'Demo']);
    expect((await service.tasks.get(ws.workspaceId, String(records.keptTask.id))).contact_id).toBe(kept);
    expect((await service.tasks.get(other.workspaceId, String(records.otherTask.id))).contact_id).toBe(gone);
    // An organization's deletion clears its tasks' organization_id alike.
    const org = newId();
    const orgTask = await service.tasks.create(ws, { title: 'Account review', organization_id: org });
    expect(await detach(newEvent(PeopleEvents.OrganizationDeleted, ws.workspaceId, { id: org }))).toBe(1);
    expect((await service.tasks.get(ws.workspaceId, String(orgTask.id))).organization_id).toBeNull();
    // Other events, and malformed ones, are no deletion.
    expect(await detach(newEvent(PeopleEvents.ContactUpdated, ws.workspaceId, { id: kept, changed: [] } as never))).toBe(0);
    expect(await detach({ type: PeopleEvents.ContactDeleted, workspace_id: ws.workspaceId, data: { id: 'nope' } } as never)).toBe(0);
  });
});
