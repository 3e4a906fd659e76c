import { lockForTransaction } from '../shared/advisory-locks.ts';
import type { Db, Prisma } from '../db/database.ts';
import { createBankAccount } from '../modules/bank-accounts/bank-accounts.service.ts';
import { createBusinessPartner } from '../modules/business-partners/business-partners.service.ts';
import { createClientAccount, grantRole, linkProvider, updateClientAccount } from '../modules/client-accounts/client-accounts.service.ts';
import { createItem } from '../modules/items/items.service.ts';
import { createDepartment } from '../modules/departments/departments.service.ts';
import { createProject } from '../modules/projects/projects.service.ts';
import { issueShares } from '../modules/equity/equity.service.ts';
import { createPayrollContract } from '../modules/payroll-contracts/payroll-contracts.service.ts';
import { cancelJournalEntry, createJournalEntryInTx } from '../modules/journal-entries/journal-entries.service.ts';
import type { DimensionKind } from '../modules/journal-entries/dimensions.ts';
import { osloToday } from '../modules/journal-entries/journal-entries.rules.ts';
import { reconcileInTx } from '../modules/reconciliations/reconciliations.service.ts';
import type { RequestContext } from '../shared/context.ts';
import { createUser } from '../modules/users/users.service.ts';
import { auditUserId, systemContext } from '../shared/context.ts';
import { mod10CheckDigit } from '../modules/reconciliations/matcher.rules.ts';

/** The demo login printed by npm start and seed-demo (local use only). */
export const DEMO_LOGIN = { email: 'demo@example.no', password: 'demo-password' } as const;

/**
 * The demo on this database, when seeded: its login and its company (GET /, GraphiQL's first query
 * and the start banner show them); null when the demo login or the company is missing.
 */
export async function findDemo(prisma: Prisma): Promise<{ email: string; password: string; clientAccountId: number; companyName: string } | null> {
  const [user, company] = await Promise.all([
    prisma.user.findUnique({ where: { email: DEMO_LOGIN.email }, select: { id: true } }),
    prisma.clientAccount.findUnique({ where: { uniqueName: 'demo-nordlys-kaffe-as' }, select: { id: true, displayName: true } }),
  ]);
  return user && company ? { ...DEMO_LOGIN, clientAccountId: company.id, companyName: company.displayName } : null;
}

/**
 * A demo accounting firm (provider, 69.201) serving a demo company, a user who is accountant in the
 * firm and owner of the company, and the company's items, partners, bank accounts, projects and
 * departments; then its books: the whole previous calendar year, closed (result transferred to equity)
 * and locked, and the current year up to `today` (Europe/Oslo), with last month's open invoices and
 * unbooked bank transactions for the matcher. Through the services, so the demo data passes the same
 * rules as the API's. All of it in ONE transaction (with a timeout to match: Prisma's default is
 * 5 s), under an advisory lock: a seeder that runs meanwhile (two `seed-demo` on one PostgreSQL
 * database) waits, then finds the demo complete, never half-posted or half-created.
 */
