import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { described } from '../../shared/enum-values.ts';
import { requestLoader } from '../../shared/loaders.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { fixedOrNull } from '../../shared/scalars.ts';
import { A_MELDING_CODE_LISTS, type CodeList } from './a-melding-codes.ts';
import { payrollContractRules as rules, SALARY_TYPE_DESCRIPTIONS, SALARY_TYPES } from './payroll-contracts.rules.ts';
import { createPayrollContract, getPayrollContract, listPayrollContracts, PAYROLL_CONTRACT_PAGE_LIMITS, updatePayrollContract } from './payroll-contracts.service.ts';
import { currentTaxYear, listPayrollTaxCards, TAX_CARD_PAGE_LIMITS, taxCardRules } from './payroll-tax-cards.service.ts';

/**
 * Payroll contracts (spec 002 "Employment contract", "Payroll contracts") and the employees' tax
 * cards fetched for them. The coded fields (employmentType, employmentForm, workTimeArrangement,
 * remunerationType, endDateReason) are text of at most 50 characters; `payrollCodeLists` answers the
 * a-melding code lists suggested for them, with their Norwegian labels (a-melding-codes.ts).
 */
export const PayrollSalaryTypeEnum = builder.enumType('PayrollSalaryType', { values: described(SALARY_TYPES, SALARY_TYPE_DESCRIPTIONS) });

export const PayrollEmploymentEndReportStatusEnum = builder.enumType('PayrollEmploymentEndReportStatus', {
  description: 'Where the report of an employment’s end to the tax authority stands',
  values: {
    PENDING: { description: 'Deactivated; the report is queued or being retried' },
    REPORTED: { description: 'The tax authority gave a receipt (employmentEndReference)' },
    FAILED: { description: 'Given up: no organization number, the authority refused the report, or every retry failed (employmentEndReportError)' },
  },
});

export const PayrollTaxCardStatusEnum = builder.enumType('PayrollTaxCardStatus', {
  values: {
    FETCHED: { description: 'The card is stored (a later failed refresh keeps it and sets lastError)' },
    NOT_FOUND: { description: 'The tax authority has no card for the person and year' },
    MISSING_NATIONAL_ID: { description: 'The employee has no national_id_number: nothing was asked' },
    MISSING_ORGANIZATION_NUMBER: { description: 'The client account has no organization number: nothing was asked' },
    FAILED: { description: 'The tax authority could not be asked (lastError); the job retries' },
  },
});

export const PayrollTaxDeductionTypeEnum = builder.enumType('PayrollTaxDeductionType', {
  description: 'How a tax card withholds tax (forskuddstrekk)',
  values: {
    TABLE: { description: 'Tabelltrekk: by the withholding table tableNumber (withholdingPercentage for other income)' },
    PERCENTAGE: { description: 'Prosenttrekk: withholdingPercentage of the pay' },
    EXEMPTION: { description: 'Frikort: nothing withheld until exemptionAmount (fribeløp) is used; null: no limit' },
  },
});

export const PayrollTaxCard = builder.prismaObject('PayrollTaxCard', {
  ...tenantScoped,
  description: 'An employee’s tax card (skattekort) for a year, fetched from the tax authority for the employer',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    businessPartnerId: t.exposeInt('businessPartnerId'),
    year: t.exposeInt('year', { description: 'The income year' }),
    status: t.expose('status', { type: PayrollTaxCardStatusEnum }),
    deductionType: t.expose('deductionType', { type: PayrollTaxDeductionTypeEnum, nullable: true }),
    tableNumber: t.exposeString('tableNumber', { nullable: true, description: 'The withholding table (tabellnummer), e.g. 8115' }),
    withholdingPercentage: t.field({ type: 'Decimal', nullable: true, description: 'Percent, 2 decimals', resolve: fixedOrNull('withholdingPercentage', 2) }),
    exemptionAmount: t.field({ type: 'Decimal', nullable: true, description: 'Fribeløp of a frikort', resolve: fixedOrNull('exemptionAmount', 2) }),
    issuedDate: t.expose('issuedDate', { type: 'Date', nullable: true }),
    taxCardIdentifier: t.exposeString('taxCardIdentifier', { nullable: true }),
    rawResponse: t.expose('rawResponse', { type: 'JSON', nullable: true, description: 'The tax authority’s answer as received' }),
    fetchedAt: t.expose('fetchedAt', { type: 'DateTime', nullable: true, description: 'When the authority last answered with a card or with none' }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime' }),
    attempts: t.exposeInt('attempts', { description: 'Fetches tried for this card, failed ones included' }),
    lastError: t.exposeString('lastError', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    businessPartner: t.relation('businessPartner'),
  }),
});

