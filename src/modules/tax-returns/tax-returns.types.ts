import { recordById } from '../../shared/record-by-id.ts';
import { builder, storesNothing, tenantScoped } from '../../builder.ts';
import { described } from '../../shared/enum-values.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import type { Decimal } from '../../shared/scalars.ts';
import type { Finding } from '../../integrations/govportal/filings.ts';
import { UserRef } from '../users/users.types.ts';
import { netWealthOf, type NetWealth, type PreviewCheck, type PreviewLine, type PreviewSection, type TaxReturnPreview, type UnmappedAccount, type WealthItem } from './naeringsspesifikasjon.ts';
import { TAX_RETURN_PAGE_LIMITS, TAX_RETURN_STATUS_DESCRIPTIONS, TAX_RETURN_STATUSES, taxReturnRules as rules } from './tax-returns.rules.ts';
import {
  cancelTaxReturn,
  fetchPrefilledTaxData,
  getTaxReturn,
  importTaxReturns,
  listTaxReturns,
  previewTaxReturn,
  submitTaxReturn,
  taxReturnStatus,
  validateTaxReturn,
  type ImportedEntry,
  type ImportResult,
  type TaxValidationResult,
} from './tax-returns.service.ts';

/** Tax returns (spec 002 "Tax return", "Tax returns"). Amounts are decimal strings to the øre ("1250.00"). */
export const TaxReturnStatusEnum = builder.enumType('TaxReturnStatus', {
  description: 'Where a tax return is: SUBMITTED or DRAFT by the portal’s answer, then APPROVED or REJECTED by the authority, or CANCELLED; IMPORTED for earlier filings',
  values: described(TAX_RETURN_STATUSES, TAX_RETURN_STATUS_DESCRIPTIONS),
});

const øre = (d: Decimal) => d.toFixed(2);

const FindingRef = builder.objectRef<Finding>('TaxReturnFinding').implement({
  description: 'A finding of the tax authority’s validation: an error keeps a filing a draft, a warning does too unless ignore_warnings',
  fields: (t) => ({
    severity: t.string({ description: 'error or warning', resolve: (f) => f.severity }),
    code: t.exposeString('code', { description: 'e.g. BALANCE_MISMATCH, UNMAPPED_ACCOUNTS, RESULT_MISMATCH, SECTION_SUM, NEGATIVE_EQUITY, EMPTY, MALFORMED' }),
    message: t.exposeString('message'),
    path: t.string({ nullable: true, description: 'Where in the næringsspesifikasjon', resolve: (f) => f.path ?? null }),
  }),
});

const WealthItemRef = builder.objectRef<WealthItem>('TaxReturnWealthItem').implement({
  fields: (t) => ({
    code: t.exposeString('code', { nullable: true, description: 'The næringsspesifikasjon code' }),
    description: t.exposeString('description'),
    amount: t.field({ type: 'Decimal', resolve: (i) => i.amount }),
  }),
});

const NetWealthRef = builder.objectRef<NetWealth>('TaxReturnNetWealth').implement({
  description: 'The return’s wealth and debt: every asset line of its balance sheet, every long- and short-term debt line, and net wealth = assets − debts',
  fields: (t) => ({
    assets: t.field({ type: [WealthItemRef], extensions: listCost(100), resolve: (w) => w.assets }),
    debts: t.field({ type: [WealthItemRef], extensions: listCost(100), resolve: (w) => w.debts }),
    totalAssets: t.field({ type: 'Decimal', resolve: (w) => w.totalAssets }),
    totalDebts: t.field({ type: 'Decimal', resolve: (w) => w.totalDebts }),
    netWealth: t.field({ type: 'Decimal', resolve: (w) => w.netWealth }),
  }),
});

