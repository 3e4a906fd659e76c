import { Decimal } from '@prisma/client/runtime/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  kidBody,
  kidRefersTo,
  matchTransactions,
  mod10CheckDigit,
  mod11CheckDigit,
  namesMatch,
  normalizeName,
  subsetsSumming,
  type MatchTransaction,
  type OpenItem,
  type Proposal,
} from '../../src/modules/reconciliations/matcher.rules.ts';

const d = (s: string) => new Date(`${s}T00:00:00Z`);
const dec = (s: string | number) => new Decimal(s);

let nextLine = 1;
const item = (o: Omit<Partial<OpenItem>, 'remaining'> & { remaining: string }): OpenItem => {
  const id = o.journalEntryLineId ?? nextLine++;
  return {
    journalEntryLineId: id,
    journalEntryId: id,
    kind: 'receivable',
    side: 'debit',
    currencyCode: 'NOK',
    postingDate: d('2026-03-01'),
    partnerId: 1,
    partnerName: 'Kafé Lillebror AS',
    partnerAccounts: [],
    documentNumber: null,
    ...o,
    remaining: dec(o.remaining),
  };
};
const tx = (o: Omit<Partial<MatchTransaction>, 'amount'> & { id: number; amount: string }): MatchTransaction => ({
  bookingDate: d('2026-03-20'),
  currencyCode: 'NOK',
  counterpartyName: null,
  counterpartyAccount: null,
  structuredReferences: [],
  text: '',
  ...o,
  amount: dec(o.amount),
  remaining: o.remaining ?? dec(o.amount),
});
const withKid = (body: string) => body + mod10CheckDigit(body);
const plain = (ps: Proposal[]) => ps.map((p) => ({ ...p, lines: p.lines.map((l) => ({ ...l, amount: l.amount.toFixed(2) })) }));

describe('KID check digits', () => {
  it.each([
    ['2345676', '234567'], // MOD10 (Luhn)
    ['10009', '1000'], // MOD10
    ['10006', '1000'], // MOD11
    ['0001000231', '100023'], // leading zeros go
    ['12345678903', '1234567890'], // MOD10 of 1234567890 is 3
  ])('"%s" is a valid KID with body %s', (kid, body) => {
    expect(kidBody(kid)).toBe(body);
  });

  it.each(['2345670', '10007', '12', 'abc', '', '12345678901234567890123456'])('"%s" is no valid KID', (kid) => {
    expect(kidBody(kid)).toBeNull();
  });

  it('MOD11 with remainder 10 ends in "-"', () => {
    const body = [...Array(1000).keys()].map(String).find((b) => mod11CheckDigit(b) === '-')!;
    expect(kidBody(`${body}-`)).toBe(body.replace(/^0+/, ''));
  });

  it('every body with its MOD10 or MOD11 digit is recognised (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{0,20}$/), (body) => {
        expect(kidBody(body + mod10CheckDigit(body))).toBe(body);
        expect(kidBody(body + mod11CheckDigit(body))).toBe(body);
      }),
    );
  });

  it.each([
    ['10023', '10023', true],
    ['4201510023', '10023', true], // customer number + invoice number
    ['10023', 'F-10023', true],
    ['10023', '0010023', true],
    ['1023', '10023', false],
    ['100231', '10023', false],
    ['4215', '15', false], // a suffix needs 3 digits
    ['15', '15', true],
  ])('KID body %s refers to document %s: %s', (body, doc, expected) => {
    expect(kidRefersTo(body, doc)).toBe(expected);
  });
});

