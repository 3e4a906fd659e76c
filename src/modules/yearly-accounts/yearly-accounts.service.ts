import { lockForTransaction } from '../../shared/advisory-locks.ts';
import type { Prisma as PrismaNS, YearlyAccountSubmission } from '../../generated/prisma/client.ts';
import { requireOrganizationNumber } from '../client-accounts/client-accounts.service.ts';
import { cancelFiling, createFiling, getFiling, type Filing } from '../../integrations/govportal/filings.ts';
import { yearlyAccountForms, type YearlyAccountForms } from '../../integrations/govportal/yearly-accounts.ts';
import { UpstreamError } from '../../integrations/connector.ts';
import { integrationsOf, upstream, upstreamFailed } from '../../integrations/integrations.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow, toOrderBy } from '../../shared/pagination.ts';
import { Decimal, formatDate } from '../../shared/scalars.ts';
import { listedAccounts, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { createJournalEntry } from '../journal-entries/journal-entries.service.ts';
import { balanceSheet, trialBalance } from '../reports/reports.service.ts';
import { movementOf } from '../reports/opening-balances.ts';
import { renderYearlyAccountPdf, yearlyAccountFileName } from './yearly-accounts.pdf.ts';
import {
  allocationDescription,
  balanceSheetLines,
  bookedAllocations,
  CAN_CANCEL,
  CAN_SUBMIT,
  DEFAULT_YEARLY_ACCOUNT_ORDER,
  figure,
  incomeStatementLines,
  nok,
  norwegianDate,
  OPEN_STATUSES,
  rangeSum,
  sectionSum,
  YEARLY_ACCOUNT_ORDER,
  YEARLY_ACCOUNT_PAGE_LIMITS,
  yearlyAccountRules as rules,
  type Balance,
  type FigureLine,
  type Note,
  type YearlyAccountStatus,
} from './yearly-accounts.rules.ts';

type Query = { include?: PrismaNS.YearlyAccountSubmissionInclude; select?: PrismaNS.YearlyAccountSubmissionSelect };

/**
 * Yearly accounts (spec 002 "Yearly account submission", "Yearly accounts"): the small-enterprise
 * income statement and balance sheet of a year with the previous year's figures, the notes generated
 * from the ledger, and the submission through the government portal (a `yearly-accounts` filing
 * instance). The portal is always called before anything is written, and what it answered is
 * written in one transaction: a failed call leaves nothing behind.
 */

/**
 * The portal failing (error status, no answer in INTEGRATION_TIMEOUT_MS, a malformed answer): spec 002
 * names only 400 and 403 for yearly accounts, so a failure is its generic 500 with a message saying
 * which portal call failed (the portal refusing our credentials: 403).
 */
const PORTAL_FAILED = 500;

const DAY = 86_400_000;
const dayBefore = (d: Date) => new Date(d.getTime() - DAY);
const yearBefore = (d: Date) => new Date(Date.UTC(d.getUTCFullYear() - 1, d.getUTCMonth(), d.getUTCDate()));

export interface Check {
  key: string;
  passed: boolean;
  severity: 'error' | 'warning';
  message: string;
}

/** Everything a yearly account shows, computed from the posted ledger. */
export interface YearlyFigures {
  clientAccountId: number;
  reportingYear: number;
  fromDate: Date;
  toDate: Date;
  incomeStatement: FigureLine[];
  balanceSheet: FigureLine[];
  checks: Check[];
  notes: Note[];
  /** 1370-1379 at the period's end (receivables from shareholders) */
  loansToShareholders: Decimal;
}

interface Ledger {
  /** result accounts: the period's movement (debit − credit) */
  result: Balance[];
  previousResult: Balance[];
  /** balance-sheet rows at the period's end and at the day before it starts (the unclosed result in 2050) */
  balance: Balance[];
  opening: Balance[];
  /** balance accounts over the period: incoming, debit, credit, outgoing */
  movements: { code: string; name: string; incoming: Decimal; debit: Decimal; credit: Decimal; outgoing: Decimal }[];
  /** fixed-asset accounts (10–12): their debits and credits in the period's depreciation entries (those with a line on 60) */
  depreciation: Map<string, { debit: Decimal; credit: Decimal }>;
}

/**
 * The period's lines on the fixed-asset accounts (10–12) of entries that also post on 60
 * (avskrivning): depreciation, apart from the additions and disposals. Posted entries, cancelled
 * ones with their reversals (they net out), as the trial balance counts them; an opening balance
 * dated from_date is incoming, never movement.
 */
async function depreciationLines(ctx: RequestContext, clientAccountId: number, fromDate: Date, toDate: Date): Promise<Map<string, { debit: Decimal; credit: Decimal }>> {
  const rows = await ctx.db.$queryRaw<{ code: string; debit: string; credit: string }[]>`
    SELECT a.code, SUM(l.debit)::text AS debit, SUM(l.credit)::text AS credit
    FROM journal_entry_lines l JOIN accounts a ON a.id = l.account_id
    WHERE l.client_account_id = ${clientAccountId}
      AND a.code ~ '^1[0-2]'
      AND ${movementOf(clientAccountId, formatDate(fromDate), formatDate(toDate))}
      AND l.journal_entry_id NOT IN (SELECT d.id FROM journal_entries d WHERE d.client_account_id = ${clientAccountId} AND d.is_draft)
      AND l.journal_entry_id IN (
        SELECT x.journal_entry_id FROM journal_entry_lines x JOIN accounts xa ON xa.id = x.account_id
        WHERE x.client_account_id = ${clientAccountId} AND xa.code LIKE '60%')
    GROUP BY a.code`;
  return new Map(rows.map((r) => [r.code, { debit: new Decimal(r.debit), credit: new Decimal(r.credit) }]));
}

/**
 * The year's figures through the reports, so an opening balance dated from_date (the first year's
 * books brought in) counts as they count it (reports/opening-balances.ts): in the balance on the day
 * before from_date (the previous year's balance sheet, the equity at the year's beginning) and in
 * the fixed assets' incoming book value, never as the year's additions or its movement.
 */
async function readLedger(ctx: RequestContext, clientAccountId: number, fromDate: Date, toDate: Date): Promise<Ledger> {
  const [current, previous, end, start, depreciation] = await Promise.all([
    // keepBalances: a fixed asset without movement in the year still has its book value in the note
    trialBalance(ctx, { clientAccountId, dateFrom: fromDate, dateTo: toDate }, { keepBalances: true }),
    trialBalance(ctx, { clientAccountId, dateFrom: yearBefore(fromDate), dateTo: yearBefore(toDate) }, { keepBalances: true }),
    balanceSheet(ctx, { clientAccountId, reportDate: toDate }),
    balanceSheet(ctx, { clientAccountId, reportDate: dayBefore(fromDate) }),
    depreciationLines(ctx, clientAccountId, fromDate, toDate),
  ]);
  const isResult = (code: string) => !/^[12]/.test(code);
  return {
    result: current.filter((r) => isResult(r.accountCode)).map((r) => ({ code: r.accountCode, amount: r.debit.minus(r.credit) })),
    previousResult: previous.filter((r) => isResult(r.accountCode)).map((r) => ({ code: r.accountCode, amount: r.debit.minus(r.credit) })),
    balance: end.map((r) => ({ code: r.accountCode, amount: r.balance })),
    opening: start.map((r) => ({ code: r.accountCode, amount: r.balance })),
    movements: current
      .filter((r) => !isResult(r.accountCode))
      .map((r) => ({ code: r.accountCode, name: r.accountName, incoming: r.incomingBalance, debit: r.debit, credit: r.credit, outgoing: r.outgoingBalance })),
    depreciation,
  };
}

const ACCOUNTING_PRINCIPLES =
  'Årsregnskapet er satt opp i samsvar med regnskapsloven og god regnskapsskikk for små foretak. ' +
  'Driftsinntekter inntektsføres når varen eller tjenesten er levert. Kostnader sammenstilles med og kostnadsføres i samme periode som tilhørende inntekt. ' +
  'Eiendeler bestemt til varig eie eller bruk klassifiseres som anleggsmidler; andre eiendeler er omløpsmidler. Fordringer som skal tilbakebetales innen ett år, er omløpsmidler. ' +
  'Tilsvarende kriterier er lagt til grunn for klassifisering av kortsiktig og langsiktig gjeld. ' +
  'Varige driftsmidler balanseføres og avskrives lineært over forventet levetid. Kundefordringer og andre fordringer er oppført til pålydende etter fradrag for avsetning til forventet tap. ' +
  'Skattekostnaden omfatter betalbar skatt for inntektsåret.';

const FIXED_ASSET_GROUPS: readonly [string, string][] = [
  ['10', 'Immaterielle eiendeler'],
  ['11', 'Tomter, bygninger og annen fast eiendom'],
  ['12', 'Transportmidler, inventar og maskiner'],
];

/**
 * The notes the year's figures call for, numbered from 1: accounting principles, employees, fixed
 * assets, equity, receivables, and when the figures require them loans to shareholders (1370-1379
 * non-zero) and going concern (negative equity).
 */
async function generateNotes(ctx: RequestContext, clientAccountId: number, year: number, toDate: Date, ledger: Ledger, income: FigureLine[], balance: FigureLine[]): Promise<Note[]> {
  const notes: Omit<Note, 'noteNumber'>[] = [];
  notes.push({ key: 'accounting_principles', title: 'Regnskapsprinsipper', bodyType: 'text', body: ACCOUNTING_PRINCIPLES });

  const employees = await ctx.db.businessPartner.count({ where: { clientAccountId, isEmployee: true, isActive: true } });
  const wages = figure(income, 'lonnskostnad').amount;
  notes.push({
    key: 'employees',
    title: 'Ansatte og lønnskostnader',
    bodyType: 'text',
    body: employees
      ? `Selskapet har hatt ${employees} ${employees === 1 ? 'ansatt' : 'ansatte'} i ${year}. Samlede lønnskostnader var kr ${nok(wages)}.`
      : `Selskapet har ikke hatt ansatte i ${year} og er ikke pliktig til å ha tjenestepensjonsordning.${wages.isZero() ? '' : ` Lønnskostnader kr ${nok(wages)}.`}`,
  });

  const rows: string[][] = [];
  const zero = () => ({ incoming: new Decimal(0), additions: new Decimal(0), disposals: new Decimal(0), depreciation: new Decimal(0), outgoing: new Decimal(0) });
  const total = zero();
  for (const [group, name] of FIXED_ASSET_GROUPS) {
    const of = ledger.movements.filter((m) => m.code.startsWith(group));
    if (!of.length) continue;
    const g = zero();
    for (const m of of) {
      const dep = ledger.depreciation.get(m.code) ?? { debit: new Decimal(0), credit: new Decimal(0) };
      g.incoming = g.incoming.plus(m.incoming);
      g.additions = g.additions.plus(m.debit.minus(dep.debit));
      g.disposals = g.disposals.plus(m.credit.minus(dep.credit));
      g.depreciation = g.depreciation.plus(dep.credit.minus(dep.debit));
      g.outgoing = g.outgoing.plus(m.outgoing);
    }
    for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] = total[k].plus(g[k]);
    rows.push([name, nok(g.incoming), nok(g.additions), nok(g.disposals), nok(g.depreciation), nok(g.outgoing)]);
  }
  if (rows.length) rows.push(['Sum', nok(total.incoming), nok(total.additions), nok(total.disposals), nok(total.depreciation), nok(total.outgoing)]);
  const registered = await ctx.db.asset.count({ where: { clientAccountId, isActive: true } });
  notes.push({
    key: 'fixed_assets',
    title: 'Varige driftsmidler og immaterielle eiendeler',
    bodyType: 'table',
    body: { columns: ['Eiendelsgruppe', 'Inngående bokført verdi', 'Tilgang', 'Avgang', 'Avskrivning', 'Utgående bokført verdi'], rows },
    footerText: `Årets avskrivninger i resultatregnskapet: kr ${nok(figure(income, 'avskrivning').amount)}. Eiendeler i anleggsregisteret: ${registered}.`,
  });

  const opening = sectionSum(ledger.opening, [[20, 20]], -1);
  const result = figure(income, 'arsresultat').amount;
  const closing = figure(balance, 'egenkapital').amount;
  // dividends leave equity for 2800 (debt); the rest (capital raised, other transfers) is other changes
  const dividends = figure(income, 'avsatt_utbytte').amount;
  const other = closing.minus(opening).minus(result).plus(dividends);
  notes.push({
    key: 'equity',
    title: 'Egenkapital',
    bodyType: 'table',
    body: {
      columns: ['Post', 'Beløp'],
      rows: [
        ['Egenkapital ved årets begynnelse', nok(opening)],
        ['Årets resultat', nok(result)],
        ['Avsatt utbytte', nok(dividends.negated())],
        ['Andre endringer', nok(other)],
        ['Egenkapital ved årets slutt', nok(closing)],
      ],
    },
  });

  const previous = ledger.opening;
  const receivable = (from: string, to: string): [string, string] => [nok(rangeSum(ledger.balance, from, to)), nok(rangeSum(previous, from, to))];
  notes.push({
    key: 'receivables',
    title: 'Fordringer',
    bodyType: 'table',
    body: {
      columns: ['Fordringer', String(year), String(year - 1)],
      rows: [
        ['Kundefordringer', ...receivable('1500', '1549')],
        ['Andre kortsiktige fordringer', ...receivable('1550', '1599')],
        ['Fordringer med forfall senere enn ett år', ...receivable('1370', '1399')],
      ],
    },
  });

  const loans = rangeSum(ledger.balance, '1370', '1379');
  if (!loans.isZero()) {
    notes.push({
      key: 'loans_to_shareholders',
      title: 'Lån til aksjonærer',
      bodyType: 'text',
      body: `Selskapet har per ${norwegianDate(toDate)} fordringer på aksjonærer på til sammen kr ${nok(loans)} (aksjeloven §§ 8-7 til 8-10).`,
    });
  }
  if (closing.isNegative() && !closing.isZero()) {
    notes.push({
      key: 'going_concern',
      title: 'Fortsatt drift',
      bodyType: 'text',
      body:
        `Selskapets egenkapital er negativ med kr ${nok(closing.negated())} per ${norwegianDate(toDate)}. ` +
        'Styret har vurdert selskapets situasjon etter aksjeloven §§ 3-4 og 3-5, og årsregnskapet er avlagt under forutsetning om fortsatt drift.',
    });
  }
  return notes.map((n, i) => ({ noteNumber: i + 1, ...n }));
}