const PayrollTaxCardPage = pageType('PayrollTaxCardPage', PayrollTaxCard);

type TaxCardKey = { clientAccountId: number; businessPartnerId: number; year: number };
const keyOf = (k: TaxCardKey) => `${k.clientAccountId}:${k.businessPartnerId}:${k.year}`;

export const PayrollContract = builder.prismaObject('PayrollContract', {
  ...tenantScoped,
  description: 'An employment contract (arbeidsforhold) of an employee business partner (spec 002 "Employment contract")',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable' }),
    businessPartnerId: t.exposeInt('businessPartnerId', { description: 'The employee: a business partner of the account, marked isEmployee by an active contract; immutable' }),
    employmentType: t.exposeString('employmentType', { description: 'At most 50 characters; usually an a-melding arbeidsforholdstype code (payrollCodeLists)' }),
    startDate: t.expose('startDate', { type: 'Date' }),
    endDate: t.expose('endDate', { type: 'Date', nullable: true }),
    endDateReason: t.exposeString('endDateReason', { nullable: true, description: 'Why the employment ended: free text, usually an a-melding sluttaarsak code (payrollCodeLists)' }),
    jobTitle: t.exposeString('jobTitle', { nullable: true }),
    occupationCode: t.exposeString('occupationCode', { nullable: true, description: 'STYRK-08 occupation code (digits; the a-melding takes the 7-digit yrkeskode)' }),
    employmentForm: t.exposeString('employmentForm', { nullable: true, description: 'At most 50 characters; usually an a-melding ansettelsesform code (payrollCodeLists)' }),
    workTimeArrangement: t.exposeString('workTimeArrangement', { nullable: true, description: 'At most 50 characters; usually an a-melding arbeidstidsordning code (payrollCodeLists)' }),
    workPercentage: t.field({ type: 'Decimal', nullable: true, description: '100.00 is full time', resolve: fixedOrNull('workPercentage', 2) }),
    weeklyHours: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('weeklyHours', 2) }),
    remunerationType: t.exposeString('remunerationType', { nullable: true, description: 'At most 50 characters; usually an a-melding avloenningstype code (payrollCodeLists)' }),
    salaryType: t.expose('salaryType', { type: PayrollSalaryTypeEnum }),
    lastSalaryChangeDate: t.expose('lastSalaryChangeDate', { type: 'Date', nullable: true }),
    lastWorkPctChangeDate: t.expose('lastWorkPctChangeDate', { type: 'Date', nullable: true }),
    monthlySalary: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('monthlySalary', 2) }),
    hourlyRate: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('hourlyRate', 2) }),
    vacationPayRate: t.field({ type: 'Decimal', nullable: true, description: 'A fraction: 0.1020 is 10.2 %', resolve: fixedOrNull('vacationPayRate', 4) }),
    pensionRate: t.field({ type: 'Decimal', nullable: true, description: 'The employer’s pension contribution, a fraction', resolve: fixedOrNull('pensionRate', 4) }),
    employeePensionRate: t.field({ type: 'Decimal', nullable: true, description: 'A fraction', resolve: fixedOrNull('employeePensionRate', 4) }),
    pensionProviderId: t.exposeInt('pensionProviderId', { nullable: true }),
    unionDuesAmount: t.field({ type: 'Decimal', nullable: true, description: 'Per month', resolve: fixedOrNull('unionDuesAmount', 2) }),
    carRegistrationNumber: t.exposeString('carRegistrationNumber', { nullable: true }),
    carListPrice: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('carListPrice', 2) }),
    arbeidsforholdId: t.exposeString('arbeidsforholdId', { description: 'The employment’s id in the a-melding: a UUID generated on creation' }),
    isPrimaryEmployer: t.exposeBoolean('isPrimaryEmployer'),
    isActive: t.exposeBoolean('isActive'),
    isPayrollDefault: t.exposeBoolean('isPayrollDefault', { description: 'At most one contract of an employee is the default: setting it clears the others' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    employmentEndReportStatus: t.expose('employmentEndReportStatus', { type: PayrollEmploymentEndReportStatusEnum, nullable: true, description: 'The last deactivation’s report of the end to the tax authority; null when never deactivated' }),
    employmentEndReportedDate: t.expose('employmentEndReportedDate', { type: 'Date', nullable: true, description: 'The end date the last report sends (or sent)' }),
    employmentEndReportedAt: t.expose('employmentEndReportedAt', { type: 'DateTime', nullable: true, description: 'When the tax authority took the report' }),
    employmentEndReference: t.exposeString('employmentEndReference', { nullable: true, description: 'The tax authority’s receipt' }),
    employmentEndReportError: t.exposeString('employmentEndReportError', { nullable: true }),
    employmentEndReportAttempts: t.exposeInt('employmentEndReportAttempts'),
    businessPartner: t.relation('businessPartner'),
    pensionProvider: t.relation('pensionProvider', { nullable: true }),
    taxCard: t.field({
      type: PayrollTaxCard,
      nullable: true,
      description: 'The employee’s tax card for a year (default: the current tax year), as last fetched; null before the first fetch ran',
      args: { year: t.arg.int() },
      resolve: (c, args, ctx) =>
        requestLoader<TaxCardKey, unknown>(ctx.loaders, 'payrollTaxCard', async (keys) => {
          const rows = await ctx.db.payrollTaxCard.findMany({ where: { OR: keys.map((k) => ({ ...k })) } });
          const byKey = new Map(rows.map((r) => [keyOf(r), r]));
          return keys.map((k) => byKey.get(keyOf(k)) ?? null);
        }).load({ clientAccountId: c.clientAccountId, businessPartnerId: c.businessPartnerId, year: args.year ?? currentTaxYear() }) as never,
    }),
  }),
});

