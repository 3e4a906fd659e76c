import { expect } from 'vitest';
import type { TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// The hand-computed ledger the report tests read (all figures in NOK):
//   2025-06-01  1500 D 5000 (customer)    / 3000 C 5000                last year's sale, result not closed
//   2025-12-15  1920 D 100000             / 2000 C 100000              share capital
//   2026-01-10  1500 D 12500 (customer)   / 3000 C 10000 (tax 3, project) / 2700 C 2500
//   2026-02-05  6540 D 8000 (tax 1, dept) / 2710 D 2000 / 2400 C 10000 (supplier)
//   2026-02-20  1920 D 12500              / 1500 C 12500 (customer)   reconciled with the invoice's 1500 line
//   2026-03-03  6300 D 15000              / 1920 C 15000
//   2026-03-10  6900 D 500                / 1920 C 500                 draft
//   2026-03-15  6900 D 899                / 1920 C 899                 cancelled: the reversal is posted today,
//                                                                      after the period

export interface ReportFixture {
  t: Tenant;
  customer: number;
  supplier: number;
  project: number;
  department: number;
}

type Line = [string, string, string, Record<string, unknown>?];

export async function seedReportFixture(app: TestApp): Promise<ReportFixture> {
  const t = await app.seed.tenant();
  async function entry(date: string, lines: Line[], extra: Record<string, unknown> = {}): Promise<number> {
    const res = await app.http('POST', '/api/v2/journal-entries/', {
      token: t.user.token,
      body: {
        client_account_id: t.account.id,
        ...extra,
        lines: lines.map(([account_code, debit, credit, more]) => ({ posting_date: date, account_code, debit, credit, ...more })),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  }
  const db = app.seed.prisma;
  const ca = t.account.id;
  await db.clientAccount.update({ where: { id: ca }, data: { vatLiable: true } });
  const customer = (await db.businessPartner.create({ data: { clientAccountId: ca, name: 'Kafé Ærlig & Sønn AS', isCustomer: true } })).id;
  const supplier = (await db.businessPartner.create({ data: { clientAccountId: ca, name: 'Bønnegrossisten AS', isSupplier: true } })).id;
  const project = (await db.project.create({ data: { clientAccountId: ca, sequenceNumber: 1, name: 'Baristakurs' } })).id;
  const department = (await db.department.create({ data: { clientAccountId: ca, sequenceNumber: 1, name: 'Butikk' } })).id;
  const bp = (id: number) => [{ type: 'businesspartner', id }];
  await entry('2025-06-01', [['1500', '5000', '0', { dimensions: bp(customer) }], ['3000', '0', '5000']]);
  await entry('2025-12-15', [['1920', '100000', '0'], ['2000', '0', '100000']]);
  const invoice = await entry('2026-01-10', [
    ['1500', '12500', '0', { dimensions: bp(customer) }],
    ['3000', '0', '10000', { tax_code: '3', dimensions: [{ type: 'project', id: project }] }],
    ['2700', '0', '2500'],
  ], { description: 'Faktura 1001' });
  await entry('2026-02-05', [
    ['6540', '8000', '0', { tax_code: '1', dimensions: [{ type: 'department', id: department }] }],
    ['2710', '2000', '0'],
    ['2400', '0', '10000', { dimensions: bp(supplier) }],
  ]);
  const payment = await entry('2026-02-20', [['1920', '12500', '0'], ['1500', '0', '12500', { dimensions: bp(customer) }]]);
  await entry('2026-03-03', [['6300', '15000', '0'], ['1920', '0', '15000']], { description: 'Husleie mars' });
  await entry('2026-03-10', [['6900', '500', '0'], ['1920', '0', '500']], { is_draft: true });
  const wrong = await entry('2026-03-15', [['6900', '899', '0'], ['1920', '0', '899']]);
  const receivable = (entryId: number) => db.journalEntryLine.findFirstOrThrow({ where: { journalEntryId: entryId, account: { code: '1500' } } });
  const reconciled = await app.http('POST', '/api/v2/reconciliations', {
    token: t.user.token,
    body: { client_account_id: ca, date: '2026-02-20', entry_lines: [{ journal_entry_line_id: (await receivable(invoice)).id }, { journal_entry_line_id: (await receivable(payment)).id }] },
  });
  expect(reconciled.status, JSON.stringify(reconciled.body)).toBe(201);
  const cancel = await app.http('PATCH', `/api/v2/journal-entries/${wrong}`, { token: t.user.token, body: { cancelled: 'Y', cancellation_reason: 'Feil beløp' } });
  expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
  return { t, customer, supplier, project, department };
}