export const TaxReturn = builder.prismaObject('TaxReturn', {
  ...tenantScoped,
  description: 'A company tax return for a year, filed through the government portal (portal_instance_id); its receipt PDF is stored as a voucher.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    reportingYear: t.exposeInt('reportingYear'),
    fromDate: t.expose('fromDate', { type: 'Date' }),
    toDate: t.expose('toDate', { type: 'Date' }),
    taxAuthorityReference: t.exposeString('taxAuthorityReference', { nullable: true, description: 'The authority’s reference, once submitted' }),
    portalInstanceId: t.exposeString('portalInstanceId', { nullable: true, description: 'The portal’s filing instance: `<party>/<guid>`' }),
    status: t.expose('status', { type: TaxReturnStatusEnum }),
    submittedAt: t.expose('submittedAt', { type: 'DateTime', nullable: true }),
    errorMessage: t.exposeString('errorMessage', { nullable: true, description: 'DRAFT: the findings that kept it a draft; REJECTED: the authority’s reason' }),
    receiptVoucher: t.relation('receiptVoucher', { nullable: true }),
    receiptVoucherId: t.exposeInt('receiptVoucherId', { nullable: true, description: 'The portal’s receipt PDF, stored as an ARCHIVED voucher (channel govportal)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    createdBy: t.field({
      type: UserRef,
      nullable: true,
      select: { createdBy: { select: { id: true, email: true, firstName: true, lastName: true } } },
      resolve: (r) => r.createdBy,
    }),
    innsendingsformaal: t.exposeString('innsendingsformaal', { description: 'egenfastsetting (an original filing) or endringsanmodning (a correction)' }),
    corrects: t.relation('corrects', { nullable: true }),
    correctsId: t.exposeInt('correctsId', { nullable: true, description: 'The tax return a correction corrects' }),
    findings: t.field({ type: [FindingRef], extensions: listCost(50), description: 'The portal’s validation findings', resolve: (r) => r.findings as unknown as Finding[] }),
    data: t.expose('data', { type: 'JSON', nullable: true, description: 'The næringsspesifikasjon filed (or read from the portal by an import)' }),
    netWealth: t.field({
      type: NetWealthRef,
      nullable: true,
      description: 'Wealth and debt from the return’s data (null when it has none it can read)',
      select: { data: true },
      resolve: (r) => netWealthOf(r.data),
    }),
  }),
});

const TaxReturnPage = pageType('TaxReturnPage', TaxReturn);

// ── Preview ───────────────────────────────────────────────────────────────────────────────────────