const PayrollContractPage = pageType('PayrollContractPage', PayrollContract);

const CodeValue = builder.objectRef<{ value: string; label: string }>('PayrollCodeValue').implement({
  fields: (t) => ({
    value: t.exposeString('value', { description: 'The code as the a-melding and this API spell it' }),
    label: t.exposeString('label', { description: 'Norwegian label' }),
  }),
});

const CodeListRef = builder.objectRef<CodeList>('PayrollCodeList').implement({
  description: 'An a-melding code list (Skatteetaten) and the contract field it gives the values of',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The a-melding’s name of the list, e.g. arbeidsforholdstype' }),
    field: t.exposeString('field', { description: 'The contract field (snake_case as on the wire), e.g. employment_type' }),
    restricted: t.exposeBoolean('restricted', { description: 'Whether only these values are accepted; false (every list): the values suggested for a text field of at most 50 characters' }),
    values: t.field({ type: [CodeValue], extensions: listCost(10), resolve: (l) => [...l.values] }),
  }),
});

// Field rules (lengths, scales, code lists, the rules across fields) are in payroll-contracts.rules.ts.

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const contractInputFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>, create: boolean) => ({
  endDate: t.field({ type: 'Date', description: 'Not before startDate; the end reported when the contract is deactivated (today when none)' }),
  endDateReason: t.string({ description: 'At most 50 characters; an a-melding sluttaarsak code (payrollCodeLists) is what the employment-end report understands, other text is reported as it is' }),
  jobTitle: t.string({ description: 'At most 200 characters' }),
  occupationCode: t.string({ description: 'STYRK-08 occupation code: digits, at most 10 (the a-melding takes the 7-digit yrkeskode, e.g. 2511108)' }),
  employmentForm: t.string({ description: 'At most 50 characters; an a-melding ansettelsesform code is suggested (payrollCodeLists)' }),
  workTimeArrangement: t.string({ description: 'At most 50 characters; an a-melding arbeidstidsordning code is suggested (payrollCodeLists)' }),
  workPercentage: t.field({ type: 'Decimal', description: '0 to 100.00 (full time); 2 decimals' }),
  weeklyHours: t.field({ type: 'Decimal', description: '0 to 168; 2 decimals' }),
  remunerationType: t.string({ description: 'At most 50 characters; an a-melding avloenningstype code is suggested (payrollCodeLists)' }),
  lastSalaryChangeDate: t.field({ type: 'Date' }),
  lastWorkPctChangeDate: t.field({ type: 'Date' }),
  monthlySalary: t.field({ type: 'Decimal', description: 'Required for MONTHLY_FIXED; not negative, 2 decimals' }),
  hourlyRate: t.field({ type: 'Decimal', description: 'Required for HOURLY; not negative, 2 decimals' }),
  vacationPayRate: t.field({ type: 'Decimal', description: 'A fraction 0–1 with at most 4 decimals (0.1020)' }),
  pensionRate: t.field({ type: 'Decimal', description: 'A fraction 0–1 with at most 4 decimals' }),
  employeePensionRate: t.field({ type: 'Decimal', description: 'A fraction 0–1 with at most 4 decimals' }),
  pensionProviderId: t.int({ description: 'A business partner of the client account' }),
  unionDuesAmount: t.field({ type: 'Decimal', description: 'Monthly; not negative, 2 decimals' }),
  carRegistrationNumber: t.string({ description: 'At most 20 characters' }),
  carListPrice: t.field({ type: 'Decimal', description: 'Not negative, 2 decimals' }),
  isPrimaryEmployer: t.boolean({ description: create ? 'Default true' : undefined }),
  isActive: t.boolean({
    description: create
      ? 'Default true; an active contract marks its business partner isEmployee'
      : 'true marks the business partner isEmployee; false → true queues a tax-card fetch; true → false reports the end with endDate (today when none is sent or stored)',
  }),
  isPayrollDefault: t.boolean({ description: create ? 'Default false; true clears it on the employee’s other contracts' : 'true clears it on the employee’s other contracts' }),
});

