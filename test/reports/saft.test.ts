import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { XMLParser } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mailer, MailMessage } from '../../src/mail/mailer.ts';
import { checkSaft } from '../../src/modules/reports/saft/saft.checks.ts';
import { saftExportJob } from '../../src/modules/reports/saft/saft.job.ts';
import { saftFileName, writeSaft, type SaftSummary } from '../../src/modules/reports/saft/saft.service.ts';
import { ForbiddenError, ValidationError } from '../../src/shared/errors.ts';
import type { RequestContext } from '../../src/shared/context.ts';
import { errorCode, eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { randomOrganizationNumber as organizationNumber } from '../support/seed.ts';
import type { Tenant } from '../support/seed.ts';

// SAF-T Financial 1.30 export (spec 001 /reports/data-export; shared notes saft-notes.md): a fixture
// company's books written as a file that the shipped XSD accepts (xmllint), that our own checks
// accept, and whose figures match hand-computed ones; the ZIP by e-mail; tenancy.

const XSD = resolve(import.meta.dirname, '../../src/modules/reports/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd');
const scratch = mkdtempSync(join(tmpdir(), 'saft-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function xmllint(file: string): { status: number | null; output: string } {
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  isArray: (name) => ['Account', 'Customer', 'Supplier', 'BalanceAccount', 'TaxCodeDetails', 'AnalysisTypeTableEntry', 'Transaction', 'Line', 'Analysis', 'TaxInformation'].includes(name),
});

/** Writes the export to a file; returns the file, its text and the summary. */
async function exportTo(ctx: RequestContext, args: { clientAccountId: number; dateFrom: Date; dateTo: Date; createdAt?: Date }, options?: { batchSize?: number }) {
  const file = join(scratch, `${Math.random().toString(36).slice(2)}.xml`);
  const out = createWriteStream(file);
  const summary = await writeSaft(ctx, args, out, options);
  out.end();
  await finished(out);
  return { file, xml: readFileSync(file, 'utf8'), summary };
}

const d = (iso: string) => new Date(`${iso}T00:00:00.000Z`);
const YEAR = Number(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric' }).format(new Date()));
const PERIOD = { dateFrom: d(`${YEAR}-01-01`), dateTo: d(`${YEAR}-12-31`) };

describe.each(targets())('SAF-T Financial export (%s)', (target) => {
  let app: TestApp;
  const mails: MailMessage[] = [];
  const mailer: Mailer = {
    describe: 'captured by the test',
    async send(message) {
      mails.push(message);
      return { messageId: `<${mails.length}@test>` };
    },
    close() {},
  };

  beforeAll(async () => {
    // this file's queue only: on PostgreSQL other test files share the database
    app = await startTestApp(target, { jobs: { queues: [saftExportJob.name], mailer } });
  });
  afterAll(() => app?.close());

  /**
   * The fixture company: VAT-liable, an address, a customer and a supplier, a project and a
   * department, and these entries (period = this calendar year):
   *   1  last year  opening capital         1920 D 10 000 / 2000 C 10 000
   *   2  last year  customer invoice        1500 D 500 (customer) / 3000 C 400 (code 3) / 2700 C 100
   *   3  03-10      customer invoice 10001  1500 D 1 250 (customer) / 3000 C 1 000 (code 3, project, department, qty 10) / 2700 C 250
   *   4  03-15      supplier invoice        4300 D 800 (code 1) / 2710 D 200 / 2400 C 1 000 (supplier)
   *   5  04-02      rent paid in EUR        6300 D 1 150 / 1940 C 1 150 = 100 EUR at 11.5
   *   6  05-05      cancelled               6300 D 300 / 1920 C 300, and its reversal (posted today)
   *   –  06-01      draft                   6300 D 999 / 1920 C 999
   *   7  06-10      customer payment        1920 D 1 000 / 1500 C 1 000 (customer)
   *   8  next year  after the period        6300 D 700 / 1920 C 700
   */
  async function fixture() {
    const t: Tenant = await app.seed.tenant();
    const prisma = app.db.prisma;
    const clientAccountId = t.account.id;
    const orgnr = organizationNumber();
    await prisma.clientAccount.update({ where: { id: clientAccountId }, data: { organizationNumber: orgnr, vatLiable: true, displayName: 'Blåbær & Søn AS' } });
    const self = await prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId, isSelf: true } });
    await prisma.businessPartnerAddress.create({ data: { businessPartnerId: self.id, addressType: 'VISITING', line1: 'Storgata 1', postalCode: '0155', city: 'Oslo' } });
    const customer = await prisma.businessPartner.create({
      data: { clientAccountId, name: 'Kafé <Lillebror> AS', isCustomer: true, addresses: { create: { addressType: 'POSTAL', line1: 'Bakgården & Co', postalCode: '5003', city: 'Bergen' } } },
    });
    const supplier = await prisma.businessPartner.create({ data: { clientAccountId, name: 'Bønnegrossisten AS', isSupplier: true, organizationNumber: organizationNumber() } });
    const project = await prisma.project.create({ data: { clientAccountId, sequenceNumber: 1, name: 'Prosjekt "Nord"' } });
    const department = await prisma.department.create({ data: { clientAccountId, sequenceNumber: 1, name: 'Salg & marked' } });
    const invoice = await prisma.document.create({
      data: { clientAccountId, businessPartnerId: customer.id, documentType: 'ARINV', documentNumber: '10001', documentDate: d(`${YEAR}-03-10`), isDraft: false },
    });

    const bp = (id: number) => [{ type: 'BUSINESS_PARTNER', id }];
    const post = async (lines: Record<string, unknown>[], extra: Record<string, unknown> = {}) => {
      const res = await app.gql(t.user.token, `mutation($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { id sequenceNumber } }`, {
        input: { clientAccountId, lines, ...extra },
      });
      expect(res.errors).toBeUndefined();
      return res.data.createJournalEntry as { id: number; sequenceNumber: number | null };
    };
    const L = (date: string, accountCode: string, debit: string, credit: string, more: Record<string, unknown> = {}) => ({ postingDate: date, accountCode, debit, credit, ...more });
    const last = `${YEAR - 1}-12`;
    const e1 = await post([L(`${last}-15`, '1920', '10000.00', '0'), L(`${last}-15`, '2000', '0', '10000.00')], { description: 'Innskudd aksjekapital' });
    const e2 = await post(
      [
        L(`${last}-20`, '1500', '500.00', '0', { dimensions: bp(customer.id) }),
        L(`${last}-20`, '3000', '0', '400.00', { taxCode: '3' }),
        L(`${last}-20`, '2700', '0', '100.00', { taxLine: true, taxForLine: 2 }),
      ],
      { description: 'Faktura 9999' },
    );
    const e3 = await post(
      [
        L(`${YEAR}-03-10`, '1500', '1250.00', '0', { dimensions: bp(customer.id) }),
        L(`${YEAR}-03-10`, '3000', '0', '1000.00', { taxCode: '3', quantity: '10', description: 'Kaffe & kaker', dimensions: [{ type: 'PROJECT', id: project.id }, { type: 'DEPARTMENT', id: department.id }] }),
        L(`${YEAR}-03-10`, '2700', '0', '250.00', { taxLine: true, taxForLine: 2 }),
      ],
      { description: 'Faktura 10001', relationType: 'document', relationId: invoice.id },
    );
    const e4 = await post(
      [
        L(`${YEAR}-03-15`, '4300', '800.00', '0', { taxCode: '1' }),
        L(`${YEAR}-03-15`, '2710', '200.00', '0', { taxLine: true, taxForLine: 1 }),
        L(`${YEAR}-03-15`, '2400', '0', '1000.00', { dimensions: bp(supplier.id) }),
      ],
      { description: 'Inngående faktura 77' },
    );
    const e5 = await post(
      [L(`${YEAR}-04-02`, '6300', '1150.00', '0'), L(`${YEAR}-04-02`, '1940', '0', '1150.00', { currencyCode: 'EUR', creditFc: '100.00', exchangeRate: '11.5' })],
      { description: 'Husleie april' },
    );
    const e6 = await post([L(`${YEAR}-05-05`, '6300', '300.00', '0'), L(`${YEAR}-05-05`, '1920', '0', '300.00')]);
    const draft = await post([L(`${YEAR}-06-01`, '6300', '999.00', '0'), L(`${YEAR}-06-01`, '1920', '0', '999.00')], { isDraft: true, description: 'Kladd' });
    const e7 = await post([L(`${YEAR}-06-10`, '1920', '1000.00', '0'), L(`${YEAR}-06-10`, '1500', '0', '1000.00', { dimensions: bp(customer.id) })], { description: 'Innbetaling' });
    const e8 = await post([L(`${YEAR + 1}-01-10`, '6300', '700.00', '0'), L(`${YEAR + 1}-01-10`, '1920', '0', '700.00')], { description: 'Neste år' });
    const cancel = await app.gql(t.user.token, `mutation($id: Int!) { cancelJournalEntry(id: $id, cancelled: "Y", cancellationReason: "Feilført") { id cancelled } }`, { id: e6.id });
    expect(cancel.errors).toBeUndefined();
    const reversal = await prisma.journalEntry.findFirstOrThrow({ where: { reversesEntryId: e6.id }, select: { sequenceNumber: true } });
    return { t, clientAccountId, orgnr, customer, supplier, project, department, seq: { e1, e2, e3, e4, e5, e6, e7, e8, draft, reversal: reversal.sequenceNumber! } };
  }

  let books: Awaited<ReturnType<typeof fixture>>;
  let made: { file: string; xml: string; summary: SaftSummary };
  beforeAll(async () => {
    books = await fixture();
    made = await exportTo(app.seed.contextOf(books.t.user), { clientAccountId: books.clientAccountId, ...PERIOD, createdAt: new Date('2026-03-01T12:34:56Z') });
  });

  it('writes a file the SAF-T 1.30 XSD accepts (xmllint exit 0) and our own checks find nothing wrong in', () => {
    const lint = xmllint(made.file);
    expect(lint.output).toContain('validates');
    expect(lint.status).toBe(0);
    expect(checkSaft(made.xml).problems).toEqual([]);
    expect(checkSaft(made.file).problems).toEqual([]); // a path works too
    expect(made.xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO">')).toBe(true);
  });

  it('has the hand-computed totals, entries and balances; drafts and entries outside the period are left out', () => {
    const { seq } = books;
    expect(made.summary).toEqual({ fileName: `SAF-T Financial_${books.orgnr}_20260301133456.xml`, numberOfEntries: 6, totalDebit: '5000.00', totalCredit: '5000.00' });
    const file = parser.parse(made.xml).AuditFile;
    const gl = file.GeneralLedgerEntries;
    expect([gl.NumberOfEntries, gl.TotalDebit, gl.TotalCredit]).toEqual(['6', '5000.00', '5000.00']);
    const ids = gl.Journal.Transaction.map((tr: any) => tr.TransactionID);
    // the cancelled original and its reversal are both in; the draft, last year's and next year's are not
    expect(ids).toEqual([seq.e3, seq.e4, seq.e5, seq.e6, seq.e7, seq.reversal].map((e: any) => String(typeof e === 'number' ? e : e.sequenceNumber)));
    expect(seq.draft.sequenceNumber).toBeNull();

    const account = (code: string) => file.MasterFiles.GeneralLedgerAccounts.Account.find((a: any) => a.AccountID === code);
    const balance = (a: any) => ({ opening: a.OpeningDebitBalance ?? `-${a.OpeningCreditBalance}`, closing: a.ClosingDebitBalance ?? `-${a.ClosingCreditBalance}` });
    expect(balance(account('1920'))).toEqual({ opening: '10000.00', closing: '11000.00' });
    expect(balance(account('1500'))).toEqual({ opening: '500.00', closing: '750.00' });
    expect(balance(account('2000'))).toEqual({ opening: '-10000.00', closing: '-10000.00' }); // a balance without movement is listed
    expect(balance(account('2400'))).toEqual({ opening: '0.00', closing: '-1000.00' });
    expect(balance(account('6300'))).toEqual({ opening: '0.00', closing: '1150.00' });
    expect(balance(account('1940'))).toEqual({ opening: '0.00', closing: '-1150.00' });
    expect(account('1500')).toMatchObject({ AccountDescription: 'Kundefordringer', GroupingCategory: 'balanseverdiForOmloepsmiddel', GroupingCode: '1500', AccountType: 'GL' });
    expect(account('1070')).toBeUndefined(); // no balance, no movement

    const customer = file.MasterFiles.Customers.Customer;
    expect(customer).toHaveLength(1);
    expect(customer[0]).toMatchObject({ Name: 'Kafé <Lillebror> AS', CustomerID: String(books.customer.id), BalanceAccount: [{ AccountID: '1500', OpeningDebitBalance: '500.00', ClosingDebitBalance: '750.00' }] });
    expect(customer[0].Address).toMatchObject({ StreetName: 'Bakgården & Co', City: 'Bergen', PostalCode: '5003', Country: 'NO', AddressType: 'PostalAddress' });
    expect(file.MasterFiles.Suppliers.Supplier[0]).toMatchObject({ SupplierID: String(books.supplier.id), BalanceAccount: [{ AccountID: '2400', OpeningDebitBalance: '0.00', ClosingCreditBalance: '1000.00' }] });

    const taxTable = file.MasterFiles.TaxTable.TaxTableEntry;
    expect(taxTable).toMatchObject({ TaxType: 'MVA', Description: 'Merverdiavgift' });
    expect(taxTable.TaxCodeDetails.map((t: any) => [t.TaxCode, t.TaxPercentage, t.Country, t.StandardTaxCode, t.BaseRate])).toEqual([
      ['1', '25', 'NO', '1', '100'],
      ['3', '25', 'NO', '3', '100'],
    ]);
    expect(file.MasterFiles.AnalysisTypeTable.AnalysisTypeTableEntry).toEqual([
      { AnalysisType: 'P', AnalysisTypeDescription: 'Prosjekt', AnalysisID: String(books.project.id), AnalysisIDDescription: 'Prosjekt "Nord"' },
      { AnalysisType: 'A', AnalysisTypeDescription: 'Avdeling', AnalysisID: String(books.department.id), AnalysisIDDescription: 'Salg & marked' },
    ]);

    const header = file.Header;
    expect(header).toMatchObject({ AuditFileVersion: '1.30', AuditFileCountry: 'NO', AuditFileDateCreated: '2026-03-01', DefaultCurrencyCode: 'NOK', TaxAccountingBasis: 'A' });
    expect(header.SelectionCriteria).toEqual({ SelectionStartDate: `${YEAR}-01-01`, SelectionEndDate: `${YEAR}-12-31` });
    expect(header.Company).toMatchObject({ RegistrationNumber: books.orgnr, Name: 'Blåbær & Søn AS', Address: { StreetName: 'Storgata 1', City: 'Oslo', AddressType: 'StreetAddress' } });
    expect(header.Company.Contact.ContactPerson).toEqual({ FirstName: 'Test', LastName: 'User' });
  });

  it('writes the lines: sides, currency, VAT on the base line, dimensions, sub-ledger ids, descriptions', () => {
    const gl = parser.parse(made.xml).AuditFile.GeneralLedgerEntries;
    const tx = (s: { sequenceNumber: number | null } | number) => gl.Journal.Transaction.find((t: any) => t.TransactionID === String(typeof s === 'number' ? s : s.sequenceNumber));
    const invoice = tx(books.seq.e3);
    expect(invoice).toMatchObject({ Period: '3', PeriodYear: String(YEAR), TransactionDate: `${YEAR}-03-10`, VoucherType: 'ARINV', Description: 'Faktura 10001' });
    const [receivable, sale, vat] = invoice.Line;
    expect(receivable).toMatchObject({ RecordID: '1', AccountID: '1500', CustomerID: String(books.customer.id), Description: 'Faktura 10001', DebitAmount: { Amount: '1250.00' }, ReferenceNumber: '10001' });
    expect(sale).toMatchObject({
      AccountID: '3000',
      Description: 'Kaffe & kaker',
      CreditAmount: { Amount: '1000.00' },
      Quantity: '10.000000',
      Analysis: [
        { AnalysisType: 'P', AnalysisID: String(books.project.id) },
        { AnalysisType: 'A', AnalysisID: String(books.department.id) },
      ],
      TaxInformation: [{ TaxType: 'MVA', TaxCode: '3', TaxPercentage: '25', Country: 'NO', TaxBase: '1000.00', CreditTaxAmount: { Amount: '250.00' } }],
    });
    expect(vat).toMatchObject({ AccountID: '2700', CreditAmount: { Amount: '250.00' } });
    expect(vat.TaxInformation).toBeUndefined(); // the VAT line is a normal line; its VAT sits on the base line
    expect(receivable.TaxInformation).toBeUndefined();

    const purchase = tx(books.seq.e4);
    expect(purchase.Line[0].TaxInformation[0]).toMatchObject({ TaxCode: '1', DebitTaxAmount: { Amount: '200.00' } });
    expect(purchase.Line[2]).toMatchObject({ AccountID: '2400', SupplierID: String(books.supplier.id), CreditAmount: { Amount: '1000.00' } });
    expect(purchase.Line[2].CustomerID).toBeUndefined();

    const rent = tx(books.seq.e5);
    expect(rent.Line[0].DebitAmount).toEqual({ Amount: '1150.00' }); // accounting currency: no currency elements
    expect(rent.Line[1].CreditAmount).toEqual({ Amount: '1150.00', CurrencyCode: 'EUR', CurrencyAmount: '100.00', ExchangeRate: '11.500000' });

    // no description on the entry: "Bilag N"; its reversal names what it cancels
    expect(tx(books.seq.e6).Description).toBe(`Bilag ${books.seq.e6.sequenceNumber}`);
    const reversal = tx(books.seq.reversal);
    expect(reversal.Description).toBe(`Annullering av bilag ${books.seq.e6.sequenceNumber}`);
    expect(reversal.Line.map((l: any) => [l.AccountID, l.DebitAmount?.Amount ?? `-${l.CreditAmount.Amount}`])).toEqual([
      ['6300', '-300.00'],
      ['1920', '300.00'],
    ]);
  });

  it('the same file whatever the batch size (keyset reads across a transaction) and however slowly the reader takes it', async () => {
    const ctx = app.seed.contextOf(books.t.user);
    const args = { clientAccountId: books.clientAccountId, ...PERIOD, createdAt: new Date('2026-03-01T12:34:56Z') };
    const tiny = await exportTo(ctx, args, { batchSize: 2 });
    expect(tiny.xml).toBe(made.xml);
    // a reader that takes 1 KB at a time and answers late: the writer waits for drain
    const chunks: Buffer[] = [];
    let waits = 0;
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _e, cb) {
        chunks.push(chunk);
        waits++;
        setTimeout(cb, 1);
      },
    });
    await writeSaft(ctx, args, slow);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(made.xml);
    expect(waits).toBeGreaterThan(0);
  });

  it('a period without entries still makes a valid file: balances carried, zero totals', async () => {
    const ctx = app.seed.contextOf(books.t.user);
    const empty = await exportTo(ctx, { clientAccountId: books.clientAccountId, dateFrom: d(`${YEAR + 3}-01-01`), dateTo: d(`${YEAR + 3}-01-31`) });
    expect(xmllint(empty.file).status).toBe(0);
    expect(checkSaft(empty.xml).problems).toEqual([]);
    expect(empty.summary).toMatchObject({ numberOfEntries: 0, totalDebit: '0.00', totalCredit: '0.00' });
    const accounts = parser.parse(empty.xml).AuditFile.MasterFiles.GeneralLedgerAccounts.Account;
    // 1920: 10 000 − 300 + 300 + 1 000 − 700 (next year's entry is before this period)
    expect(accounts.find((a: any) => a.AccountID === '1920')).toMatchObject({ OpeningDebitBalance: '10300.00', ClosingDebitBalance: '10300.00' });
  });

  it('checkSaft catches what the XSD lets through: a tampered total, an unknown AccountID, an unbalanced transaction', () => {
    const tampered = made.xml.replace('<TotalDebit>5000.00</TotalDebit>', '<TotalDebit>5000.01</TotalDebit>');
    const file = join(scratch, 'tampered.xml');
    writeFileSync(file, tampered);
    expect(xmllint(file).status).toBe(0); // still valid for the schema
    expect(checkSaft(tampered).problems).toEqual([
      "TotalDebit is 5000.01, but the lines' debits sum to 5000.00",
      'TotalDebit 5000.01 differs from TotalCredit 5000.00',
    ]);

    const journal = made.xml.indexOf('<GeneralLedgerEntries>');
    const unknown = made.xml.slice(0, journal) + made.xml.slice(journal).replace('<AccountID>6300</AccountID>', '<AccountID>9999</AccountID>');
    writeFileSync(file, unknown);
    expect(xmllint(file).status).toBe(0);
    const problems = checkSaft(unknown).problems;
    expect(problems.some((p) => /AccountID 9999 is not in MasterFiles/.test(p))).toBe(true);
    expect(problems.some((p) => /^Account 6300: opening 0.00 \+ movements 0.00 ≠ closing 1150.00$/.test(p))).toBe(true);

    const unbalanced = made.xml.replace('<CreditAmount><Amount>250.00</Amount></CreditAmount>', '<CreditAmount><Amount>205.00</Amount></CreditAmount>');
    expect(checkSaft(unbalanced).problems).toContain(`Transaction ${books.seq.e3.sequenceNumber} does not balance: debit − credit = 45.00`);
    expect(checkSaft('<AuditFile><oops></AuditFile>').problems[0]).toMatch(/^not well-formed XML/);
  });

  it('the ZIP export: requestSaftExport answers at once, and the job mails a ZIP whose XML validates', async () => {
    const res = await app.gql(books.t.user.token, `mutation($id: Int!, $from: Date!, $to: Date!) { requestSaftExport(clientAccountId: $id, dateFrom: $from, dateTo: $to) { message } }`, {
      id: books.clientAccountId,
      from: `${YEAR}-01-01`,
      to: `${YEAR}-12-31`,
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.requestSaftExport.message).toContain(books.t.user.email);
    const mail = await eventually(() => mails.find((m) => m.to === books.t.user.email), 'the SAF-T mail', 30_000);
    expect(mail.subject).toBe(`SAF-T-fil for Blåbær & Søn AS (${books.orgnr}), 01.01.${YEAR}–31.12.${YEAR}`);
    expect(mail.text).toContain('vedlagt er SAF-T Financial-filen');
    expect(mail.text).toContain('6 bilag med sum debet 5000.00 og sum kredit 5000.00');
    expect(mail.attachments).toHaveLength(1);
    const [attachment] = mail.attachments!;
    expect(attachment!.contentType).toBe('application/zip');
    expect(attachment!.filename).toMatch(new RegExp(`^SAF-T Financial_${books.orgnr}_\\d{14}\\.zip$`));
    const entries = unzipSync(Buffer.from(attachment!.contentBase64, 'base64'));
    const names = Object.keys(entries);
    expect(names).toEqual([attachment!.filename.replace(/\.zip$/, '.xml')]);
    const xml = Buffer.from(entries[names[0]!]!).toString('utf8');
    const file = join(scratch, 'from-zip.xml');
    writeFileSync(file, xml);
    expect(xmllint(file).status).toBe(0);
    expect(checkSaft(xml).problems).toEqual([]);
    // the same books as the direct export (only the creation date may differ)
    const strip = (x: string) => x.replace(/<AuditFileDateCreated>[^<]*<\/AuditFileDateCreated>/, '');
    expect(strip(xml)).toBe(strip(made.xml));
  });

  it('an unknown client account is a validation error (400), another tenant’s account forbidden (403), a read-only token may not start one', async () => {
    const ctx = app.seed.contextOf(books.t.user);
    const other = await app.seed.tenant();
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    await expect(writeSaft(ctx, { clientAccountId: 2_000_000_000, ...PERIOD }, sink)).rejects.toThrow(ValidationError);
    await expect(writeSaft(ctx, { clientAccountId: other.account.id, ...PERIOD }, sink)).rejects.toThrow(ForbiddenError);
    await expect(saftFileName(ctx, { clientAccountId: 2_000_000_000, ...PERIOD })).rejects.toThrow(/client account 2000000000 not found/);
    expect(await saftFileName(ctx, { clientAccountId: books.clientAccountId, ...PERIOD, createdAt: new Date('2026-07-01T22:00:00Z') })).toBe(`SAF-T Financial_${books.orgnr}_20260702000000.xml`);
    // without an organisation number there is no valid file to make
    await expect(writeSaft(app.seed.contextOf(other.user), { clientAccountId: other.account.id, ...PERIOD }, sink)).rejects.toThrow(/no organisation number/);
    await expect(writeSaft(ctx, { clientAccountId: books.clientAccountId, dateFrom: PERIOD.dateTo, dateTo: PERIOD.dateFrom }, sink)).rejects.toThrow(/dateTo: must not be before dateFrom/);

    const REQUEST = `mutation($id: Int!) { requestSaftExport(clientAccountId: $id, dateFrom: "${YEAR}-01-01", dateTo: "${YEAR}-12-31") { message } }`;
    expect(errorCode(await app.gql(books.t.user.token, REQUEST, { id: 2_000_000_000 }))).toBe('common.validation_error');
    expect(errorCode(await app.gql(books.t.user.token, REQUEST, { id: other.account.id }))).toBe('common.forbidden');
    expect(errorCode(await app.gql(books.t.user.readToken, REQUEST, { id: books.clientAccountId }))).toBe('insufficient_scope');
  });
});