const LineRef = builder.objectRef<PreviewLine>('NaeringsspesifikasjonLine').implement({
  fields: (t) => ({
    code: t.exposeString('code', { nullable: true, description: 'The næringsspesifikasjon code; null for the result not yet closed into equity' }),
    description: t.exposeString('description'),
    amount: t.field({ type: 'Decimal', resolve: (l) => øre(l.amount) }),
    accounts: t.exposeStringList('accounts', { description: 'The ledger accounts summed into the line' }),
  }),
});
const SectionRef = builder.objectRef<PreviewSection>('NaeringsspesifikasjonSection').implement({
  fields: (t) => ({
    lines: t.field({ type: [LineRef], extensions: listCost(100), resolve: (s) => s.lines }),
    sum: t.field({ type: 'Decimal', resolve: (s) => øre(s.sum) }),
  }),
});
type Result = TaxReturnPreview['resultatregnskap'];
const ResultRef = builder.objectRef<Result>('NaeringsspesifikasjonResultatregnskap').implement({
  description: 'The income statement: income, equity and debt positive; costs positive',
  fields: (t) => ({
    driftsinntekter: t.field({ type: SectionRef, resolve: (r) => r.driftsinntekter }),
    driftskostnader: t.field({ type: SectionRef, resolve: (r) => r.driftskostnader }),
    driftsresultat: t.field({ type: 'Decimal', resolve: (r) => øre(r.driftsresultat) }),
    finansinntekter: t.field({ type: SectionRef, resolve: (r) => r.finansinntekter }),
    finanskostnader: t.field({ type: SectionRef, resolve: (r) => r.finanskostnader }),
    nettoFinans: t.field({ type: 'Decimal', resolve: (r) => øre(r.nettoFinans) }),
    resultatFoerSkatt: t.field({ type: 'Decimal', resolve: (r) => øre(r.resultatFoerSkatt) }),
    skattekostnad: t.field({ type: SectionRef, resolve: (r) => r.skattekostnad }),
    aarsresultat: t.field({ type: 'Decimal', resolve: (r) => øre(r.aarsresultat) }),
    disponering: t.field({ type: SectionRef, description: 'Disposition of the result (8800-8990): beside the result, not in it', resolve: (r) => r.disponering }),
  }),
});
type Balance = TaxReturnPreview['balanse'];
const AssetsRef = builder.objectRef<Balance['eiendeler']>('NaeringsspesifikasjonEiendeler').implement({
  fields: (t) => ({
    anleggsmidler: t.field({ type: SectionRef, resolve: (e) => e.anleggsmidler }),
    omloepsmidler: t.field({ type: SectionRef, resolve: (e) => e.omloepsmidler }),
    sum: t.field({ type: 'Decimal', resolve: (e) => øre(e.sum) }),
  }),
});
const EquityAndDebtRef = builder.objectRef<Balance['egenkapitalOgGjeld']>('NaeringsspesifikasjonEgenkapitalOgGjeld').implement({
  fields: (t) => ({
    egenkapital: t.field({ type: SectionRef, description: 'With the result not yet closed into equity as a line of its own (code null)', resolve: (e) => e.egenkapital }),
    langsiktigGjeld: t.field({ type: SectionRef, resolve: (e) => e.langsiktigGjeld }),
    kortsiktigGjeld: t.field({ type: SectionRef, resolve: (e) => e.kortsiktigGjeld }),
    sum: t.field({ type: 'Decimal', resolve: (e) => øre(e.sum) }),
  }),
});
const BalanceRef = builder.objectRef<Balance>('NaeringsspesifikasjonBalanse').implement({
  fields: (t) => ({
    eiendeler: t.field({ type: AssetsRef, resolve: (b) => b.eiendeler }),
    egenkapitalOgGjeld: t.field({ type: EquityAndDebtRef, resolve: (b) => b.egenkapitalOgGjeld }),
  }),
});
const UnmappedRef = builder.objectRef<UnmappedAccount>('NaeringsspesifikasjonUnmappedAccount').implement({
  fields: (t) => ({
    accountCode: t.exposeString('accountCode'),
    accountName: t.exposeString('accountName'),
    amount: t.field({ type: 'Decimal', description: 'debit − credit (movement of a result account, closing balance of a balance account)', resolve: (u) => øre(u.amount) }),
    reason: t.exposeString('reason'),
  }),
});
const CheckRef = builder.objectRef<PreviewCheck>('NaeringsspesifikasjonCheck').implement({
  fields: (t) => ({
    code: t.exposeString('code', { description: 'BALANSE_BALANSERER, ALLE_KONTOER_TILORDNET, EGENKAPITAL_IKKE_NEGATIV' }),
    ok: t.exposeBoolean('ok'),
    message: t.exposeString('message'),
  }),
});
const PreviewRef = builder.objectRef<TaxReturnPreview>('TaxReturnPreview').implement({
  description:
    'The næringsspesifikasjon computed from the ledger: each account under its næringsspesifikasjon code (its SAF-T grouping code, else its account number), ' +
    'result accounts by their movement in the period, balance accounts by their closing balance; unmapped accounts listed, and the checks',
  fields: (t) => ({
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    orgNumber: t.exposeString('orgNumber', { nullable: true }),
    reportingYear: t.exposeInt('reportingYear'),
    fromDate: t.expose('fromDate', { type: 'Date' }),
    toDate: t.expose('toDate', { type: 'Date' }),
    resultatregnskap: t.field({ type: ResultRef, resolve: (p) => p.resultatregnskap }),
    balanse: t.field({ type: BalanceRef, resolve: (p) => p.balanse }),
    unmappedAccounts: t.field({ type: [UnmappedRef], extensions: listCost(100), resolve: (p) => p.unmappedAccounts }),
    checks: t.field({ type: [CheckRef], extensions: listCost(10), resolve: (p) => p.checks }),
  }),
});