describe('partner names', () => {
  it.each([
    ['Kafé Lillebror AS', 'KAFE LILLEBROR AS', true],
    ['Kafé Lillebror AS', 'Kafe Lillebror', true],
    ['Bønnegrossisten ASA', 'BØNNEGROSSISTEN A/S', true],
    ['Nordic Beans A.S.', 'nordic beans', true],
    ['Kafé Lillebror Drift AS', 'KAFE LILLEBROR', true], // the bank cut the name
    ['Kafé Lillebror AS', 'Kafé Storebror AS', false],
    ['AS Bua', 'Bua AS', true],
    ['Bua', 'Bua Bakeri', false], // too short to be a prefix
    ['', 'AS', false],
  ])('%s ~ %s: %s', (a, b, expected) => {
    expect(namesMatch(a, b)).toBe(expected);
  });

  it('normalises case, accents, punctuation and the company form', () => {
    expect(normalizeName('  Kafé  Lillebror, AS ')).toBe('kafe lillebror');
  });
});

describe('matchTransactions', () => {
  it('KID: full payment of the identified invoice', () => {
    const inv = item({ remaining: '1250.00', documentNumber: '10023', journalEntryLineId: 11 });
    const other = item({ remaining: '1250.00', documentNumber: '10024', journalEntryLineId: 12 });
    const p = matchTransactions({ transactions: [tx({ id: 1, amount: '1250.00', structuredReferences: [withKid('10023')] })], openItems: [inv, other] });
    expect(plain(p)).toEqual([{ bankTransactionId: 1, rule: 'KID', score: 100, lines: [{ journalEntryLineId: 11, amount: '1250.00' }] }]);
  });

  it('KID: a partial payment settles the transaction amount; an overpayment is not proposed', () => {
    const inv = item({ remaining: '1000.00', documentNumber: '555', journalEntryLineId: 21 });
    const part = matchTransactions({ transactions: [tx({ id: 1, amount: '400.00', text: `KID: ${withKid('555')}` })], openItems: [inv] });
    expect(plain(part)[0]).toMatchObject({ rule: 'KID', lines: [{ journalEntryLineId: 21, amount: '400.00' }] });
    const over = matchTransactions({ transactions: [tx({ id: 2, amount: '1000.01', structuredReferences: [withKid('555')], counterpartyName: 'Kafé Lillebror' })], openItems: [inv] });
    expect(over).toEqual([]);
  });

  it('KID with a wrong check digit is not a KID; the amount rule may still match', () => {
    const inv = item({ remaining: '300.00', documentNumber: '777', journalEntryLineId: 31 });
    const p = matchTransactions({
      transactions: [tx({ id: 1, amount: '300.00', structuredReferences: ['7774'] /* 777's MOD10 and MOD11 digits are both 3 */, counterpartyName: 'KAFE LILLEBROR AS' })],
      openItems: [inv],
    });
    expect(p.map((x) => x.rule)).toEqual(['AMOUNT']);
  });

  it('AMOUNT: by the counterparty account, the exact remaining amount, within the window', () => {
    const mine = item({ remaining: '990.00', partnerId: 2, partnerName: 'Other AS', partnerAccounts: ['1234.56.78903'], journalEntryLineId: 41 });
    const p = matchTransactions({ transactions: [tx({ id: 1, amount: '990.00', counterpartyAccount: '12345678903', counterpartyName: 'Something else' })], openItems: [mine] });
    expect(plain(p)).toEqual([{ bankTransactionId: 1, rule: 'AMOUNT', score: 90, lines: [{ journalEntryLineId: 41, amount: '990.00' }] }]);
  });

  it.each([
    ['an invoice posted 91 days before', '2025-12-19', false],
    ['an invoice posted 90 days before', '2025-12-20', true],
    ['an invoice posted 7 days after', '2026-03-27', true],
    ['an invoice posted 8 days after', '2026-03-28', false],
  ])('AMOUNT window: %s → %s', (_what, posted, expected) => {
    const p = matchTransactions({ transactions: [tx({ id: 1, amount: '50.00', counterpartyName: 'Kafe Lillebror' })], openItems: [item({ remaining: '50.00', postingDate: d(posted) })] });
    expect(p.length).toBe(expected ? 1 : 0);
  });

  it('AMOUNT: an outgoing payment settles a payable (credit), never a receivable', () => {
    const supplierInvoice = item({ remaining: '10000.00', kind: 'payable', side: 'credit', partnerId: 3, partnerName: 'Bønnegrossisten AS', journalEntryLineId: 51 });
    const receivable = item({ remaining: '10000.00', partnerId: 3, partnerName: 'Bønnegrossisten AS', journalEntryLineId: 52 });
    const p = matchTransactions({ transactions: [tx({ id: 1, amount: '-10000.00', counterpartyName: 'BONNEGROSSISTEN' })], openItems: [receivable, supplierInvoice] });
    expect(p.map((x) => [x.rule, x.lines[0].journalEntryLineId])).toEqual([['AMOUNT', 51]]);
  });

  it('AMOUNT: two equally good invoices are ambiguous and not proposed (nor summed)', () => {
    const p = matchTransactions({
      transactions: [tx({ id: 1, amount: '12500.00', counterpartyName: 'Kafé Lillebror AS' })],
      openItems: [item({ remaining: '12500.00' }), item({ remaining: '12500.00' }), item({ remaining: '6250.00' }), item({ remaining: '6250.00' })],
    });
    expect(p).toEqual([]);
  });

  it('AMOUNT: the invoice number in the text tells two equal invoices apart', () => {
    const p = matchTransactions({
      transactions: [tx({ id: 1, amount: '12500.00', counterpartyName: 'Kafé Lillebror AS', text: 'Betaling faktura 10042' })],
      openItems: [item({ remaining: '12500.00', documentNumber: '10041' }), item({ remaining: '12500.00', documentNumber: '10042', journalEntryLineId: 61 })],
    });
    expect(plain(p)).toEqual([{ bankTransactionId: 1, rule: 'AMOUNT', score: 85, lines: [{ journalEntryLineId: 61, amount: '12500.00' }] }]);
  });

  it('AMOUNT: two payments wanting one invoice are both left for a human', () => {
    const p = matchTransactions({
      transactions: [tx({ id: 1, amount: '700.00', counterpartyName: 'Kafé Lillebror' }), tx({ id: 2, amount: '700.00', counterpartyName: 'Kafé Lillebror' })],
      openItems: [item({ remaining: '700.00' })],
    });
    expect(p).toEqual([]);
  });

  it('SUM: one payment for two invoices of the partner', () => {
    const a = item({ remaining: '1000.00', postingDate: d('2026-03-01'), journalEntryLineId: 71 });
    const b = item({ remaining: '2500.50', postingDate: d('2026-03-05'), journalEntryLineId: 72 });
    const c = item({ remaining: '4000.00', postingDate: d('2026-03-06'), journalEntryLineId: 73 });
    const elsewhere = item({ remaining: '2500.50', partnerId: 9, partnerName: 'Someone Else AS', journalEntryLineId: 74 });
    const p = matchTransactions({ transactions: [tx({ id: 1, amount: '3500.50', counterpartyName: 'KAFE LILLEBROR AS' })], openItems: [a, b, c, elsewhere] });
    expect(plain(p)).toEqual([
      { bankTransactionId: 1, rule: 'SUM', score: 65, lines: [{ journalEntryLineId: 71, amount: '1000.00' }, { journalEntryLineId: 72, amount: '2500.50' }] },
    ]);
  });

  it('SUM: two different subsets with the sum are ambiguous', () => {
    const p = matchTransactions({
      transactions: [tx({ id: 1, amount: '300.00', counterpartyName: 'Kafe Lillebror' })],
      openItems: [item({ remaining: '100.00' }), item({ remaining: '200.00' }), item({ remaining: '50.00' }), item({ remaining: '250.00' })],
    });
    expect(p).toEqual([]);
  });

  it('SUM looks at the oldest 12 items of the partner only', () => {
    const old = Array.from({ length: 12 }, (_, k) => item({ remaining: '1.00', postingDate: d(`2026-02-${String(k + 1).padStart(2, '0')}`) }));
    const young = [item({ remaining: '1000.00', postingDate: d('2026-03-10') }), item({ remaining: '2000.00', postingDate: d('2026-03-11') })];
    expect(matchTransactions({ transactions: [tx({ id: 1, amount: '3000.00', counterpartyName: 'Kafe Lillebror' })], openItems: [...old, ...young] })).toEqual([]);
  });

  it('skips what is already in a draft: a second run proposes nothing new', () => {
    const input = {
      transactions: [tx({ id: 1, amount: '990.00', counterpartyName: 'Kafe Lillebror' }), tx({ id: 2, amount: '50.00', counterpartyName: 'Kafe Lillebror' })],
      openItems: [item({ remaining: '990.00', journalEntryLineId: 81 }), item({ remaining: '50.00', journalEntryLineId: 82 })],
    };
    const first = matchTransactions(input);
    expect(first).toHaveLength(2);
    const taken = { transactionIds: first.map((p) => p.bankTransactionId), lineIds: first.flatMap((p) => p.lines.map((l) => l.journalEntryLineId)) };
    expect(matchTransactions({ ...input, taken })).toEqual([]);
    expect(matchTransactions({ ...input, taken: { lineIds: [81] } }).map((p) => p.bankTransactionId)).toEqual([2]);
  });

  it('skips a booked transaction (nothing remaining) and another currency', () => {
    const p = matchTransactions({
      transactions: [tx({ id: 1, amount: '990.00', remaining: dec(0), counterpartyName: 'Kafe Lillebror' }), tx({ id: 2, amount: '990.00', currencyCode: 'EUR', counterpartyName: 'Kafe Lillebror' })],
      openItems: [item({ remaining: '990.00' })],
    });
    expect(p).toEqual([]);
  });
});