const lastDay = (year: number) => new Date(Date.UTC(year, 11, 31));

/** The figures, checks and generated notes of a client account's year (posted entries only). */
export async function computeYear(ctx: RequestContext, clientAccountId: number, reportingYear: number, fromDate: Date, toDate: Date): Promise<YearlyFigures> {
  const ledger = await readLedger(ctx, clientAccountId, fromDate, toDate);
  const incomeStatement = incomeStatementLines(ledger.result, ledger.previousResult);
  const balance = balanceSheetLines(ledger.balance, ledger.opening);
  const assets = figure(balance, 'sum_eiendeler').amount;
  const equityAndDebt = figure(balance, 'sum_egenkapital_og_gjeld').amount;
  const equity = figure(balance, 'egenkapital').amount;
  const result = figure(incomeStatement, 'arsresultat').amount;
  const [booked] = bookedAllocations(ledger.result, ledger.previousResult);
  const checks: Check[] = [
    {
      key: 'balance_sheet_balances',
      passed: assets.equals(equityAndDebt),
      severity: 'error',
      message: assets.equals(equityAndDebt)
        ? `Sum eiendeler equals sum egenkapital og gjeld (${assets.toFixed(2)})`
        : `Sum eiendeler ${assets.toFixed(2)} differs from sum egenkapital og gjeld ${equityAndDebt.toFixed(2)}`,
    },
    {
      key: 'equity_not_negative',
      passed: !equity.isNegative() || equity.isZero(),
      severity: 'warning',
      message: equity.isNegative() && !equity.isZero() ? `Equity is negative (${equity.toFixed(2)}): a going-concern note is required` : 'Equity is not negative',
    },
    {
      key: 'result_allocated',
      passed: result.equals(booked),
      severity: 'warning',
      message: result.equals(booked)
        ? `Årsresultat ${result.toFixed(2)} is allocated by the entries on 88–89`
        : `Årsresultat ${result.toFixed(2)} is allocated by ${booked.toFixed(2)} on 88–89: the rest (${result.minus(booked).toFixed(2)}) is shown as transferred to annen egenkapital, where the balance sheet counts it; post the closing entry (POST /yearly-accounts/annual-allocations)`,
    },
  ];
  return {
    clientAccountId,
    reportingYear,
    fromDate,
    toDate,
    incomeStatement,
    balanceSheet: balance,
    checks,
    notes: await generateNotes(ctx, clientAccountId, reportingYear, toDate, ledger, incomeStatement, balance),
    loansToShareholders: rangeSum(ledger.balance, '1370', '1379'),
  };
}

