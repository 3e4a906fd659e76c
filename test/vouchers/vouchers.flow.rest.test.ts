import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voucherPipelineJob } from '../../src/modules/vouchers/pipeline/pipeline.job.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { makePdf, TEST_FILES_DIR, upload } from '../files/helpers.ts';

// The whole way of a receipt over the wire: POST /files (type VOUCHER) → the pipeline → GET
// /vouchers/{id} → similar_to (spec 001: "vector similarity, the source voucher must have an
// embedding") → a purchase document made from it (voucher_id), embedded as the voucher's
// documents/document, posted with the voucher on its entry → DELETE refused while that stands.
describe.each(targets())('a voucher from upload to bookkeeping (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  const ids: Record<string, number> = {};

  const api = (method: string, path: string, body?: unknown) => app.http(method, `/api/v2${path}`, { token: t.user.token, body });
  const receipt = (shop: string, item: string, sum: string) =>
    makePdf([`${shop}\nKvittering nr ${randomUUID().slice(0, 8)}\nDato 14.03.2026\n${item}\nSum ${sum}\nMva 25 %\nBetalt med kort`]);

  beforeAll(async () => {
    app = await startTestApp(target, { env: { DATA_DIR: TEST_FILES_DIR }, jobs: { queues: [voucherPipelineJob.name] } });
    t = await app.seed.tenant();
    await app.seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    const files: [string, Buffer][] = [
      ['coffee', await receipt('Kaffebrenneriet Tromsø AS, Storgata 10, 9008 Tromsø', 'Kaffe latte 2 stk 118,00\nKanelbolle 2 stk 90,00', '208,00')],
      // the same shop and purchase on another day: a near-duplicate, not the same bytes
      ['coffeeAgain', await receipt('Kaffebrenneriet Tromsø AS, Storgata 10, 9008 Tromsø', 'Kaffe latte 2 stk 118,00\nKanelbolle 1 stk 45,00', '163,00')],
      ['fuel', await receipt('Circle K Alnabru, Strømsveien 245, 0668 Oslo', 'Diesel 48,21 liter 1 012,41', '1 012,41')],
      ['hotel', await receipt('Scandic Bergen City, Håkonsgaten 2, 5015 Bergen', 'Overnatting enkeltrom 2 netter 2 380,00\nFrokost inkludert', '2 380,00')],
    ];
    for (const [name, bytes] of files) {
      const res = await upload(app, { client_account_id: t.account.id, type: 'VOUCHER' }, { bytes, name: `${name}.pdf`, type: 'application/pdf' }, t.user.token);
      expect(res.status, res.text).toBe(201);
      ids[name] = res.body.created_voucher_id;
    }
  });
  afterAll(() => app?.close());

  it('each upload becomes a PENDING voucher that the pipeline brings to DRAFT/COMPLETED as a receipt (RECPT), visible on GET /vouchers/{id}', async () => {
    for (const id of Object.values(ids)) {
      const v = await eventually(async () => {
        const res = await api('GET', `/vouchers/${id}`);
        expect(res.status).toBe(200);
        return res.body.workflow_status === 'COMPLETED' ? res.body : undefined;
      }, `voucher ${id} COMPLETED`);
      expect(v).toMatchObject({ id, status: 'DRAFT', type: 'RECPT', channel: 'upload', content_type: 'application/pdf', document_date: '2026-03-14' });
      expect(v.page_images).toHaveLength(1);
    }
  });

  it('"similar_to": the near-duplicate receipt from the same shop ranks first, the unrelated ones after it', async () => {
    const res = await api('GET', `/vouchers?client_account_id=${t.account.id}&similar_to=${ids.coffee}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const order = res.body.data.map((v: { id: number }) => v.id);
    expect(order[0]).toBe(ids.coffeeAgain);
    expect(order).not.toContain(ids.coffee); // the source itself is not its own neighbour
    expect(new Set(order.slice(1))).toEqual(new Set([ids.fuel, ids.hotel]));
  });

  it('a purchase document from the voucher: embedded as its documents/document, posted with voucher_id, and the voucher cannot be deleted while that entry stands (v2 envelope)', async () => {
    const supplier = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kaffebrenneriet Tromsø AS', isSupplier: true } })).id;
    const created = await api('POST', '/documents', {
      client_account_id: t.account.id,
      document_type: 'RECPT',
      business_partner_id: supplier,
      document_date: '2026-03-14',
      voucher_id: ids.coffee,
      document_number: 'K-208',
      item_lines: [{ item_name: 'Kaffe og bolle', price: '166.40', quantity: '1', tax_code_id: await t.taxCode('1') }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.gross_amount).toBe('208.00');

    const v = await api('GET', `/vouchers/${ids.coffee}?with=documents,document,journal_entry`);
    expect(v.status).toBe(200);
    expect(v.body.documents).toEqual([expect.objectContaining({ id: created.body.id, document_type: 'RECPT', document_number: 'K-208', gross_amount: '208.00', is_draft: false })]);
    expect(v.body.document.id).toBe(created.body.id);
    expect(v.body.documents[0].payment_status).toBe('UNPAID');
    expect(v.body.documents[0].open_amount).toBe('208.00');

    const filtered = await api('GET', `/vouchers?client_account_id=${t.account.id}&has_document=true&payment_status=UNPAID`);
    expect(filtered.body.data.map((x: { id: number }) => x.id)).toEqual([ids.coffee]);

    const del = await api('DELETE', `/vouchers/${ids.coffee}`);
    expect(del.status).toBe(400);
    expect(del.body).toEqual({ error: { code: 'common.validation_error', message: expect.any(String), request_id: expect.any(String) } });
  });
});