const CreatePayrollContractInput = builder.inputType('CreatePayrollContractInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    businessPartnerId: t.int({ required: true, description: 'The employee: any business partner of the client account (an active contract marks it isEmployee)' }),
    employmentType: t.string({ required: true, description: '1 to 50 characters; an a-melding arbeidsforholdstype code is suggested (payrollCodeLists)' }),
    startDate: t.field({ type: 'Date', required: true }),
    salaryType: t.field({ type: PayrollSalaryTypeEnum, required: true, description: 'MONTHLY_FIXED needs monthlySalary, HOURLY needs hourlyRate' }),
    ...contractInputFields(t, true),
  }),
});

const UpdatePayrollContractInput = builder.inputType('UpdatePayrollContractInput', {
  description: 'Fields to change; omitted fields keep their value, null clears an optional one. clientAccountId and businessPartnerId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    businessPartnerId: t.int({ description: 'Immutable: a different value is rejected' }),
    employmentType: t.string({ description: '1 to 50 characters; an a-melding arbeidsforholdstype code is suggested (payrollCodeLists)' }),
    startDate: t.field({ type: 'Date' }),
    salaryType: t.field({ type: PayrollSalaryTypeEnum, description: 'MONTHLY_FIXED needs monthlySalary, HOURLY needs hourlyRate (checked with the stored values)' }),
    ...contractInputFields(t, false),
  }),
});

builder.queryFields((t) => ({

  payrollContracts: t.field({
    type: PayrollContractPage,
    extensions: pageCost(PAYROLL_CONTRACT_PAGE_LIMITS),
    description: 'Employment contracts of a client account by id (page-based; per_page 100 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int({ description: 'The employee' }),
      isActive: t.arg.boolean({ description: 'Omitted or null: active and inactive' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listPayrollContracts(ctx, args, nodesQuery(ctx, info)),
  }),
  payrollContract: t.prismaField({
    nullable: true,
    type: 'PayrollContract',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getPayrollContract(ctx, args, query),
  }),

  payrollTaxCards: t.field({
    type: PayrollTaxCardPage,
    extensions: pageCost(TAX_CARD_PAGE_LIMITS),
    description: 'The tax cards fetched for the employees of a client account, newest year first.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int(),
      year: t.arg.int(),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listPayrollTaxCards(ctx, args, nodesQuery(ctx, info)),
  }),

  payrollCodeLists: t.field({
    type: [CodeListRef],
    extensions: listCost(A_MELDING_CODE_LISTS.length),
    description: 'The a-melding code lists suggested for the contract fields employment_type, employment_form, work_time_arrangement, remuneration_type and end_date_reason, with Norwegian labels (the fields take any text of at most 50 characters).',
    resolve: () => [...A_MELDING_CODE_LISTS],
  }),
}));

builder.mutationFields((t) => ({
  createPayrollContract: t.prismaField({
    type: 'PayrollContract',
    description: 'Creates an employment contract (an active one marks its business partner isEmployee) and queues the fetch of the employee’s tax card for the current tax year.',
    args: { input: t.arg({ type: CreatePayrollContractInput, required: true }) },
    resolve: (query, _root, args, ctx) => createPayrollContract(ctx, args, query),
  }),
  updatePayrollContract: t.prismaField({
    type: 'PayrollContract',
    description: 'Changes the fields sent. isActive true marks the business partner isEmployee; activating queues a tax-card fetch; deactivating queues the report of the employment’s end to the tax authority with endDate (today when none is sent or stored).',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdatePayrollContractInput, required: true }) },
    resolve: (query, _root, args, ctx) => updatePayrollContract(ctx, args, query),
  }),
}));