describe('subsetsSumming', () => {
  it('finds the only subset, stops at the limit, ignores single members', () => {
    expect(subsetsSumming([100n, 200n, 400n], 300n)).toEqual([[0, 1]]);
    expect(subsetsSumming([100n, 200n, 300n], 300n)).toEqual([[0, 1]]);
    expect(subsetsSumming([100n, 100n, 100n], 200n)).toHaveLength(2);
  });
});

// ------------------------------------------------------------------------------------------------
// Properties over random books: partners, invoices, payments (some exact, some partial, some sums, some KIDs)

const partners = [
  { id: 1, name: 'Kafé Lillebror AS', accounts: ['15032012342'] },
  { id: 2, name: 'Bønnegrossisten AS', accounts: ['12345678903'] },
  { id: 3, name: 'Fjellkaffe ASA', accounts: [] },
];
const ore = fc.integer({ min: 1, max: 2_000_000 });
const arbItem = fc.record({
  partner: fc.constantFrom(...partners),
  ore,
  dayOffset: fc.integer({ min: -100, max: 10 }),
  payable: fc.boolean(),
  doc: fc.option(fc.integer({ min: 100, max: 130 }), { nil: null }),
});
const arbTx = fc.record({
  partner: fc.constantFrom(...partners),
  ore: fc.integer({ min: -2_000_000, max: 2_000_000 }),
  byAccount: fc.boolean(),
  kid: fc.option(fc.integer({ min: 100, max: 130 }), { nil: null }),
  /** pick an existing item's amount (or the sum of two) so matches happen */
  copy: fc.option(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { nil: null }),
});
const books = fc.record({ items: fc.array(arbItem, { maxLength: 25 }), txs: fc.array(arbTx, { maxLength: 12 }) }).map(({ items, txs }) => {
  const base = d('2026-03-20').getTime();
  const openItems: OpenItem[] = items.map((i, k) => ({
    journalEntryLineId: 1000 + k,
    journalEntryId: 500 + k,
    kind: i.payable ? 'payable' : 'receivable',
    side: i.payable ? 'credit' : 'debit',
    remaining: new Decimal(i.ore).div(100),
    currencyCode: 'NOK',
    postingDate: new Date(base + i.dayOffset * 86_400_000),
    partnerId: i.partner.id,
    partnerName: i.partner.name,
    partnerAccounts: i.partner.accounts,
    documentNumber: i.doc === null ? null : String(i.doc),
  }));
  const transactions: MatchTransaction[] = txs.map((t, k) => {
    let amountOre = t.ore;
    if (t.copy && openItems.length) {
      const [a, b, sum] = t.copy;
      const first = items[a % items.length];
      amountOre = first.ore + (sum ? items[b % items.length].ore : 0);
      if (first.payable) amountOre = -amountOre;
    }
    const amount = new Decimal(amountOre || 1).div(100);
    return {
      id: k + 1,
      bookingDate: new Date(base),
      amount,
      remaining: amount,
      currencyCode: 'NOK',
      counterpartyName: t.partner.name.toUpperCase(),
      counterpartyAccount: t.byAccount ? (t.partner.accounts[0] ?? null) : null,
      structuredReferences: t.kid === null ? [] : [withKid(String(t.kid))],
      text: '',
    };
  });
  return { transactions, openItems };
});

