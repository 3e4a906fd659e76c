import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { afterBankTransactionsArrive } from '../../src/modules/bank-transactions/bank-transactions.service.ts';

/** A camt.053 statement as Norwegian banks send it: two entries (a KID payment in, a card payment out). */
const camt053 = (o: { ns?: string; iban: string; opening: string; closing: string; refs?: [string, string] }) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${o.ns ?? 'camt.053.001.02'}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-20260430-1</MsgId><CreDtTm>2026-05-01T06:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>STMT-2026-04</Id>
      <CreDtTm>2026-05-01T06:00:00</CreDtTm>
      <FrToDt><FrDtTm>2026-04-01T00:00:00</FrDtTm><ToDtTm>2026-04-30T23:59:59</ToDtTm></FrToDt>
      <Acct><Id><IBAN>${o.iban}</IBAN></Id><Ccy>NOK</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">${o.opening}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-04-01</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">${o.closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-04-30</Dt></Dt></Bal>
      <Ntry>
        <NtryRef>1</NtryRef>
        <Amt Ccy="NOK">1250.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2026-04-05</Dt></BookgDt>
        <ValDt><Dt>2026-04-05</Dt></ValDt>
        <AcctSvcrRef>${o.refs?.[0] ?? 'BANKREF-0001'}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><MsgId>PAIN-77</MsgId><PmtInfId>PMT-1</PmtInfId><InstrId>INSTR-1</InstrId><EndToEndId>E2E-0001</EndToEndId></Refs>
          <AmtDtls><InstdAmt><Amt Ccy="NOK">1250.00</Amt></InstdAmt></AmtDtls>
          <RltdPties><Dbtr><Nm>Kunde AS</Nm></Dbtr><DbtrAcct><Id><Othr><Id>12030000043</Id></Othr></Id></DbtrAcct></RltdPties>
          <RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>000100100012</Ref></CdtrRefInf></Strd></RmtInf>
        </TxDtls></NtryDtls>
        <AddtlNtryInf>Innbetaling KID</AddtlNtryInf>
      </Ntry>
      <Ntry>
        <NtryRef>2</NtryRef>
        <Amt Ccy="NOK">349.90</Amt>
        <CdtDbtInd>DBIT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2026-04-07</Dt></BookgDt>
        <ValDt><Dt>2026-04-06</Dt></ValDt>
        <AcctSvcrRef>${o.refs?.[1] ?? 'BANKREF-0002'}</AcctSvcrRef>
        <NtryDtls><TxDtls>
          <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
          <RltdPties><Cdtr><Nm>Kontorrekvisita AS</Nm></Cdtr></RltdPties>
          <RmtInf><Ustrd>Varekjøp</Ustrd><Ustrd>kort 1234</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
        <AddtlNtryInf>Visa 1234</AddtlNtryInf>
      </Ntry>
    </Stmt>
  </BkToCstmrStmt>
</Document>`;

describe.each(targets())('bank transactions GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let bank: number;
  let customer: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    bank = (await app.seed.prisma.bankAccount.create({ data: { clientAccountId: t.account.id, accountNumber: '15032012342', ledgerAccountId: await t.ledgerAccount('1920') } })).id;
    customer = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', isCustomer: true } })).id;
  });
  afterAll(() => app?.close());

  const gql = <T = any>(query: string, variables?: Record<string, unknown>) => app.gql<T>(t.user.token, query, variables);
  const create = async (amount: string, extra: Record<string, unknown> = {}) => {
    const res = await gql(
      `mutation($input: CreateBankTransactionInput!) { createBankTransaction(input: $input) { id amount externalReconciledAmount } }`,
      { input: { clientAccountId: t.account.id, amount, currencyCode: 'NOK', bookingDate: '2026-03-10', ...(amount.startsWith('-') ? { payorBankAccountId: bank } : { payeeBankAccountId: bank }), ...extra } },
    );
    expect(res.errors).toBeUndefined();
    return res.data.createBankTransaction.id as number;
  };
  const BOOK = `mutation($input: BookBankTransactionInput!) { bookBankTransaction(input: $input) {
    id externalReconciledAmount
    postedPayments { id isDraft sequenceNumber transfer { accountEntries { accountCode debit credit debitFc creditFc currencyCode businessPartnerId } } }
    receivablePayments { accountCode credit businessPartnerId }
  } }`;
  const book = (input: Record<string, unknown>) => gql(BOOK, { input });

  describe('bookBankTransaction', () => {
    it('posts one journal entry: incoming debits the bank account (1920), credits the counter account; external_reconciled_amount moves', async () => {
      const id = await create('1250.00');
      const res = await book({ bankTransactionId: id, counterAccountCode: '1500', businessPartnerId: customer });
      expect(res.errors).toBeUndefined();
      const b = res.data.bookBankTransaction;
      expect(b.externalReconciledAmount).toBe('1250.00');
      expect(b.postedPayments).toHaveLength(1);
      expect(b.postedPayments[0]).toMatchObject({ isDraft: false, sequenceNumber: expect.any(Number) });
      expect(b.postedPayments[0].transfer.accountEntries).toEqual([
        { accountCode: '1920', debit: '1250.00', credit: '0.00', debitFc: '1250.00', creditFc: '0.00', currencyCode: 'NOK', businessPartnerId: null },
        { accountCode: '1500', debit: '0.00', credit: '1250.00', debitFc: '0.00', creditFc: '1250.00', currencyCode: 'NOK', businessPartnerId: customer },
      ]);
      expect(b.receivablePayments).toEqual([{ accountCode: '1500', credit: '1250.00', businessPartnerId: customer }]);
      const entry = await app.seed.prisma.journalEntry.findUniqueOrThrow({ where: { id: b.postedPayments[0].id } });
      expect(entry).toMatchObject({ relationType: 'bank_transaction', relationId: id });
      const line = await app.seed.prisma.journalEntryLine.findFirstOrThrow({ where: { journalEntryId: entry.id, lineId: 1 } });
      expect(line.bankAccountId).toBe(bank);
    });

    it('outgoing credits the bank account and debits the counter account; amounts in parts; over-booking refused (400)', async () => {
      const id = await create('-800.00');
      const first = await book({ bankTransactionId: id, counterAccountCode: '2400', businessPartnerId: customer, amount: '500', date: '2026-03-12' });
      expect(first.errors).toBeUndefined();
      expect(first.data.bookBankTransaction.externalReconciledAmount).toBe('-500.00');
      expect(first.data.bookBankTransaction.postedPayments[0].transfer.accountEntries.map((l: { accountCode: string; debit: string; credit: string }) => [l.accountCode, l.debit, l.credit])).toEqual([
        ['1920', '0.00', '500.00'],
        ['2400', '500.00', '0.00'],
      ]);
      const over = await book({ bankTransactionId: id, counterAccountCode: '2400', businessPartnerId: customer, amount: '300.01' });
      expect(errorCode(over)).toBe('common.validation_error');
      expect(over.errors![0].message).toContain('300.00');
      const rest = await book({ bankTransactionId: id, counterAccountCode: '2400', businessPartnerId: customer });
      expect(rest.data.bookBankTransaction.externalReconciledAmount).toBe('-800.00');
      const done = await book({ bankTransactionId: id, counterAccountCode: '2400', businessPartnerId: customer });
      expect(done.errors![0].message).toMatch(/fully booked/);
    });

    it("the ledger's rules apply: 1500 without the businesspartner dimension is 400, nothing booked", async () => {
      const id = await create('100.00');
      const res = await book({ bankTransactionId: id, counterAccountCode: '1500' });
      expect(errorCode(res)).toBe('common.validation_error');
      expect(res.errors![0].message).toMatch(/businesspartner/);
      expect((await app.seed.prisma.bankTransaction.findUniqueOrThrow({ where: { id } })).externalReconciledAmount.toFixed(2)).toBe('0.00');
    });

    it('a foreign-currency transaction posts in its currency at its exchange rate; without one it is 400', async () => {
      const eur = (await app.seed.prisma.bankAccount.create({ data: { clientAccountId: t.account.id, accountNumber: '12030000043', currencyCode: 'EUR', ledgerAccountId: await t.ledgerAccount('1940') } })).id;
      const withRate = await create('100.00', { currencyCode: 'EUR', payeeBankAccountId: eur, exchangeRate: '11.5' });
      const res = await book({ bankTransactionId: withRate, counterAccountCode: '1500', businessPartnerId: customer });
      expect(res.errors).toBeUndefined();
      expect(res.data.bookBankTransaction.postedPayments[0].transfer.accountEntries[0]).toMatchObject({ accountCode: '1940', debit: '1150.00', debitFc: '100.00', currencyCode: 'EUR' });
      const noRate = await create('100.00', { currencyCode: 'EUR', payeeBankAccountId: eur });
      const refused = await book({ bankTransactionId: noRate, counterAccountCode: '1500', businessPartnerId: customer });
      expect(refused.errors![0].message).toMatch(/exchange_rate/);
    });

    it('a concurrent double booking never over-books: one entry, the amount booked once', async () => {
      const id = await create('640.00');
      const results = await Promise.all([1, 2, 3].map(() => book({ bankTransactionId: id, counterAccountCode: '1500', businessPartnerId: customer })));
      expect(results.filter((r) => !r.errors)).toHaveLength(1);
      for (const r of results.filter((x) => x.errors)) expect(errorCode(r)).toBe('common.validation_error');
      const row = await app.seed.prisma.bankTransaction.findUniqueOrThrow({ where: { id } });
      expect(row.externalReconciledAmount.toFixed(2)).toBe('640.00');
      expect(await app.seed.prisma.journalEntry.count({ where: { relationType: 'bank_transaction', relationId: id } })).toBe(1);
    });

    it('reconciled_documents: the documents a committed reconciliation matched with a payment line (REST with=)', async () => {
      const prisma = app.seed.prisma;
      const clientAccountId = t.account.id;
      const doc = await prisma.document.create({ data: { clientAccountId, documentType: 'INV', documentNumber: '1001', documentDate: new Date('2026-03-01'), isDraft: false } });
      const invoice = await gql(`mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { id lines { id accountCode } } }`, {
        input: {
          clientAccountId, relationType: 'document', relationId: doc.id,
          lines: [
            { postingDate: '2026-03-01', accountCode: '1500', debit: '300', credit: '0', dimensions: [{ type: 'BUSINESS_PARTNER', id: customer }] },
            { postingDate: '2026-03-01', accountCode: '3000', debit: '0', credit: '300' },
          ],
        },
      });
      expect(invoice.errors).toBeUndefined();
      const id = await create('300.00');
      const booked = await book({ bankTransactionId: id, counterAccountCode: '1500', businessPartnerId: customer });
      const paymentEntry = booked.data.bookBankTransaction.postedPayments[0].id;
      const paymentLine = await prisma.journalEntryLine.findFirstOrThrow({ where: { journalEntryId: paymentEntry, lineId: 2 } });
      const invoiceLine = invoice.data.createJournalEntry.lines[0];
      await prisma.reconciliation.create({
        data: {
          clientAccountId, sequenceNumber: 1, reconciliationDate: new Date('2026-03-10'),
          entries: { create: [
            { journalEntryId: invoice.data.createJournalEntry.id, journalEntryLineId: invoiceLine.id, debit: '300', debitFc: '300' },
            { journalEntryId: paymentEntry, journalEntryLineId: paymentLine.id, credit: '300', creditFc: '300' },
          ] },
        },
      });
      const res = await app.http('GET', `/api/v2/bank-transactions/${id}?with=reconciled_documents,posted_payments,receivable_payments`, { token: t.user.token });
      expect(res.body.reconciled_documents).toEqual([{ id: doc.id, document_type: 'INV', document_number: '1001', document_date: '2026-03-01' }]);
      expect(res.body.posted_payments[0]).toMatchObject({ id: paymentEntry, is_draft: false, transfer: { account_entries: [{ account_code: '1920' }, { account_code: '1500', business_partner_id: customer }] } });
      expect(res.body.receivable_payments).toEqual([expect.objectContaining({ account_code: '1500', credit: '300.00', journal_entry_id: paymentEntry })]);
    });
  });

  describe('importBankStatement (camt.053)', () => {
    const IMPORT = `mutation($input: ImportBankStatementInput!) { importBankStatement(input: $input) {
      id bankAccountId fromDate toDate openingBalance closingBalance source messageId imported skipped
      transactions { amount bookingDate valueDate entryReference memo payorName payeeName endToEndId paymentId instructionId messageId instructedAmount
        payeeBankAccountId payorBankAccountId questions { questionType }
        details { structuredReference description senderName senderAccount receiverName amount transactionType } }
    } }`;

    it.each(['camt.053.001.02', 'camt.053.001.08'])('imports a %s statement; the account found by its IBAN; a second import skips what it has seen', async (ns) => {
      const tenant = await app.seed.tenant();
      const own = (await app.seed.prisma.bankAccount.create({ data: { clientAccountId: tenant.account.id, accountNumber: '15032012342', ledgerAccountId: await tenant.ledgerAccount('1920') } })).id;
      const calls: number[] = [];
      const hook = async (_tx: unknown, clientAccountId: number) => void calls.push(clientAccountId);
      afterBankTransactionsArrive.push(hook);
      try {
        const xml = camt053({ ns, iban: 'NO9315032012342', opening: '10000.00', closing: '10900.10' });
        const res = await app.gql(tenant.user.token, IMPORT, { input: { clientAccountId: tenant.account.id, camt053: xml } });
        expect(res.errors).toBeUndefined();
        const s = res.data.importBankStatement;
        expect(s).toMatchObject({ bankAccountId: own, fromDate: '2026-04-01', toDate: '2026-04-30', openingBalance: '10000.00', closingBalance: '10900.10', source: 'CAMT053', imported: 2, skipped: 0, messageId: 'MSG-20260430-1/STMT-2026-04' });
        expect(s.transactions[0]).toMatchObject({
          amount: '1250.00', bookingDate: '2026-04-05', entryReference: 'BANKREF-0001', memo: 'Innbetaling KID', payorName: 'Kunde AS', payeeBankAccountId: own,
          endToEndId: 'E2E-0001', paymentId: 'PMT-1', instructionId: 'INSTR-1', messageId: 'PAIN-77', instructedAmount: '1250.00', questions: [],
          details: [{ structuredReference: '000100100012', description: null, senderName: 'Kunde AS', senderAccount: '12030000043', receiverName: null, amount: '1250.00', transactionType: 'DMCT' }],
        });
        expect(s.transactions[1]).toMatchObject({
          amount: '-349.90', valueDate: '2026-04-06', payeeName: 'Kontorrekvisita AS', payorBankAccountId: own, questions: [{ questionType: 'ATTACH_FILE' }],
          details: [{ description: 'Varekjøp kort 1234', receiverName: 'Kontorrekvisita AS', amount: '-349.90' }],
        });
        expect(calls).toEqual([tenant.account.id]);
        const again = await app.gql(tenant.user.token, IMPORT, { input: { clientAccountId: tenant.account.id, camt053: xml } });
        expect(again.data.importBankStatement).toMatchObject({ imported: 0, skipped: 2, transactions: [] });
        expect(calls).toHaveLength(1);
        expect(await app.seed.prisma.bankTransaction.count({ where: { clientAccountId: tenant.account.id } })).toBe(2);
      } finally {
        afterBankTransactionsArrive.splice(afterBankTransactionsArrive.indexOf(hook), 1);
      }
    });

    it('balances that do not add up: 400 naming the difference, nothing written', async () => {
      const xml = camt053({ iban: 'NO9315032012342', opening: '10000.00', closing: '10900.00', refs: ['X-1', 'X-2'] });
      const before = await app.seed.prisma.bankStatement.count({ where: { clientAccountId: t.account.id } });
      const res = await gql(IMPORT, { input: { clientAccountId: t.account.id, camt053: xml } });
      expect(errorCode(res)).toBe('common.validation_error');
      expect(res.errors![0].message).toContain('difference -0.10');
      expect(await app.seed.prisma.bankStatement.count({ where: { clientAccountId: t.account.id } })).toBe(before);
      expect(await app.seed.prisma.bankTransaction.count({ where: { entryReference: { in: ['X-1', 'X-2'] } } })).toBe(0);
    });

    it.each([
      ['not XML', '<Document><unclosed>', /camt053/],
      ['another message', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02"/>', /namespace/],
      ['an account not registered', camt053({ iban: 'NO9386011117947', opening: '0', closing: '900.10' }), /own bank accounts/],
    ])('400 for %s', async (_what, xml, message) => {
      const res = await gql(IMPORT, { input: { clientAccountId: t.account.id, camt053: xml } });
      expect(errorCode(res)).toBe('common.validation_error');
      expect(res.errors![0].message).toMatch(message);
    });

    it('POST /bank-statements takes camt053 in the JSON body too (201)', async () => {
      const xml = camt053({ iban: 'NO9315032012342', opening: '0', closing: '900.10', refs: ['R-1', 'R-2'] });
      const res = await app.http('POST', '/api/v2/bank-statements', { token: t.user.token, body: { client_account_id: t.account.id, camt053: xml } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ bank_account_id: bank, source: 'CAMT053', imported: 2, skipped: 0 });
    });
  });
});