/** GET /yearly-accounts/preview: the year's figures with the previous year's, the checks and the notes that would be generated. */
export async function previewYearlyAccounts(ctx: RequestContext, args: Args<typeof rules.preview>): Promise<YearlyFigures> {
  const a = parse(rules.preview, args);
  await requireAccount(ctx, a.clientAccountId);
  return computeYear(ctx, a.clientAccountId, a.reportingYear, a.fromDate, a.toDate);
}

// ── Submissions ──────────────────────────────────────────────────────────────────────────────────

/** GET /yearly-accounts/submissions: of the accounts asked for (each must be the caller's) or every eligible one. */
export async function listYearlyAccounts(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const a = parse(rules.list, args);
  const accounts = await listedAccounts(ctx, a.clientAccountId);
  const where: PrismaNS.YearlyAccountSubmissionWhereInput = {};
  if (accounts) where.clientAccountId = { in: accounts };
  if (a.reportingYear != null) where.reportingYear = a.reportingYear;
  if (a.status?.length) where.status = { in: a.status };
  return findPage(
    pageWindow({ ...a, perPage: a.pageSize }, YEARLY_ACCOUNT_PAGE_LIMITS),
    (w) => ctx.db.yearlyAccountSubmission.findMany({ ...query, where, orderBy: toOrderBy(a.orderBy, YEARLY_ACCOUNT_ORDER, DEFAULT_YEARLY_ACCOUNT_ORDER), ...w }),
    () => ctx.db.yearlyAccountSubmission.count({ where }),
  );
}