describe('matchTransactions properties', () => {
  it('never exceeds an item\'s remaining amount, uses every item and transaction at most once, sums to the payment', () => {
    const rulesSeen = new Set<string>();
    fc.assert(
      fc.property(books, ({ transactions, openItems }) => {
        const proposals = matchTransactions({ transactions, openItems });
        for (const p of proposals) rulesSeen.add(p.rule);
        const items = new Map(openItems.map((i) => [i.journalEntryLineId, i]));
        const txs = new Map(transactions.map((t) => [t.id, t]));
        const seenLines = new Set<number>();
        const seenTxs = new Set<number>();
        for (const p of proposals) {
          expect(seenTxs.has(p.bankTransactionId)).toBe(false);
          seenTxs.add(p.bankTransactionId);
          const t = txs.get(p.bankTransactionId)!;
          let sum = new Decimal(0);
          for (const l of p.lines) {
            expect(seenLines.has(l.journalEntryLineId)).toBe(false);
            seenLines.add(l.journalEntryLineId);
            const i = items.get(l.journalEntryLineId)!;
            expect(l.amount.gt(0)).toBe(true);
            expect(l.amount.lte(i.remaining)).toBe(true);
            // incoming settles receivables, outgoing payables
            expect(i.kind).toBe(t.amount.gt(0) ? 'receivable' : 'payable');
            sum = sum.add(l.amount);
          }
          if (p.rule === 'KID') {
            expect(p.lines).toHaveLength(1);
            expect(sum.lte(t.remaining.abs())).toBe(true);
          } else {
            expect(sum.eq(t.remaining.abs())).toBe(true);
          }
          if (p.rule === 'SUM') expect(p.lines.length).toBeGreaterThanOrEqual(2);
        }
      }),
      // seeded: the same 300 books every run (unseeded, a run without a SUM match now and then failed the check below)
      { numRuns: 300, seed: 20261125 },
    );
    // the generator makes books where every rule finds something, or the properties say little
    expect([...rulesSeen].sort()).toEqual(['AMOUNT', 'KID', 'SUM']);
  });

  it('is deterministic: the same input in any order gives the same proposals', () => {
    fc.assert(
      fc.property(books, fc.integer(), ({ transactions, openItems }, seed) => {
        const shuffle = <T>(xs: T[]) => xs.map((x, k) => ({ x, key: (k * 7919 + seed) % 1009 })).sort((a, b) => a.key - b.key).map((e) => e.x);
        const a = matchTransactions({ transactions, openItems });
        const b = matchTransactions({ transactions: shuffle(transactions), openItems: shuffle(openItems) });
        expect(plain(b)).toEqual(plain(a));
      }),
      { numRuns: 200 },
    );
  });

  it('is idempotent: with the first run\'s proposals taken, a second run proposes nothing', () => {
    fc.assert(
      fc.property(books, ({ transactions, openItems }) => {
        const first = matchTransactions({ transactions, openItems });
        const taken = { transactionIds: first.map((p) => p.bankTransactionId), lineIds: first.flatMap((p) => p.lines.map((l) => l.journalEntryLineId)) };
        expect(matchTransactions({ transactions, openItems, taken })).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