export async function seedDemo(prisma: Prisma, options: { today?: Date } = {}) {
  return prisma.$transaction(
    async (db) => {
      await lockForTransaction({ db }, 'demoSeed', 0); // a second seeder waits and finds the demo complete
      return seedDemoInTx(db, options.today ?? osloToday());
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}

async function seedDemoInTx(db: Db, today: Date) {
  const system = systemContext(db);
  const user =
    (await db.user.findUnique({ where: { email: DEMO_LOGIN.email } })) ??
    (await createUser(system, { input: { ...DEMO_LOGIN, firstName: 'Demo', lastName: 'Regnskapsfører' } }));
  const existing = await db.clientAccount.findUnique({ where: { uniqueName: 'demo-fjordbyra-as' } });
  if (existing) {
    const company = await db.clientAccount.findUniqueOrThrow({ where: { uniqueName: 'demo-nordlys-kaffe-as' } });
    return { user, firm: existing, company, created: false };
  }
  const firm = await createClientAccount(system, {
    input: { displayName: 'Demo Fjordbyrå AS', uniqueName: 'demo-fjordbyra-as', industryCode: '69.201', vatLiable: true },
  });
  const company = await createClientAccount(system, {
    input: { displayName: 'Demo Nordlys Kaffe AS', uniqueName: 'demo-nordlys-kaffe-as', organizationNumber: '315846137', industryCode: '47.291', vatLiable: true },
  });
  await grantRole(system, { input: { email: user.email, clientAccountId: firm.id, role: 'AA' } });
  await grantRole(system, { input: { email: user.email, clientAccountId: company.id, role: 'CA' } });
  await linkProvider(system, { input: { providerAccountId: firm.id, clientAccountId: company.id } });

  // the context acts in the seed's transaction: the services' own transactions join it
  const tx = systemContext(db, { actingUserId: user.id });
  const ids = await seedRegisters(tx, company.id);
  const books = new Books(company.id, tx);
  await seedYears(books, ids, today);
  await seedBank(tx, company.id, ids.ownBankAccount, ids.customers, today);
  await seedPeopleAndShares(tx, company.id, today);
  // the previous year closed after everything dated in it (in January last month's matcher invoices
  // are December's), then locked: "closed and locked"
  const prev = today.getUTCFullYear() - 1;
  await closeYear(books, prev);
  await updateClientAccount(tx, { id: company.id, input: { lockDate: utc(prev, 11, 31) } });
  return { user, firm, company, created: true };
}

// ── Registers ────────────────────────────────────────────────────────────────────────────────────

type DemoIds = Awaited<ReturnType<typeof seedRegisters>>;

/** Items, customers, suppliers, bank accounts, projects and departments of the company. */
async function seedRegisters(tx: RequestContext, clientAccountId: number) {
  const unit = async (code: string) => (await tx.db.unit.findUniqueOrThrow({ where: { unEceRec20Code: code } })).id;
  const [piece, hour, kg] = [await unit('H87'), await unit('HUR'), await unit('KGM')];
  const tax = async (code: string) => (await tx.db.taxCode.findUniqueOrThrow({ where: { clientAccountId_code: { clientAccountId, code } } })).id;
  const [high, food] = [await tax('3'), await tax('31')];
  const item = async (input: Omit<Parameters<typeof createItem>[1]['input'], 'clientAccountId'>) => (await createItem(tx, { input: { ...input, clientAccountId } })).id;
  const items = {
    beans: await item({ itemNo: 'KAFFE-500', name: 'Kaffebønner 500 g', itemType: 'ITEM', salesUnitId: piece, stockUnitId: piece, taxCodeId: food, price: '149' }),
    bulk: await item({ itemNo: 'KAFFE-BULK', name: 'Kaffebønner, løsvekt', itemType: 'ITEM', salesUnitId: kg, stockUnitId: kg, taxCodeId: food, price: '279.5' }),
    grinder: await item({ itemNo: 'KVERN-01', name: 'Kaffekvern', itemType: 'ITEM', salesUnitId: piece, taxCodeId: high, price: '899' }),
    course: await item({ itemNo: 'KURS-BARISTA', name: 'Baristakurs', itemType: 'SERVICE', salesUnitId: hour, taxCodeId: high, price: '650' }),
    service: await item({ itemNo: 'SERVICE-AVTALE', name: 'Serviceavtale kaffemaskin', itemType: 'SERVICE', salesUnitId: piece, taxCodeId: high, price: '4990', metadata: { contractMonths: 12 } }),
  };
  const partner = async (input: Omit<Parameters<typeof createBusinessPartner>[1]['input'], 'clientAccountId'>) =>
    (await createBusinessPartner(tx, { input: { clientAccountId, ...input } })).id;
  const customers = {
    lillebror: await partner({
      name: 'Kafé Lillebror AS', organizationNumber: '923609016', email: 'post@lillebror.example', isCustomer: true,
      addresses: [{ addressType: 'POSTAL', line1: 'Storgata 1', postalCode: '0155', city: 'Oslo' }],
    }),
    fjell: await partner({ name: 'Fjellkaffe ASA', isCustomer: true }),
    bakeri: await partner({ name: 'Bakeriet på Hjørnet AS', isCustomer: true }),
    kontor: await partner({ name: 'Kontorkaffe Oslo AS', isCustomer: true, addresses: [{ addressType: 'POSTAL', line1: 'Akersgata 20', postalCode: '0158', city: 'Oslo' }] }),
    hotell: await partner({ name: 'Hotell Fjordgløtt AS', isCustomer: true, addresses: [{ addressType: 'POSTAL', line1: 'Strandkaien 4', postalCode: '5013', city: 'Bergen' }] }),
  };
  const suppliers = {
    bonne: await partner({
      name: 'Bønnegrossisten AS', organizationNumber: '974760673', isSupplier: true,
      addresses: [{ addressType: 'POSTAL', line1: 'Havnegata 9', postalCode: '5003', city: 'Bergen' }],
    }),
    servering: await partner({ name: 'Grossisten Servering AS', isSupplier: true }),
    emballasje: await partner({ name: 'Emballasje Norge AS', isSupplier: true }),
    gardeier: await partner({ name: 'Gårdeier Eiendom AS', isSupplier: true }),
    kraft: await partner({ name: 'Kraftselskapet AS', isSupplier: true }),
    fjordbyra: await partner({ name: 'Demo Fjordbyrå AS', isSupplier: true }),
    maskiner: await partner({ name: 'Kaffemaskiner AS', isSupplier: true }),
  };
  // an own account posts to 1920 (the default); the supplier's account has no ledger account
  const own = await createBankAccount(tx, { input: { clientAccountId, name: 'Driftskonto', accountNumber: '1503.20.12342', bic: 'DNBANOKK' } });
  await createBankAccount(tx, { input: { clientAccountId, businessPartnerId: suppliers.bonne, accountNumber: '1234.56.78903' } });
  const projects = {
    kurs: (await createProject(tx, { input: { clientAccountId, name: 'Baristakurs høsten', description: 'Kurs for kafékunder' } })).id,
    bergen: (await createProject(tx, { input: { clientAccountId, name: 'Ny butikk i Bergen' } })).id,
  };
  const department = async (name: string) => (await createDepartment(tx, { input: { clientAccountId, name } })).id;
  const departments = {
    butikk: await department('Butikk'),
    kurs: await department('Kurs'),
    admin: await department('Administrasjon'),
    brenneri: await department('Brenneri'),
    engros: await department('Engros'),
  };
  return { items, customers, suppliers, projects, departments, ownBankAccount: own.id };
}

// ── People and shares ────────────────────────────────────────────────────────────────────────────

/**
 * The owners and staff: two founders holding the 30 000 shares of NOK 1 behind the share capital
 * (2000), one of them also employed, and a barista paid by the hour. Their contracts queue the tax-card
 * fetch (payroll.fetch-tax-card), which the sandbox answers once a server runs.
 */
async function seedPeopleAndShares(tx: RequestContext, clientAccountId: number, today: Date) {
  const person = async (name: string, nationalIdNumber: string, roles: { isEmployee?: boolean; isShareholder?: boolean }) =>
    (await createBusinessPartner(tx, { input: { clientAccountId, name, nationalIdNumber, ...roles } })).id;
  const kari = await person('Kari Nordlys', '15058510766', { isEmployee: true, isShareholder: true });
  const ola = await person('Ola Nordlys', '02079110046', { isShareholder: true });
  const sindre = await person('Sindre Barista', '11039810044', { isEmployee: true });
  const founded = utc(today.getUTCFullYear() - 4, 2, 1);
  for (const [holder, quantity] of [[kari, 18_000], [ola, 12_000]] as const) {
    await issueShares(tx, { input: { clientAccountId, businessPartnerId: holder, shareClass: 'COMMON', quantity, pricePerShare: '1', transactionDate: founded, notes: 'Stiftelse' } });
  }
  await createPayrollContract(tx, {
    input: {
      clientAccountId, businessPartnerId: kari, employmentType: 'ordinaertArbeidsforhold', employmentForm: 'fast', workTimeArrangement: 'ikkeSkift',
      remunerationType: 'fast', jobTitle: 'Daglig leder', startDate: founded, salaryType: 'MONTHLY_FIXED', monthlySalary: '52000',
      workPercentage: '100', weeklyHours: '37.5', vacationPayRate: '0.1200', pensionRate: '0.0200', isPayrollDefault: true,
    },
  });
  await createPayrollContract(tx, {
    input: {
      clientAccountId, businessPartnerId: sindre, employmentType: 'ordinaertArbeidsforhold', employmentForm: 'fast', workTimeArrangement: 'ikkeSkift',
      remunerationType: 'time', jobTitle: 'Barista', startDate: utc(today.getUTCFullYear() - 2, 7, 15), salaryType: 'HOURLY', hourlyRate: '215.50',
      workPercentage: '60', weeklyHours: '22.5', vacationPayRate: '0.1020', pensionRate: '0.0200', isPayrollDefault: true,
    },
  });
}

// ── Money and dates ──────────────────────────────────────────────────────────────────────────────

// Amounts are whole øre (integers), never floating-point kroner; `nok` writes them as the API's decimals.
const nok = (ore: number): string => {
  if (!Number.isSafeInteger(ore)) throw new Error(`not a whole number of øre: ${ore}`);
  const digits = String(Math.abs(ore)).padStart(3, '0');
  return `${ore < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
};
const kr = (kroner: number) => Math.round(kroner * 100);
/** `ore` × `permille` / 1000, rounded half up: 25 % is 250, 14.1 % is 141 */
const share = (ore: number, permille: number) => Math.round((ore * permille) / 1000);
/** "123.45" (a numeric as text) in øre */
const oreOf = (text: string): number => {
  const negative = text.startsWith('-');
  const [whole, frac = ''] = text.replace('-', '').split('.');
  const ore = Number(whole) * 100 + Number((frac + '00').slice(0, 2));
  return negative ? -ore : ore;
};

/** A date at UTC midnight; day 31 (or any day past the month's end) is the month's last day. */
function utc(year: number, month: number, day: number): Date {
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(day, last)));
}
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);
const monthKey = (date: Date) => `${date.getUTCFullYear()}-${date.getUTCMonth()}`;

/** A small deterministic generator (mulberry32): the same demo for the same dates. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** a whole number in [lo, hi] */
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
  };
}

// ── Posting ──────────────────────────────────────────────────────────────────────────────────────

type Dim = { type: DimensionKind; id: number };
interface Line {
  account: string;
  debit?: number;
  credit?: number;
  tax?: string;
  dims?: Dim[];
  text?: string;
}

/**
 * Posts the demo's entries through createJournalEntryInTx (every rule of the API applies) in the
 * transaction it is given, and keeps what the periodic settlements need: each account's movement
 * (credit − debit, øre) per month, of the entries that accrue (not of the settlements themselves).
 */
class Books {
  private readonly moved = new Map<string, number>();
  constructor(readonly clientAccountId: number, readonly tx: RequestContext) {}

  async post(date: Date, description: string, lines: Line[], options: { documentId?: number; draft?: boolean; accrues?: boolean; openingBalance?: boolean } = {}): Promise<number> {
    const debit = lines.reduce((s, l) => s + (l.debit ?? 0), 0);
    const credit = lines.reduce((s, l) => s + (l.credit ?? 0), 0);
    if (debit !== credit) throw new Error(`demo entry "${description}" does not balance: ${nok(debit)} against ${nok(credit)}`);
    const id = await createJournalEntryInTx(this.tx, {
      input: {
        clientAccountId: this.clientAccountId,
        description,
        isDraft: options.draft ?? false,
        ...(options.openingBalance ? { isOpeningBalance: true } : {}),
        ...(options.documentId ? { relationType: 'document', relationId: options.documentId } : {}),
        lines: lines
          .filter((l) => l.debit || l.credit)
          .map((l) => ({
            postingDate: date,
            accountCode: l.account,
            debit: nok(l.debit ?? 0),
            credit: nok(l.credit ?? 0),
            taxCode: l.tax,
            dimensions: l.dims,
            description: l.text,
          })),
      },
    });
    if (!options.draft && options.accrues !== false) {
      for (const l of lines) {
        const key = `${l.account} ${monthKey(date)}`;
        this.moved.set(key, (this.moved.get(key) ?? 0) + (l.credit ?? 0) - (l.debit ?? 0));
      }
    }
    return id;
  }

  /** What accrued on `account` (credit − debit) in the months of `year`. */
  accrued(account: string, year: number, months: readonly number[]): number {
    return months.reduce((s, m) => s + (this.moved.get(`${account} ${year}-${m}`) ?? 0), 0);
  }

  /** Reconciles the lines (entry id, line number) with each other, on `date`. */
  async reconcile(date: Date, lines: readonly (readonly [entryId: number, lineId: number])[]): Promise<void> {
    const rows = await this.tx.db.journalEntryLine.findMany({
      where: { OR: lines.map(([journalEntryId, lineId]) => ({ journalEntryId, lineId })) },
      select: { id: true },
    });
    await reconcileInTx(this.tx, { clientAccountId: this.clientAccountId, date, entryLines: rows.map((r) => ({ journalEntryLineId: r.id })) });
  }

  /** Sum of credit − debit (øre) over posted lines of accounts from `fromCode` on, dated in [from, to]. */
  async result(from: Date, to: Date, fromCode = '3'): Promise<number> {
    const [row] = await this.tx.db.$queryRawUnsafe<{ r: string }[]>(
      `SELECT COALESCE(SUM(l.credit - l.debit), 0)::text AS r
         FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id JOIN accounts a ON a.id = l.account_id
        WHERE l.client_account_id = $1 AND NOT e.is_draft AND l.posting_date BETWEEN $2::date AND $3::date AND a.code >= $4`,
      this.clientAccountId,
      from,
      to,
      fromCode,
    );
    return oreOf(row.r);
  }

  /** A finalized invoice or bill as its entry books it: gross and net in øre, due `termsDays` after its date. */
  document(data: { businessPartnerId: number; documentType: 'ARINV' | 'APINV'; documentNumber: string; documentDate: Date }, amounts: { gross: number; net: number; termsDays: number }) {
    return this.tx.db.document.create({
      data: {
        clientAccountId: this.clientAccountId,
        ...data,
        dueDate: addDays(data.documentDate, amounts.termsDays),
        grossAmount: nok(amounts.gross),
        netAmount: nok(amounts.net),
        documentStatus: 'FINALIZED',
        isDraft: false,
        createdById: auditUserId(this.tx),
      },
      select: { id: true },
    });
  }
}

// ── Two years of books ───────────────────────────────────────────────────────────────────────────

/** Events of the books, run in date order (then `order`); those after today are left out. */
interface BookEvent {
  date: Date;
  order: number;
  run(books: Books): Promise<unknown>;
}

/** Sales by month, January first: a quiet winter and July, a busy autumn and Christmas. */
const SEASON = [0.85, 0.85, 0.95, 1.0, 1.0, 1.0, 0.8, 0.95, 1.05, 1.05, 1.15, 1.4];
/** Electricity by month (kroner, before VAT). */
const POWER = [7600, 7200, 6100, 4800, 3600, 3000, 2900, 3100, 3900, 5200, 6400, 7400];
/** The opening balance, 1 January of the previous year (øre): what the company brought from the year before. */
const OPENING = {
  machinery: kr(360_000), // 1200 the roaster
  fixtures: kr(90_000), // 1250 the café
  inventory: kr(85_000), // 1400
  receivables: [
    ['lillebror', kr(18_750)],
    ['hotell', kr(31_250)],
  ] as const,
  bank: kr(412_000), // 1920
  shareCapital: kr(30_000), // 2000
  loan: kr(300_000), // 2220
  payables: [['bonne', kr(42_500)]] as const,
  taxPayable: kr(52_000), // 2500, paid in February and April
  withheld: kr(38_400), // 2600, November–December, paid 15 January
  employersContribution: kr(26_900), // 2770, November–December, paid 15 January
  vat: kr(36_800), // 2740, November–December, paid 10 February
  holidayPay: kr(118_000), // 2940, paid in June
  holidayContribution: kr(16_638), // 2785, 14.1 % of it
};

/**
 * The previous calendar year in full and this year up to `today`, as a small roastery and café books
 * them: the opening balance; each month customer invoices (15 % coffee on 3030, 25 % equipment,
 * service and courses on 3000, with their documents) and their payments, weekly card settlements of
 * the café, supplier bills (green coffee and café goods at 15 %, packaging, rent, electricity and the
 * accountant at 25 %) and their payments, wages with withholding tax, employer's contribution and
 * holiday pay, the loan, phone and bank charges; bi-monthly VAT settlements and tax payments, holiday
 * pay in June, depreciation and tax at year end. Every payment is reconciled against its invoice
 * line; what is due after today (and one invoice the hotel never paid) stays open.
 */
async function seedYears(books: Books, ids: DemoIds, today: Date) {
  const thisYear = today.getUTCFullYear();
  const prev = thisYear - 1;
  const rnd = random(prev * 7919);
  const { customers: C, suppliers: S, departments: D, projects: P, items: I } = ids;
  const bp = (id: number): Dim => ({ type: 'businesspartner', id });
  const dept = (id: number): Dim => ({ type: 'department', id });
  const events: BookEvent[] = [];
  const at = (date: Date, order: number, run: BookEvent['run']) => events.push({ date, order, run });
  const partnerName = new Map<number, string>([
    [C.lillebror, 'Kafé Lillebror'], [C.fjell, 'Fjellkaffe'], [C.bakeri, 'Bakeriet på Hjørnet'], [C.kontor, 'Kontorkaffe Oslo'], [C.hotell, 'Hotell Fjordgløtt'],
    [S.bonne, 'Bønnegrossisten'], [S.servering, 'Grossisten Servering'], [S.emballasje, 'Emballasje Norge'], [S.gardeier, 'Gårdeier Eiendom'],
    [S.kraft, 'Kraftselskapet'], [S.fjordbyra, 'Demo Fjordbyrå'], [S.maskiner, 'Kaffemaskiner'],
  ]);

  // ── customer invoices: documents numbered by date around 10021–10025, which seedBank gives last month's open ones
  type Revenue = { account: '3000' | '3030'; net: number; dims: Dim[]; text: string };
  const invoices: { date: Date; customer: number; lines: Revenue[]; number?: string; entryId?: number; total: number }[] = [];
  const invoice = (date: Date, customer: number, lines: Revenue[], paidAfterDays: number | null) => {
    const vat25 = share(lines.filter((l) => l.account === '3000').reduce((s, l) => s + l.net, 0), 250);
    const vat15 = share(lines.filter((l) => l.account === '3030').reduce((s, l) => s + l.net, 0), 150);
    const net = lines.reduce((s, l) => s + l.net, 0);
    const inv = { date, customer, lines, total: net + vat25 + vat15 } as (typeof invoices)[number];
    invoices.push(inv);
    at(date, 20, async (b) => {
      const { id: documentId } = await b.document(
        { businessPartnerId: customer, documentType: 'ARINV', documentNumber: inv.number!, documentDate: date },
        { gross: inv.total, net, termsDays: 14 },
      );
      inv.entryId = await b.post(date, `Faktura ${inv.number}, ${partnerName.get(customer)}`, [
        { account: '1500', debit: inv.total, dims: [bp(customer)] },
        ...lines.map((l) => ({ account: l.account, credit: l.net, tax: l.account === '3000' ? '3' : '31', dims: l.dims, text: l.text })),
        { account: '2700', credit: vat25 },
        { account: '2701', credit: vat15 },
      ], { documentId });
    });
    if (paidAfterDays !== null) {
      const paid = addDays(date, paidAfterDays);
      at(paid, 40, async (b) => {
        const payment = await b.post(paid, `Innbetaling faktura ${inv.number}, ${partnerName.get(customer)}`, [
          { account: '1920', debit: inv.total },
          { account: '1500', credit: inv.total, dims: [bp(customer)] },
        ]);
        await b.reconcile(paid, [[inv.entryId!, 1], [payment, 2]]);
      });
    }
  };

  // ── supplier bills, paid in payment runs on the 10th and the 25th once due
  type Cost = { account: string; net: number; vat: 25 | 15 | 0; dims?: Dim[]; text?: string };
  /** posted bills not yet paid: the bill's 2400 line and when it is due */
  const payables: { entryId: number; lineId: number; supplier: number; total: number; due: Date; number: string }[] = [];
  let billNo = 0;
  const bill = (date: Date, supplier: number, description: string, costs: Cost[], termsDays: number) => {
    const vat25 = share(costs.filter((c) => c.vat === 25).reduce((s, c) => s + c.net, 0), 250);
    const vat15 = share(costs.filter((c) => c.vat === 15).reduce((s, c) => s + c.net, 0), 150);
    const net = costs.reduce((s, c) => s + c.net, 0);
    const total = net + vat25 + vat15;
    const number = `${date.getUTCFullYear()}-${String(++billNo).padStart(4, '0')}`;
    at(date, 10, async (b) => {
      const { id: documentId } = await b.document(
        { businessPartnerId: supplier, documentType: 'APINV', documentNumber: number, documentDate: date },
        { gross: total, net, termsDays },
      );
      const entryId = await b.post(date, `${description}, ${partnerName.get(supplier)} (faktura ${number})`, [
        ...costs.map((c) => ({ account: c.account, debit: c.net, tax: c.vat === 25 ? '1' : c.vat === 15 ? '11' : undefined, dims: c.dims, text: c.text })),
        { account: '2710', debit: vat25 },
        { account: '2711', debit: vat15 },
        { account: '2400', credit: total, dims: [bp(supplier)] },
      ], { documentId });
      // the 2400 line is the bill's last: costs, 2710, 2711 (lines of 0 are left out)
      payables.push({ entryId, lineId: costs.length + (vat25 ? 1 : 0) + (vat15 ? 1 : 0) + 1, supplier, total, due: addDays(date, termsDays), number });
    });
  };
  /** A payment run: every bill due by `date` in one bank payment, reconciled with it in one reconciliation. */
  const paymentRun = (date: Date) =>
    at(date, 45, async (b) => {
      const paying = payables.filter((p) => p.due <= date);
      if (!paying.length) return;
      payables.splice(0, payables.length, ...payables.filter((p) => p.due > date));
      const total = paying.reduce((s, p) => s + p.total, 0);
      const run = await b.post(date, `Betalingsoppdrag ${paying.length} leverandørfakturaer`, [
        ...paying.map((p) => ({ account: '2400', debit: p.total, dims: [bp(p.supplier)], text: `Faktura ${p.number}, ${partnerName.get(p.supplier)}` })),
        { account: '1920', credit: total },
      ]);
      await b.reconcile(date, paying.flatMap((p, i) => [[p.entryId, p.lineId], [run, i + 1]] as const));
    });

  // ── the opening balance and what it leaves to settle
  const openingReceivables = OPENING.receivables.map(([c, amount]) => ({ customer: C[c], amount }));
  const openingPayables = OPENING.payables.map(([s, amount]) => ({ supplier: S[s], amount }));
  let openingEntry = 0;
  at(utc(prev, 0, 1), 0, async (b) => {
    const assets = OPENING.machinery + OPENING.fixtures + OPENING.inventory + OPENING.bank + openingReceivables.reduce((s, r) => s + r.amount, 0);
    const liabilities = OPENING.loan + openingPayables.reduce((s, p) => s + p.amount, 0) + OPENING.taxPayable + OPENING.withheld +
      OPENING.employersContribution + OPENING.vat + OPENING.holidayPay + OPENING.holidayContribution;
    openingEntry = await b.post(utc(prev, 0, 1), 'Inngående balanse', [
      ...openingReceivables.map((r) => ({ account: '1500', debit: r.amount, dims: [bp(r.customer)], text: 'Åpen kundefaktura fra i fjor' })),
      ...openingPayables.map((p) => ({ account: '2400', credit: p.amount, dims: [bp(p.supplier)], text: 'Åpen leverandørfaktura fra i fjor' })),
      { account: '1200', debit: OPENING.machinery, text: 'Kaffebrenner' },
      { account: '1250', debit: OPENING.fixtures, text: 'Kaféinventar' },
      { account: '1400', debit: OPENING.inventory },
      { account: '1920', debit: OPENING.bank },
      { account: '2000', credit: OPENING.shareCapital },
      { account: '2050', credit: assets - liabilities - OPENING.shareCapital },
      { account: '2220', credit: OPENING.loan },
      { account: '2500', credit: OPENING.taxPayable },
      { account: '2600', credit: OPENING.withheld },
      { account: '2770', credit: OPENING.employersContribution },
      { account: '2740', credit: OPENING.vat },
      { account: '2940', credit: OPENING.holidayPay },
      { account: '2785', credit: OPENING.holidayContribution },
    ], { accrues: false, openingBalance: true }); // the year's incoming balance, not its movement (README "The ledger")
  });
  openingReceivables.forEach((r, i) => {
    const paid = utc(prev, 0, 12 + i * 8);
    at(paid, 40, async (b) => {
      const payment = await b.post(paid, `Innbetaling fjorårets faktura, ${partnerName.get(r.customer)}`, [
        { account: '1920', debit: r.amount },
        { account: '1500', credit: r.amount, dims: [bp(r.customer)] },
      ]);
      await b.reconcile(paid, [[openingEntry, i + 1], [payment, 2]]);
    });
  });
  // last year's bills are due in January, paid by the first payment run
  at(utc(prev, 0, 1), 1, async () => {
    openingPayables.forEach((p, i) =>
      payables.push({ entryId: openingEntry, lineId: openingReceivables.length + i + 1, supplier: p.supplier, total: p.amount, due: utc(prev, 0, 8), number: `${prev - 1}-${i + 1}` }),
    );
  });

  // ── taxes: withholding tax and employer's contribution every two months (15th of the month after the term)
  const payPayroll = (date: Date, withheld: () => number, contribution: () => number, term: string) =>
    at(date, 50, async (b) => {
      const [w, c] = [withheld(), contribution()];
      await b.post(date, `Forskuddstrekk og arbeidsgiveravgift ${term}`, [
        { account: '2600', debit: w },
        { account: '2770', debit: c },
        { account: '1920', credit: w + c },
      ], { accrues: false });
    });
  payPayroll(utc(prev, 0, 15), () => OPENING.withheld, () => OPENING.employersContribution, `termin 6 ${prev - 1}`);
  // VAT: the term's output and input VAT moved to 2740 at its end, paid on the due date
  const VAT_DUE = [[3, 10], [5, 10], [7, 31], [9, 10], [11, 10], [13, 10]] as const; // [month (13 = February next year), day]
  const payVat = (date: Date, amount: () => number, term: string) =>
    at(date, 50, async (b) => {
      const a = amount();
      await b.post(date, `Betaling merverdiavgift ${term}`, a >= 0 ? [{ account: '2740', debit: a }, { account: '1920', credit: a }] : [{ account: '1920', debit: -a }, { account: '2740', credit: -a }], { accrues: false });
    });
  payVat(utc(prev, 1, 10), () => OPENING.vat, `termin 6 ${prev - 1}`);
  // income tax of a year: half on 15 February, half on 15 April of the next
  const payTax = (year: number, amount: () => number) => {
    for (const [month, part] of [[1, 0], [3, 1]] as const) {
      const date = utc(year, month, 15);
      at(date, 50, async (b) => {
        const total = amount();
        const a = part === 0 ? Math.round(total / 2) : total - Math.round(total / 2);
        if (a > 0) await b.post(date, `Betalbar skatt ${year - 1}, ${part + 1}. termin`, [{ account: '2500', debit: a }, { account: '1920', credit: a }], { accrues: false });
      });
    }
  };
  payTax(prev, () => OPENING.taxPayable);
  let taxOfPrev = 0;
  payTax(thisYear, () => taxOfPrev);

  // holiday pay: what a year accrued, paid in June of the next
  const holiday = new Map<number, { pay: number; contribution: number }>([[prev - 1, { pay: OPENING.holidayPay, contribution: OPENING.holidayContribution }]]);
  let loan = OPENING.loan;
  const lastMonth = utc(thisYear, today.getUTCMonth() - 1, 1);

  for (let year = prev; year <= thisYear; year++) {
    const growth = year === thisYear ? 1.06 : 1;
    for (let month = 0; month < 12; month++) {
      if (utc(year, month, 1) > today) break;
      const f = SEASON[month] * growth;
      const day = (d: number) => utc(year, month, d);
      const isLastMonth = day(1).getTime() === lastMonth.getTime();

      // customer invoices: coffee by the kilo, now and then grinders, a yearly service contract, autumn courses
      const count = Math.max(3, Math.round(4 * f));
      const buyers = [C.lillebror, C.lillebror, C.fjell, C.bakeri, C.kontor, C.kontor, C.hotell];
      const paysAfter = new Map([[C.lillebror, [12, 20]], [C.fjell, [9, 15]], [C.bakeri, [18, 35]], [C.kontor, [12, 18]], [C.hotell, [24, 40]]]);
      for (let i = 0; i < count; i++) {
        let customer = rnd.pick(buyers);
        const kilos = rnd.int(30, 110);
        const lines: Revenue[] = [{ account: '3030', net: kilos * 27_950, dims: [dept(D.engros), { type: 'item', id: I.bulk }], text: `Kaffebønner, ${kilos} kg` }];
        if (rnd.next() < 0.25) {
          const n = rnd.int(1, 2);
          lines.push({ account: '3000', net: n * 89_900, dims: [dept(D.engros), { type: 'item', id: I.grinder }], text: `Kaffekvern, ${n} stk` });
        }
        if (i === 0 && month % 3 === 1) lines.push({ account: '3000', net: 499_000, dims: [dept(D.engros), { type: 'item', id: I.service }], text: 'Serviceavtale kaffemaskin, 12 mnd' });
        // the hotel never paid its first invoice of four months ago (sent to collection): an overdue open item
        const unpaid = i === 0 && utc(year, month + 4, 1).getTime() === utc(thisYear, today.getUTCMonth(), 1).getTime();
        if (unpaid) customer = C.hotell;
        const [lo, hi] = paysAfter.get(customer)!;
        const date = day(2 + Math.floor((i * 26) / count) + rnd.int(0, 2));
        invoice(date, customer, lines, unpaid ? null : rnd.int(lo, hi));
      }
      if (month >= 8 && month <= 10) {
        const hours = rnd.int(12, 16);
        invoice(day(rnd.int(18, 24)), rnd.pick([C.lillebror, C.hotell, C.fjell]), [
          { account: '3000', net: hours * 65_000, dims: [dept(D.kurs), { type: 'project', id: P.kurs }, { type: 'item', id: I.course }], text: `Baristakurs, ${hours} timer` },
        ], rnd.int(14, 21));
      }

      // the café's card and Vipps settlements, twice a month: served (25 %) and take-away coffee and beans (15 %)
      for (const d of [15, 31]) {
        const gross = Math.round(kr(112_000) * f * (0.9 + rnd.next() * 0.2));
        const net25 = Math.round((gross * 0.6) / 1.25);
        const vat25 = share(net25, 250);
        const net15 = Math.round((gross - net25 - vat25) / 1.15);
        const vat15 = gross - net25 - vat25 - net15;
        const fee = share(gross, 11);
        at(day(d), 30, (b) => b.post(day(d), `Kortoppgjør kafé ${d === 15 ? '1.–15.' : `16.–${day(31).getUTCDate()}.`} ${MONTHS[month]}`, [
          { account: '1920', debit: gross - fee },
          { account: '7770', debit: fee, dims: [dept(D.butikk)], text: 'Kortgebyr' },
          { account: '3000', credit: net25, tax: '3', dims: [dept(D.butikk)], text: 'Servering' },
          { account: '2700', credit: vat25 },
          { account: '3030', credit: net15, tax: '31', dims: [dept(D.butikk)], text: 'Take-away og kaffebønner' },
          { account: '2701', credit: vat15 },
        ]));
      }

      // supplier bills, and the payment runs that pay them
      const rent = year === thisYear ? 29_000 : 28_000;
      bill(day(1), S.gardeier, 'Husleie', [{ account: '6300', net: kr(rent), vat: 25, dims: [dept(D.butikk)] }], 4);
      bill(day(6), S.bonne, 'Råkaffe', [{ account: '4000', net: Math.round(kr(rnd.int(34_000, 46_000)) * f), vat: 15, dims: [dept(D.brenneri)] }], 30);
      bill(day(9), S.servering, 'Melk og bakervarer', [{ account: '4300', net: Math.round(kr(rnd.int(11_000, 14_000)) * f), vat: 15, dims: [dept(D.butikk)] }], 14);
      if (month % 2 === 0) bill(day(16), S.emballasje, 'Emballasje', [{ account: '4000', net: kr(rnd.int(13_000, 17_000)), vat: 25, dims: [dept(D.brenneri)] }], 30);
      bill(day(12), S.kraft, 'Strøm', [{ account: '6340', net: kr(POWER[month] + rnd.int(-300, 300)), vat: 25, dims: [dept(D.brenneri)] }], 20);
      bill(day(3), S.fjordbyra, 'Regnskapstjenester', [
        { account: '6705', net: kr(4_800), vat: 25, dims: [dept(D.admin)], text: 'Regnskap og lønn' },
        { account: '6900', net: kr(559.2), vat: 25, dims: [dept(D.admin)], text: 'Telefon, viderefakturert' },
      ], 14);
      if (year === thisYear && month === 2) {
        bill(day(10), S.maskiner, 'Espressomaskin til ny butikk', [{ account: '1250', net: kr(64_000), vat: 25, dims: [{ type: 'project', id: P.bergen }] }], 30);
      }
      paymentRun(day(10));
      paymentRun(day(25));

      // wages on the 25th (a summer help in July), holiday pay and the contributions on both
      at(day(25), 60, async (b) => {
        const raise = year === thisYear ? 1.04 : 1;
        const shop = kr(Math.round(62_000 * raise)) + (month === 6 ? kr(18_000) : 0);
        const roastery = kr(Math.round(38_000 * raise));
        const gross = shop + roastery;
        const withheld = share(gross, 290);
        const contribution = share(gross, 141);
        const holidayPay = share(gross, 102);
        const holidayContribution = share(holidayPay, 141);
        const h = holiday.get(year) ?? { pay: 0, contribution: 0 };
        holiday.set(year, { pay: h.pay + holidayPay, contribution: h.contribution + holidayContribution });
        await b.post(day(25), `Lønn ${MONTHS[month]} ${year}`, [
          { account: '5000', debit: shop, dims: [dept(D.butikk)] },
          { account: '5000', debit: roastery, dims: [dept(D.brenneri)] },
          { account: '2600', credit: withheld },
          { account: '1920', credit: gross - withheld, text: 'Utbetalt netto lønn' },
          { account: '5400', debit: contribution, dims: [dept(D.admin)] },
          { account: '2770', credit: contribution },
          { account: '5090', debit: holidayPay, dims: [dept(D.admin)] },
          { account: '2940', credit: holidayPay },
          { account: '5405', debit: holidayContribution, dims: [dept(D.admin)] },
          { account: '2785', credit: holidayContribution },
        ]);
      });
      if (month === 5) {
        at(day(20), 55, async (b) => {
          const h = holiday.get(year - 1)!;
          const withheld = share(h.pay, 290);
          await b.post(day(20), `Feriepenger opptjent ${year - 1}`, [
            { account: '2940', debit: h.pay },
            { account: '2600', credit: withheld },
            { account: '1920', credit: h.pay - withheld },
            { account: '2785', debit: h.contribution },
            { account: '2770', credit: h.contribution },
          ]);
        });
      }

      // the loan and bank charges each quarter, insurance and marketing
      if (month % 3 === 2) at(day(20), 50, async (b) => {
        const interest = Math.round((loan * 65) / 4_000); // 6.5 % a year
        const installment = kr(15_000);
        loan -= installment;
        await b.post(day(20), 'Terminbeløp lån', [
          { account: '2220', debit: installment },
          { account: '8150', debit: interest },
          { account: '1920', credit: installment + interest },
        ]);
      });
      if (isLastMonth) {
        // booked with the wrong amount, cancelled (a reversal posted today) and booked again
        at(day(27), 49, async (b) => {
          const wrong = await b.post(day(27), 'Kontorrekvisita (feilført)', [{ account: '6800', debit: kr(899) }, { account: '1920', credit: kr(899) }], { accrues: false });
          await cancelJournalEntry(b.tx, { id: wrong, cancelled: 'Y', cancellationReason: 'Feil beløp: kvitteringen var 699 kr' });
        });
        at(day(27), 50, (b) => b.post(day(27), 'Kontorrekvisita', [
          { account: '6800', debit: 55_920, tax: '1', dims: [dept(D.admin)] },
          { account: '2710', debit: 13_980 },
          { account: '1920', credit: 69_900 },
        ]));
      }
      if (month % 3 === 2) at(day(31), 50, (b) => b.post(day(31), 'Bankgebyrer', [{ account: '7770', debit: 86_700, dims: [dept(D.admin)] }, { account: '1920', credit: 86_700 }]));
      if (month === 0) {
        at(day(15), 50, (b) => b.post(day(15), `Forsikring ${year}`, [{ account: '7500', debit: kr(14_400), dims: [dept(D.admin)] }, { account: '1920', credit: kr(14_400) }]));
      }
      if ([2, 4, 8, 10].includes(month)) {
        const bergen = year === thisYear && month >= 4;
        at(day(18), 50, (b) => b.post(day(18), bergen ? 'Annonser, åpning i Bergen' : 'Annonser', [
          { account: '7320', debit: kr(6_000), tax: '1', dims: bergen ? [{ type: 'project', id: P.bergen }] : [dept(D.butikk)] },
          { account: '2710', debit: kr(1_500) },
          { account: '1920', credit: kr(7_500) },
        ]));
      }

      // the end of a two-month term: VAT to 2740, paid later; the term's payroll taxes paid on the 15th after
      if (month % 2 === 1) {
        const term = `termin ${(month + 1) / 2} ${year}`;
        const months = [month - 1, month];
        let settled = 0;
        at(day(31), 90, async (b) => {
          const [out25, out15, in25, in15] = ['2700', '2701', '2710', '2711'].map((a) => b.accrued(a, year, months));
          settled = out25 + out15 + in25 + in15;
          await b.post(day(31), `Mva-oppgjør ${term}`, [
            { account: '2700', debit: out25 },
            { account: '2701', debit: out15 },
            { account: '2710', credit: -in25 },
            { account: '2711', credit: -in15 },
            settled >= 0 ? { account: '2740', credit: settled } : { account: '2740', debit: -settled },
          ], { accrues: false });
        });
        const [dueMonth, dueDay] = VAT_DUE[(month - 1) / 2];
        payVat(utc(year, dueMonth, dueDay), () => settled, term);
        payPayroll(utc(year, month + 1, 15), () => books.accrued('2600', year, months), () => books.accrued('2770', year, months), term);
      }

      // the year's end: depreciation and the tax on the result (the transfer to equity comes with closeYear)
      if (month === 11) {
        at(day(31), 95, (b) => b.post(day(31), `Avskrivninger ${year}`, [
          { account: '6000', debit: kr(60_000), dims: [dept(D.brenneri)], text: 'Kaffebrenner, 6 år' },
          { account: '1200', credit: kr(60_000) },
          { account: '6000', debit: kr(18_000), dims: [dept(D.butikk)], text: 'Kaféinventar, 5 år' },
          { account: '1250', credit: kr(18_000) },
        ]));
        at(day(31), 97, async (b) => {
          const result = await b.result(utc(year, 0, 1), day(31));
          taxOfPrev = result > 0 ? Math.round((result * 22) / 10_000) * 100 : 0; // 22 %, whole kroner
          if (taxOfPrev) await b.post(day(31), `Skattekostnad ${year}`, [{ account: '8300', debit: taxOfPrev }, { account: '2500', credit: taxOfPrev }]);
        });
      }
    }
  }
  // next month's rent, entered early as a draft
  const next = utc(thisYear, today.getUTCMonth() + 1, 1);
  at(today, 99, (b) => b.post(next, 'Husleie neste måned (kladd)', [
    { account: '6300', debit: kr(29_000), tax: '1', dims: [dept(D.butikk)] },
    { account: '2710', debit: kr(7_250) },
    { account: '2400', credit: kr(36_250), dims: [bp(S.gardeier)] },
  ], { draft: true }));

  // invoice numbers by date: those before last month's open invoices (seedBank's 10021–10025, dated
  // from the 12th) end at 10020, the later ones follow 10025
  const sorted = [...invoices].sort((a, b) => a.date.getTime() - b.date.getTime());
  const cut = utc(lastMonth.getUTCFullYear(), lastMonth.getUTCMonth(), 12);
  const before = sorted.filter((i) => i.date < cut);
  before.forEach((inv, i) => (inv.number = String(10021 - before.length + i)));
  sorted.filter((i) => i.date >= cut).forEach((inv, i) => (inv.number = String(10026 + i)));

  // run them: in date order, nothing after today
  const due = events.filter((e) => e.date <= today).sort((a, b) => a.date.getTime() - b.date.getTime() || a.order - b.order);
  for (const e of due) await e.run(books);
}

const MONTHS = ['januar', 'februar', 'mars', 'april', 'mai', 'juni', 'juli', 'august', 'september', 'oktober', 'november', 'desember'];

/**
 * The year's closing: its result (classes 3–8) transferred to other equity, 8960 "Overføring til/fra
 * annen egenkapital" against 2050 (a loss would go the other way), so the year's classes 3–8 net to zero.
 */
async function closeYear(books: Books, year: number) {
  const end = utc(year, 11, 31);
  const result = await books.result(utc(year, 0, 1), end);
  if (result === 0) return;
  await books.post(end, `Årsoppgjør ${year}: overføring av årsresultat til annen egenkapital`, result > 0
    ? [{ account: '8960', debit: result }, { account: '2050', credit: result }]
    : [{ account: '2050', debit: -result }, { account: '8960', credit: -result }], { accrues: false });
}

// ── The matcher's month ──────────────────────────────────────────────────────────────────────────

/**
 * Last month's customer invoices (documents 10021–10025 on 1500 with the partner) and the bank
 * transactions that arrived for them, not yet booked, so the automatic matcher has something to
 * propose: a payment with the invoice's KID, one by exact amount and the payer's name, one paying two
 * invoices at once, a partial payment with a KID, and one that belongs to no invoice.
 */
async function seedBank(tx: RequestContext, clientAccountId: number, bankAccountId: number, customers: DemoIds['customers'], today: Date) {
  const { lillebror, fjell, bakeri } = customers;
  await createBankAccount(tx, { input: { clientAccountId, businessPartnerId: bakeri, accountNumber: '9710.05.12347' } });
  const day = (d: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, d));
  // in January last month is in the year closed and locked at the end: the payments arrive in this one
  const arrives = (d: number) => (day(d).getUTCFullYear() < today.getUTCFullYear() ? utc(today.getUTCFullYear(), 0, d - 22) : day(d));
  const invoice = async (partner: number, documentNumber: string, d: number, net: string, vat: string, total: string) => {
    const document = await tx.db.document.create({
      data: {
        clientAccountId, businessPartnerId: partner, documentType: 'ARINV', documentNumber, documentDate: day(d), dueDate: addDays(day(d), 14),
        grossAmount: total, netAmount: net, documentStatus: 'FINALIZED', isDraft: false, createdById: auditUserId(tx),
      },
    });
    await createJournalEntryInTx(tx, {
      input: {
        clientAccountId,
        description: `Faktura ${documentNumber}`,
        relationType: 'document',
        relationId: document.id,
        lines: [
          { postingDate: day(d), accountCode: '1500', debit: total, credit: '0', dimensions: [{ type: 'businesspartner', id: partner }] },
          { postingDate: day(d), accountCode: '3000', debit: '0', credit: net, taxCode: '3' },
          { postingDate: day(d), accountCode: '2700', debit: '0', credit: vat },
        ],
      },
    });
  };
  await invoice(lillebror, '10021', 12, '2990.00', '747.50', '3737.50');
  await invoice(fjell, '10022', 12, '1796.00', '449.00', '2245.00');
  await invoice(bakeri, '10023', 13, '1192.00', '298.00', '1490.00');
  await invoice(bakeri, '10024', 14, '2236.40', '559.10', '2795.50');
  await invoice(lillebror, '10025', 15, '7192.00', '1798.00', '8990.00');

  const payment = (d: number, amount: string, payor: { name: string; account?: string }, detail: { kid?: string; text?: string }) =>
    tx.db.bankTransaction.create({
      data: {
        clientAccountId,
        bankAccountId,
        // incoming: the company's account is the payee (spec 001 "Create body")
        payeeBankAccountId: bankAccountId,
        bookingDate: arrives(d),
        valueDate: arrives(d),
        amount,
        currencyCode: 'NOK',
        payorName: payor.name,
        memo: detail.text,
        details: {
          create: [{ transactionType: 'Innbetaling', structuredReference: detail.kid, amount, currencyCode: 'NOK', bookingDate: arrives(d), senderName: payor.name, senderAccount: payor.account, description: detail.text }],
        },
      },
    });
  // KIDs as the invoices print them: customer number 001001, invoice number, MOD10 check digit
  const kid = (body: string) => body + mod10CheckDigit(body);
  await payment(24, '3737.50', { name: 'KAFE LILLEBROR AS', account: '60110512344' }, { kid: kid('00100110021') });
  await payment(25, '2245.00', { name: 'FJELLKAFFE ASA' }, { text: 'Betaling' });
  await payment(26, '4285.50', { name: 'BAKERIET PA HJORNET AS', account: '97100512347' }, { text: 'Faktura 10023 og 10024' });
  await payment(27, '4000.00', { name: 'KAFE LILLEBROR AS', account: '60110512344' }, { kid: kid('00100110025') });
  await payment(27, '349.00', { name: 'Vipps AS' }, { text: 'Vipps-oppgjør' });
}