async function requireSubmission(ctx: RequestContext, id: number): Promise<YearlyAccountSubmission> {
  return requireOwned(ctx, `Yearly account submission ${id}`, await ctx.db.yearlyAccountSubmission.findUnique({ where: { id } }));
}

const PORTAL_STATUS: Partial<Record<Filing['status'], YearlyAccountStatus>> = { approved: 'APPROVED', rejected: 'REJECTED', cancelled: 'CANCELLED' };

/**
 * GET /yearly-accounts/submissions/{id}. A SUBMITTED one with a portal instance is refreshed from the
 * portal first (the authority's assessment: APPROVED, or REJECTED with its reason in error_message);
 * when the portal cannot be reached the stored status is answered (and the failure logged).
 */
export async function getYearlyAccount(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const row = await requireSubmission(ctx, id);
  if (row.status === 'SUBMITTED' && row.portalInstanceId) await refreshStatus(ctx, row);
  return ctx.db.yearlyAccountSubmission.findUniqueOrThrow({ ...query, where: { id } });
}

async function refreshStatus(ctx: RequestContext, row: YearlyAccountSubmission): Promise<void> {
  let filing: Filing;
  try {
    filing = await getFiling(integrationsOf(ctx).connector('govportal'), row.portalInstanceId!);
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    ctx.logger.warn({ err: e.message, submissionId: row.id }, 'yearly account status refresh failed; answering the stored status');
    return;
  }
  const status = PORTAL_STATUS[filing.status];
  if (!status) return;
  await ctx.db.yearlyAccountSubmission.updateMany({
    where: { id: row.id, status: 'SUBMITTED' },
    data: { status, errorMessage: status === 'REJECTED' ? (filing.decision_reason ?? 'Rejected by the authority') : row.errorMessage },
  });
}

