import { Decimal } from '../../src/shared/scalars.ts';
import type { Grouping } from '../../src/modules/reports/grouping.ts';
import type { ReportName, ReportRows } from '../../src/modules/reports/reports.presenters.ts';
import type { BalanceSheetRow, IncomeStatementRow, LedgerFile, LedgerRow, TrialBalanceRow } from '../../src/modules/reports/reports.service.ts';
import type { DimensionKind } from '../../src/modules/journal-entries/dimensions.ts';

// A report's JSON answer (spec 001 wire names) read back into the rows its service computes, so a
// test can present the JSON a client got and compare every file with it cell for cell. Only the
// fields the presenters read are filled.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Wire = any;

const decimal = (v: unknown) => new Decimal(String(v));

const grouping = (g: Wire): Grouping => ({
  level1Code: g.level_1_code,
  level1Name: g.level_1_name,
  level2Code: g.level_2_code,
  level2Name: g.level_2_name,
  level3Code: g.level_3_code,
  level3Name: g.level_3_name,
});

const account = (r: Wire) => ({ grouping: grouping(r.grouping), accountId: r.account_id ?? 0, accountCode: r.account_code, accountName: r.account_name });
const relation = (r: Wire) => ({ relationType: (r.relation_type ?? null) as DimensionKind | null, relationId: r.relation_id ?? null, relationName: r.relation_name ?? null });

function ledgerRow(r: Wire): LedgerRow {
  const g = r.grouping;
  const entry = r.journal_entry ?? {};
  const partner = entry.related_object?.business_partner ?? null;
  return {
    grouping: { level1Code: g.level_1_code, level1Name: g.level_1_name, incomingBalance: decimal(g.incoming_balance), outgoingBalance: decimal(g.outgoing_balance), movement: decimal(g.movement) },
    id: r.id,
    lineId: r.line_id,
    postingDate: new Date(`${r.posting_date}T00:00:00Z`),
    accountId: r.account_id,
    accountCode: r.account_code,
    description: r.description ?? null,
    debit: r.debit,
    credit: r.credit,
    debitAmount: r.debit_amount,
    currencyCode: r.currency_code,
    exchangeRate: r.exchange_rate,
    taxCode: r.tax_code ?? null,
    taxBaseAmount: r.tax_base_amount ?? null,
    taxAmount: r.tax_amount ?? null,
    reconciledAmount: r.reconciled_amount,
    dimensions: (r.dimensions ?? []).map((d: Wire) => ({ type: d.type, id: d.id })),
    partnerName: (r.dimensions ?? []).find((d: Wire) => d.type === 'businesspartner')?.name ?? null,
    journalEntry: {
      id: entry.id,
      sequenceNumber: entry.sequence_number === null || entry.sequence_number === undefined ? null : Number(entry.sequence_number),
      cancelled: entry.cancelled ?? null,
      isDraft: !!entry.is_draft,
      voucherId: entry.voucher_id ?? null,
      description: entry.description ?? null,
      createdById: entry.created_by?.id ?? null,
      relatedObject: entry.related_object ? { ...entry.related_object, businessPartner: partner } : null,
    },
  };
}

/** A ledger's JSON pages (their `data` concatenated) as the file reads the whole period. */
export function ledgerFromWire(pages: { data: Wire[] }[]): LedgerFile {
  const rows = pages.flatMap((p) => p.data.map(ledgerRow));
  return {
    records: rows.length,
    batches: (async function* () {
      yield rows;
    })(),
  };
}

/** The rows of a report from its JSON answer (a ledger: one page, or all of them). */
export function rowsFromWire<R extends ReportName>(report: R, body: Wire): ReportRows[R] {
  const rows: { [K in ReportName]: () => ReportRows[K] } = {
    'balance-sheet': (): BalanceSheetRow[] => body.map((r: Wire) => ({ ...account(r), balance: decimal(r.balance) })),
    'income-statement': (): IncomeStatementRow[] =>
      body.map((r: Wire) => ({ ...account(r), ...relation(r), months: Array.from({ length: 12 }, (_, i) => decimal(r.period_debit_movements[String(i + 1)])) })),
    'trial-balance': (): TrialBalanceRow[] =>
      body.map((r: Wire) => ({ ...account(r), ...relation(r), incomingBalance: decimal(r.incoming_balance), debit: decimal(r.debit), credit: decimal(r.credit), outgoingBalance: decimal(r.outgoing_balance) })),
    'general-ledger': () => ledgerFromWire(Array.isArray(body) ? body : [body]),
    'accounts-payable': () => ledgerFromWire(Array.isArray(body) ? body : [body]),
    'accounts-receivable': () => ledgerFromWire(Array.isArray(body) ? body : [body]),
  };
  return rows[report]() as ReportRows[R];
}
