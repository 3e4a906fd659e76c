import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { schema } from '../../src/schema.ts';
import { runInMode } from '../../src/modules/assistant/preview-execution.ts';
import { toolbox } from '../../src/mcp/tools.ts';

// The approval rule of src/modules/assistant/preview-execution.ts, checked at the service: a PREVIEW is
// rolled back (counted), a failing step leaves the transaction usable, and each reason is reported.
describe.each(targets())('preview execution (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
  });
  afterAll(async () => app?.close());

  const call = (name: string, args: Record<string, unknown>) => (ctx: any) => toolbox(schema).byName.get(name)!.call(ctx, args);

  it('PREVIEW rolls back: a created project is reported and gone afterwards; WRITE keeps it', async () => {
    const ctx = app.seed.contextOf(t.user);
    const count = () => app.db.prisma.project.count({ where: { clientAccountId: t.account.id } });
    const before = await count();
    const outcome = await runInMode(ctx, schema, 'PREVIEW', (x) => x.step(call('create_project', { client_account_id: t.account.id, name: 'Preview' })));
    expect(outcome).toMatchObject({ ok: true, changes: [{ type: 'Project', operation: 'createProject', needsApproval: false, reasons: [] }] });
    expect(await count()).toBe(before);
    const written = await runInMode(ctx, schema, 'WRITE', (x) => x.step(call('create_project', { client_account_id: t.account.id, name: 'Written' })));
    expect(written.ok).toBe(true);
    expect(await count()).toBe(before + 1);
  });

  it('a failing step is rolled back to its savepoint and the next step still runs', async () => {
    const ctx = app.seed.contextOf(t.user);
    const [bad, good] = await runInMode(ctx, schema, 'PREVIEW', async (x) => [
      await x.step(call('create_project', { client_account_id: t.account.id })),
      await x.step(call('create_project', { client_account_id: t.account.id, name: 'After' })),
    ]);
    expect(bad.ok).toBe(false);
    expect(good).toMatchObject({ ok: true, changes: [{ type: 'Project' }] });
  });

  it('"destructive": deactivating a project (DELETE /projects/{id}) needs approval', async () => {
    const ctx = app.seed.contextOf(t.user);
    const project = await runInMode(ctx, schema, 'WRITE', (x) => x.step(call('create_project', { client_account_id: t.account.id, name: 'To delete' })));
    const id = (project as any).value.id;
    const del = await runInMode(ctx, schema, 'PREVIEW', (x) => x.step(call('deactivate_project', { id })));
    expect(del).toMatchObject({ ok: true, changes: [{ type: 'Project', id, operation: 'deactivateProject', needsApproval: true, reasons: ['destructive'] }] });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['a draft needs none', { is_draft: true }, []],
    ['"final": a finalized (posted) invoice', {}, ['final']],
    ['"final" and "external": a finalized invoice sent to the customer', { send_document: true }, ['final', 'external']],
  ])('create_document — %s', async (_name, extra, reasons) => {
    await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    const customer = (await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', email: 'kunde@example.no' } })).id;
    const args = { client_account_id: t.account.id, document_type: 'ARINV', business_partner_id: customer, document_date: '2026-04-01', item_lines: [{ item_name: 'Kurs', price: '100.00', quantity: '1', tax_code_id: await t.taxCode('3') }], ...extra };
    const outcome = await runInMode(app.seed.contextOf(t.user), schema, 'PREVIEW', (x) => x.step(call('create_document', args)));
    expect(outcome).toMatchObject({ ok: true, changes: [{ type: 'Document', operation: 'createDocument', needsApproval: reasons.length > 0, reasons }] });
  });
});