/** Serialises the writers of one client account's yearly accounts for the rest of the transaction. */
const lockAccount = (tx: RequestContext, clientAccountId: number) => lockForTransaction(tx, 'yearlyAccount', clientAccountId);

/** 400 when the account already has an open (DRAFT, SUBMITTED or APPROVED) submission for the year. */
async function assertNoOpen(ctx: RequestContext, clientAccountId: number, reportingYear: number): Promise<void> {
  const open = await ctx.db.yearlyAccountSubmission.findFirst({
    where: { clientAccountId, reportingYear, status: { in: [...OPEN_STATUSES] } },
    select: { id: true, status: true },
  });
  if (open) {
    throw ValidationError.field('reportingYear', `client account ${clientAccountId} already has yearly account submission ${open.id} (${open.status}) for ${reportingYear}; cancel it or use it`);
  }
}

/** The notes in the wire shape (the portal's data and the JSON column). */
const wireNotes = (notes: readonly Note[]) =>
  notes.map((n) => ({ note_number: n.noteNumber, key: n.key, title: n.title, body_type: n.bodyType, body: n.body, ...(n.footerText != null ? { footer_text: n.footerText } : {}) }));

const fromWire = (stored: unknown): Note[] =>
  (stored as { note_number: number; key: string; title: string; body_type: Note['bodyType']; body: Note['body']; footer_text?: string | null }[]).map((n) => ({
    noteNumber: n.note_number,
    key: n.key,
    title: n.title,
    bodyType: n.body_type,
    body: n.body,
    footerText: n.footer_text ?? null,
  }));