const ValidationRef = builder.objectRef<TaxValidationResult>('TaxReturnValidation').implement({
  description: 'The tax authority’s validation of the computed næringsspesifikasjon: valid when there are no errors',
  fields: (t) => ({
    valid: t.exposeBoolean('valid'),
    errors: t.field({ type: [FindingRef], extensions: listCost(50), resolve: (v) => v.errors }),
    warnings: t.field({ type: [FindingRef], extensions: listCost(50), resolve: (v) => v.warnings }),
  }),
});

// ── Import ────────────────────────────────────────────────────────────────────────────────────────

const ImportedRef = builder.objectRef<ImportedEntry>('TaxReturnImported').implement({
  fields: (t) => ({
    year: t.exposeInt('year'),
    portalInstanceId: t.exposeString('portalInstanceId'),
    seeded: t.exposeBoolean('seeded', { description: 'The return was filled with the filing’s data (false on a dry run)' }),
    warning: t.exposeBoolean('warning', { description: 'The filing’s data could not be read as a næringsspesifikasjon: imported without it' }),
    dryRun: t.exposeBoolean('dryRun'),
    taxReturn: t.prismaField({ type: 'TaxReturn', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'taxReturn', p.taxReturnId, query) }),
    taxReturnId: t.exposeInt('taxReturnId', { nullable: true, description: 'The IMPORTED return made (null on a dry run)' }),
  }),
});
const SkippedRef = builder.objectRef<ImportResult['skipped'][number]>('TaxReturnImportSkipped').implement({
  fields: (t) => ({ year: t.exposeInt('year'), portalInstanceId: t.exposeString('portalInstanceId') }),
});
const ImportErrorRef = builder.objectRef<ImportResult['errors'][number]>('TaxReturnImportError').implement({
  fields: (t) => ({ portalInstanceId: t.exposeString('portalInstanceId'), reason: t.exposeString('reason') }),
});
const ImportResultRef = builder.objectRef<ImportResult>('TaxReturnImportResult').implement({
  fields: (t) => ({
    imported: t.field({ type: [ImportedRef], extensions: listCost(100), resolve: (r) => r.imported }),
    skipped: t.field({ type: [SkippedRef], extensions: listCost(100), resolve: (r) => r.skipped }),
    errors: t.field({ type: [ImportErrorRef], extensions: listCost(100), resolve: (r) => r.errors }),
  }),
});

const SubmitTaxReturnInput = builder.inputType('SubmitTaxReturnInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    reportingYear: t.int({ required: true }),
    fromDate: t.field({ type: 'Date', description: 'Default 1 January of the year' }),
    toDate: t.field({ type: 'Date', description: 'Default 31 December of the year' }),
    ignoreWarnings: t.boolean({ description: 'Submit even with warnings (default true); errors always keep it a draft' }),
    innsendingsformaal: t.string({ description: 'egenfastsetting (default: an original filing) or endringsanmodning (a correction of the filed return); anything else 400' }),
  }),
});

const ImportTaxReturnsInput = builder.inputType('ImportTaxReturnsInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    year: t.int({ description: 'Only this year’s filings (default every year)' }),
    dryRun: t.boolean({ description: 'Report what would be imported and write nothing (default false)' }),
    auth: t.string({ description: 'auto (default): as the account’s Active system user when it has one, else the service’s own portal credentials; service: the service’s credentials; maskinporten: as the system user (right govportal:filings.read; none: 403)' }),
  }),
});

