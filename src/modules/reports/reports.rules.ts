import { cursorRules } from '../../shared/pagination.ts';
import { z } from 'zod';
import { asLineKind, DIMENSION_KIND_NAMES, type DimensionKind } from '../journal-entries/dimensions.ts';
import { osloToday } from '../journal-entries/journal-entries.rules.ts';
import { id } from '../../shared/validation.ts';

// spec 001 "Reports": the parameters of the six reports, their defaults and what is refused (400
// common.validation_error in the v2 envelope).

/** A `dimensions` item, `type:id` (project:12, businesspartner:7). */
export interface DimensionFilter {
  type: DimensionKind;
  id: number;
}

const MAX_ID = 2 ** 31 - 1;
const DIMENSION_PAIR = new RegExp(`^(${DIMENSION_KIND_NAMES.join('|')}):([1-9]\\d{0,9})$`);

const dimensions = z
  .array(z.string())
  .max(50, 'names at most 50 dimensions')
  .nullish()
  .transform((items, ctx) => {
    const out: DimensionFilter[] = [];
    for (const raw of items ?? []) {
      const m = DIMENSION_PAIR.exec(raw.trim().toLowerCase());
      // ids are GraphQL Ints (32 bits), as every other id parameter: a larger one is no id (and no SQL integer)
      if (!m || Number(m[2]) > MAX_ID) {
        ctx.issues.push({ code: 'custom', input: raw, message: `'${raw.slice(0, 60)}' is not a type:id pair (id at most ${MAX_ID}); types: ${DIMENSION_KIND_NAMES.join(', ')}` });
        continue;
      }
      out.push({ type: m[1] as DimensionKind, id: Number(m[2]) });
    }
    return out;
  });

/** Account codes, or ranges of them ('1500', '3000-3999'). */
export interface CodeRange {
  from: string;
  to: string;
}

const accountCodes = z
  .array(z.string())
  .max(200, 'names at most 200 codes or ranges')
  .nullish()
  .transform((items, ctx) => {
    const out: CodeRange[] = [];
    for (const raw of items ?? []) {
      const m = /^(\d{1,10})(?:-(\d{1,10}))?$/.exec(raw.trim());
      if (!m) {
        ctx.issues.push({ code: 'custom', input: raw, message: `'${raw.slice(0, 60)}' is not an account code or a range such as 3000-3999` });
        continue;
      }
      out.push({ from: m[1], to: m[2] ?? m[1] });
    }
    return out;
  });

const taxCodes = z.array(z.string().trim().min(1).max(20, 'must be at most 20 characters')).max(100, 'names at most 100 tax codes').nullish();
const freeText = z.string().trim().max(200, 'must be at most 200 characters').nullish().transform((v) => v || null);
const date = z.date().nullish();
const requiredDate = z.date({ error: (issue) => (issue.input == null ? 'is required' : undefined) });
const flag = (fallback: boolean) => z.boolean().nullish().transform((v) => v ?? fallback);
const page = z.number().int('must be an integer of at least 1').min(1, 'must be an integer of at least 1').nullish();
const perPage = z.number().int('must be an integer from 1 to 1000').min(1, 'must be an integer from 1 to 1000').max(1000, 'must be an integer from 1 to 1000').nullish();
const groupByDimension = z.preprocess(asLineKind, z.enum(DIMENSION_KIND_NAMES as [DimensionKind, ...DimensionKind[]])).nullish().transform((v) => v ?? null);

const startOfYear = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), 0, 1));

/**
 * The period of the income statement and the general ledger when dates are left out: date_to today
 * (in Norway), date_from 1 January of date_to's year. The report files name the same period.
 */
export function defaultPeriod(dateFrom: Date | null | undefined, dateTo: Date | null | undefined): { dateFrom: Date; dateTo: Date } {
  const to = dateTo ?? osloToday();
  return { dateFrom: dateFrom ?? startOfYear(to), dateTo: to };
}

const ordered = <T extends { dateFrom: Date; dateTo: Date }>(value: T, ctx: z.RefinementCtx) => {
  if (value.dateFrom.getTime() > value.dateTo.getTime()) ctx.addIssue({ code: 'custom', path: ['dateTo'], message: 'must not be before date_from' });
};

export const reportRules = {
  balanceSheet: z.object({
    clientAccountId: id,
    reportDate: date.transform((v) => v ?? osloToday()),
    dimensions,
    includeDrafts: flag(false),
  }),
  incomeStatement: z
    .object({
      clientAccountId: id,
      dateFrom: date,
      dateTo: date,
      dimensions,
      includeDrafts: flag(false),
      freeText,
      groupByDimension,
    })
    .transform((v) => ({ ...v, ...defaultPeriod(v.dateFrom, v.dateTo) }))
    .superRefine(ordered),
  trialBalance: z
    .object({
      clientAccountId: id,
      dateFrom: requiredDate,
      dateTo: requiredDate,
      accountCodes,
      dimensions,
      includeDrafts: flag(false),
      includeCancelled: flag(true),
      includeZeroMovement: flag(false),
      freeText,
      groupByDimension,
    })
    .superRefine(ordered),
  generalLedger: z
    .object({
      clientAccountId: id,
      dateFrom: date,
      dateTo: date,
      accountCodes,
      dimensions,
      includeDrafts: flag(false),
      includeReconciled: flag(true),
      includeCancelled: flag(true),
      taxCodes,
      freeText,
      page,
      perPage,
      ...cursorRules,
    })
    .transform((v) => ({ ...v, ...defaultPeriod(v.dateFrom, v.dateTo) }))
    .superRefine(ordered),
  subLedger: z
    .object({
      clientAccountId: id,
      businessPartnerId: id.nullish(),
      dateFrom: requiredDate,
      dateTo: requiredDate,
      freeText,
      includeReconciled: flag(true),
      includeDrafts: flag(false),
      includeCancelled: flag(true),
      page,
      perPage,
      ...cursorRules,
    })
    .superRefine(ordered),
};

export type BalanceSheetArgs = z.output<typeof reportRules.balanceSheet>;
export type IncomeStatementArgs = z.output<typeof reportRules.incomeStatement>;
export type TrialBalanceArgs = z.output<typeof reportRules.trialBalance>;
export type GeneralLedgerArgs = z.output<typeof reportRules.generalLedger>;
export type SubLedgerArgs = z.output<typeof reportRules.subLedger>;

/** The sub-ledgers and their control accounts (spec 001: accounts-payable 2400, accounts-receivable 1500). */
export const SUB_LEDGER_ACCOUNTS = { payable: '2400', receivable: '1500' } as const;
export type SubLedger = keyof typeof SUB_LEDGER_ACCOUNTS;

/** General-ledger pages: page 1, 100 rows unless asked, at most 1,000. */
export const LEDGER_PAGE_LIMITS = { defaultPerPage: 100, maxPerPage: 1000 };

/** The first day of the year of a date: result accounts (classes 3-8) start each year at zero. */
export { startOfYear };