const amounts = (lines: readonly FigureLine[], which: 'amount' | 'previousAmount') => Object.fromEntries(lines.map((l) => [l.key, l[which].toFixed(2)]));

/** What a yearly-accounts filing carries to the portal. */
function portalData(f: YearlyFigures, notes: readonly Note[], forms: YearlyAccountForms) {
  return {
    main_form_id: forms.main_form_id,
    sub_form_id: forms.sub_form_id,
    currency: 'NOK',
    income_statement: amounts(f.incomeStatement, 'amount'),
    income_statement_previous_year: amounts(f.incomeStatement, 'previousAmount'),
    balance_sheet: amounts(f.balanceSheet, 'amount'),
    balance_sheet_previous_year: amounts(f.balanceSheet, 'previousAmount'),
    loans_to_shareholders: f.loansToShareholders.toFixed(2),
    notes: wireNotes(notes),
  };
}

interface Filed {
  filing: Filing;
  forms: YearlyAccountForms;
  data: ReturnType<typeof portalData>;
}

/**
 * Files the year with the portal (the form catalogue, then a submitted instance): the account's
 * organization number is required (400). When the portal's rules found errors the instance stays a
 * draft there: it is cancelled and the findings are a 400; nothing is stored. Portal failures: 500.
 */
async function fileWithPortal(ctx: RequestContext, s: { clientAccountId: number; reportingYear: number; fromDate: Date; toDate: Date; notes: Note[] | null }): Promise<Filed> {
  const orgNumber = await requireOrganizationNumber(ctx, s.clientAccountId, 'filing the yearly accounts');
  const figures = await computeYear(ctx, s.clientAccountId, s.reportingYear, s.fromDate, s.toDate);
  const portal = integrationsOf(ctx).connector('govportal');
  const forms = await upstream(() => yearlyAccountForms(portal, s.reportingYear), { status: PORTAL_FAILED, what: 'Reading the portal’s yearly-accounts forms' });
  const data = portalData(figures, s.notes ?? figures.notes, forms);
  const filing = await upstream(
    () => createFiling(portal, { kind: 'yearly-accounts', orgNumber, reportingYear: s.reportingYear, fromDate: formatDate(s.fromDate), toDate: formatDate(s.toDate), data, submit: true }),
    { status: PORTAL_FAILED, what: 'Submitting the yearly accounts to the portal' },
  );
  if (filing.status !== 'submitted') {
    await withdraw(ctx, filing.id);
    const errors = filing.findings.filter((f) => f.severity === 'error');
    const shown = errors.length ? errors : filing.findings;
    throw ValidationError.of(
      shown.length
        ? shown.map((f) => ({ path: ['findings', f.code], message: `${f.severity}: ${f.message}` }))
        : [{ path: [], message: `the portal kept the filing as ${filing.status}` }],
    );
  }
  return { filing, forms, data };
}

/** Cancels a portal instance nothing here will point at (best effort: it is only a draft or orphan there). */
async function withdraw(ctx: RequestContext, instanceId: string): Promise<void> {
  try {
    await cancelFiling(integrationsOf(ctx).connector('govportal'), instanceId);
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    ctx.logger.warn({ err: e.message, instanceId }, 'could not cancel an unused yearly-accounts instance at the portal');
  }
}