builder.queryFields((t) => ({

  taxReturns: t.field({
    type: TaxReturnPage,
    extensions: pageCost(TAX_RETURN_PAGE_LIMITS, 'pageSize'),
    description: 'Tax returns of the given client accounts (default all the caller may see), newest year first unless orderBy says otherwise; page 1, pageSize 100 (at most 1000).',
    args: {
      clientAccountIds: t.arg.intList(),
      reportingYear: t.arg.int(),
      status: t.arg({ type: [TaxReturnStatusEnum] }),
      orderBy: t.arg.stringList({ description: 'Fields id, reporting_year, status, created_at, submitted_at, client_account_id; - for descending. Default -reporting_year' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      pageSize: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listTaxReturns(ctx, args, nodesQuery(ctx, info)),
  }),
  taxReturn: t.prismaField({
    nullable: true,
    type: 'TaxReturn',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getTaxReturn(ctx, args, query),
  }),
  taxReturnStatus: t.prismaField({
    nullable: true,
    type: 'TaxReturn',
    description: 'The tax return, refreshed from the portal first when it is SUBMITTED with a portal instance id (500 when the portal cannot be read; nothing changes).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => taxReturnStatus(ctx, args, query),
  }),

  taxReturnPreview: t.field({
    type: PreviewRef,
    description: 'The næringsspesifikasjon of the period computed from the ledger (from/to default 1 January and 31 December of the year).',
    args: { clientAccountId: t.arg.int({ required: true }), reportingYear: t.arg.int({ required: true }), fromDate: t.arg({ type: 'Date' }), toDate: t.arg({ type: 'Date' }) },
    resolve: (_root, args, ctx) => previewTaxReturn(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  fetchPrefilledTaxData: t.field({
    ...storesNothing,
    type: 'JSON',
    description:
      'Stores nothing (a mutation as its REST POST is: it needs the write scope): the tax authority’s pre-filled data for the client account’s organisation and the year, as the authority gives it: {org_number, income_year, bank_accounts [{bank_name, account_number, deposit_dec31, interest_earned}], ' +
      'loans [{lender, balance_dec31, interest_paid}], properties [{property_id, municipality, address, property_type, tax_value}], loss_carried_forward, reported_at}. 404 when the authority has none for the year.',
    args: { clientAccountId: t.arg.int({ required: true }), year: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => fetchPrefilledTaxData(ctx, args),
  }),
  validateTaxReturn: t.field({
    ...storesNothing,
    type: ValidationRef,
    description:
      'Stores nothing (a mutation as its REST POST is: it needs the write scope): sends the næringsspesifikasjon computed from the ledger to the tax authority’s validation (the rules a filing is checked by).',
    args: { clientAccountId: t.arg.int({ required: true }), year: t.arg.int({ required: true }), fromDate: t.arg({ type: 'Date' }), toDate: t.arg({ type: 'Date' }) },
    resolve: (_root, args, ctx) => validateTaxReturn(ctx, args),
  }),
  submitTaxReturn: t.prismaField({
    type: 'TaxReturn',
    description: 'Files the næringsspesifikasjon computed from the ledger through the portal: SUBMITTED (receipt stored as a voucher) or DRAFT (error_message) by the portal’s answer.',
    args: { input: t.arg({ type: SubmitTaxReturnInput, required: true }) },
    resolve: (query, _root, args, ctx) => submitTaxReturn(ctx, args, query),
  }),
  importTaxReturns: t.field({
    type: ImportResultRef,
    description: 'Imports the organisation’s earlier tax-return filings from the portal as IMPORTED returns.',
    args: { input: t.arg({ type: ImportTaxReturnsInput, required: true }) },
    resolve: (_root, args, ctx) => importTaxReturns(ctx, args),
  }),
  cancelTaxReturn: t.prismaField({
    type: 'TaxReturn',
    description: 'Cancels a DRAFT or SUBMITTED tax return, at the portal too (other statuses: 400).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => cancelTaxReturn(ctx, args, query),
  }),
}));