const submittedFields = ({ filing, forms, data }: Filed) => ({
  status: 'SUBMITTED' as const,
  portalInstanceId: filing.id,
  mainFormId: forms.main_form_id,
  subFormId: forms.sub_form_id,
  submittedAt: filing.submitted_at ? new Date(filing.submitted_at) : new Date(),
  errorMessage: null,
  data: data as PrismaNS.InputJsonValue,
  findings: filing.findings as PrismaNS.InputJsonValue,
});

/** POST /yearly-accounts/drafts: a DRAFT whose notes are generated from the ledger when read (400 when the year is taken). */
export async function createYearlyAccountDraft(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const { input } = parse(rules.create, args);
  await requireAccount(ctx, input.clientAccountId);
  return inTransaction(ctx, async (tx) => {
    await lockAccount(tx, input.clientAccountId);
    await assertNoOpen(tx, input.clientAccountId, input.reportingYear);
    return tx.db.yearlyAccountSubmission.create({
      ...query,
      data: { clientAccountId: input.clientAccountId, reportingYear: input.reportingYear, fromDate: input.fromDate, toDate: input.toDate, status: 'DRAFT', createdById: auditUserId(tx) },
    });
  });
}

/** POST /yearly-accounts/submissions: files the year directly (SUBMITTED) with the generated notes. */
export async function createYearlyAccountSubmission(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const { input } = parse(rules.create, args);
  await requireAccount(ctx, input.clientAccountId);
  await assertNoOpen(ctx, input.clientAccountId, input.reportingYear);
  const filed = await fileWithPortal(ctx, { ...input, notes: null });
  try {
    return await inTransaction(ctx, async (tx) => {
      await lockAccount(tx, input.clientAccountId);
      await assertNoOpen(tx, input.clientAccountId, input.reportingYear);
      return tx.db.yearlyAccountSubmission.create({
        ...query,
        data: { clientAccountId: input.clientAccountId, reportingYear: input.reportingYear, fromDate: input.fromDate, toDate: input.toDate, createdById: auditUserId(tx), ...submittedFields(filed) },
      });
    });
  } catch (e) {
    await withdraw(ctx, filed.filing.id);
    throw e;
  }
}

const notAllowed = (row: YearlyAccountSubmission, action: string, allowed: readonly string[]) =>
  new ValidationError(`Yearly account submission ${row.id} is ${row.status}: only ${allowed.join(' or ')} can be ${action}`);

/** POST /yearly-accounts/submissions/{id}/submit: DRAFT only (else 400); files it with its notes as stored or generated. */
export async function submitYearlyAccount(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const row = await requireSubmission(ctx, id);
  if (!CAN_SUBMIT.includes(row.status)) throw notAllowed(row, 'submitted', CAN_SUBMIT);
  const filed = await fileWithPortal(ctx, { ...row, notes: row.notes == null ? null : fromWire(row.notes) });
  const updated = await ctx.db.yearlyAccountSubmission.updateMany({ where: { id, status: { in: [...CAN_SUBMIT] } }, data: submittedFields(filed) });
  if (!updated.count) {
    await withdraw(ctx, filed.filing.id);
    throw notAllowed(await requireSubmission(ctx, id), 'submitted', CAN_SUBMIT);
  }
  return ctx.db.yearlyAccountSubmission.findUniqueOrThrow({ ...query, where: { id } });
}

/**
 * POST /yearly-accounts/submissions/{id}/cancel: DRAFT or SUBMITTED only (else 400). A submission with
 * a portal instance is cancelled at the portal first; when the portal has already assessed it, 400.
 */
export async function cancelYearlyAccount(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const row = await requireSubmission(ctx, id);
  if (!CAN_CANCEL.includes(row.status)) throw notAllowed(row, 'cancelled', CAN_CANCEL);
  if (row.portalInstanceId) {
    const portal = integrationsOf(ctx).connector('govportal');
    try {
      await cancelFiling(portal, row.portalInstanceId);
    } catch (e) {
      if (e instanceof UpstreamError && e.failure === 'status' && e.status === 409) {
        throw new ValidationError(`Yearly account submission ${id} can no longer be cancelled at the portal: ${e.message}`);
      }
      throw upstreamFailed(e, { status: PORTAL_FAILED, what: 'Cancelling the yearly accounts at the portal' });
    }
  }
  const updated = await ctx.db.yearlyAccountSubmission.updateMany({ where: { id, status: { in: [...CAN_CANCEL] } }, data: { status: 'CANCELLED' } });
  if (!updated.count) throw notAllowed(await requireSubmission(ctx, id), 'cancelled', CAN_CANCEL);
  return ctx.db.yearlyAccountSubmission.findUniqueOrThrow({ ...query, where: { id } });
}

// ── Notes ────────────────────────────────────────────────────────────────────────────────────────

/** GET /yearly-accounts/submissions/{id}/notes: as stored when edited, else generated from the ledger now. */
export async function yearlyAccountNotes(ctx: RequestContext, { id }: { id: number }): Promise<Note[]> {
  const row = await requireSubmission(ctx, id);
  if (row.notes != null) return fromWire(row.notes);
  return (await computeYear(ctx, row.clientAccountId, row.reportingYear, row.fromDate, row.toDate)).notes;
}

/** PUT /yearly-accounts/submissions/{id}/notes: DRAFT only (else 400); replaces the notes with those sent. */
export async function updateYearlyAccountNotes(ctx: RequestContext, args: Args<typeof rules.notes>): Promise<Note[]> {
  const a = parse(rules.notes, args);
  const row = await requireSubmission(ctx, a.id);
  if (row.status !== 'DRAFT') throw new ValidationError(`Yearly account submission ${row.id} is ${row.status}: only a DRAFT’s notes can be edited`);
  const notes: Note[] = a.notes;
  const updated = await ctx.db.yearlyAccountSubmission.updateMany({ where: { id: a.id, status: 'DRAFT' }, data: { notes: wireNotes(notes) as PrismaNS.InputJsonValue } });
  if (!updated.count) throw new ValidationError(`Yearly account submission ${row.id} is no longer a DRAFT`);
  return notes;
}

/**
 * GET /yearly-accounts/submissions/{id}/pdf: the yearly accounts (front page, income statement and
 * balance sheet with the previous year, the notes as stored or generated) as a PDF.
 */
export async function yearlyAccountPdf(ctx: RequestContext, { id }: { id: number }) {
  const row = await requireSubmission(ctx, id);
  const account = await ctx.db.clientAccount.findUniqueOrThrow({ where: { id: row.clientAccountId }, select: { displayName: true, organizationNumber: true } });
  const figures = await computeYear(ctx, row.clientAccountId, row.reportingYear, row.fromDate, row.toDate);
  const content = await renderYearlyAccountPdf({
    companyName: account.displayName,
    organizationNumber: account.organizationNumber,
    reportingYear: row.reportingYear,
    fromDate: row.fromDate,
    toDate: row.toDate,
    status: row.status,
    incomeStatement: figures.incomeStatement,
    balanceSheet: figures.balanceSheet,
    notes: row.notes != null ? fromWire(row.notes) : figures.notes,
  });
  return { fileName: yearlyAccountFileName(row.reportingYear, account.organizationNumber, row.clientAccountId), contentType: 'application/pdf', contentBase64: content.toString('base64') };
}

// ── Annual allocations ───────────────────────────────────────────────────────────────────────────

/**
 * POST /yearly-accounts/annual-allocations: the year's closing entry (disponering av årsresultat),
 * dated 31 December of the year and posted through the journal entries service (its rules: accounts
 * exist and are active, the lock date, balancing). Answers the posted entry.
 */
export async function createAnnualAllocation(ctx: RequestContext, args: Args<typeof rules.allocation>, query: Parameters<typeof createJournalEntry>[2] = {}) {
  const { input } = parse(rules.allocation, args);
  await requireAccount(ctx, input.clientAccountId);
  const postingDate = lastDay(input.reportingYear);
  return createJournalEntry(
    ctx,
    {
      input: {
        clientAccountId: input.clientAccountId,
        description: input.description || allocationDescription(input.reportingYear),
        relationType: 'yearly_accounts',
        lines: input.lines.map((l) => ({ postingDate, accountCode: l.accountCode, debit: l.debit, credit: l.credit })),
      },
    },
    query,
  );
}
