import { z } from 'zod';
import type { TaxReturnStatus } from '../../generated/prisma/enums.ts';
import { cursorRules, orderByNames, type PageLimits } from '../../shared/pagination.ts';
import { id } from '../../shared/validation.ts';
import type { FilingStatus } from '../../integrations/govportal/filings.ts';

/** Tax return statuses (spec 002 "Tax return" and "States and transitions"). */
export const TAX_RETURN_STATUSES = ['DRAFT', 'SUBMITTED', 'APPROVED', 'REJECTED', 'CANCELLED', 'IMPORTED'] as const satisfies readonly TaxReturnStatus[];

export const TAX_RETURN_STATUS_DESCRIPTIONS: Record<TaxReturnStatus, string> = {
  DRAFT: 'Sent to the portal but kept a draft there: its findings (error_message) block submission',
  SUBMITTED: 'Submitted through the portal; awaiting the tax authority’s assessment (refreshed from the portal)',
  APPROVED: 'Assessed and accepted by the tax authority',
  REJECTED: 'Assessed and rejected by the tax authority (error_message gives the reason)',
  CANCELLED: 'Cancelled (a DRAFT or SUBMITTED return, at the portal too)',
  IMPORTED: 'An earlier filing brought in from the portal by POST /tax-returns/import: never submitted, cancelled or refreshed here',
};

/** innsendingsformaal (spec 002 submit body): an original filing, or a correction of a filed one. */
export const INNSENDINGSFORMAAL = ['egenfastsetting', 'endringsanmodning'] as const;
export type Innsendingsformaal = (typeof INNSENDINGSFORMAAL)[number];

/** auth of POST /tax-returns/import (spec 002: "auto default, the service or maskinporten"). */
export const IMPORT_AUTH = ['auto', 'service', 'maskinporten'] as const;

/** The portal's instance status → the return's status. */
export const STATUS_OF_FILING: Record<FilingStatus, TaxReturnStatus> = {
  draft: 'DRAFT',
  submitted: 'SUBMITTED',
  approved: 'APPROVED',
  rejected: 'REJECTED',
  cancelled: 'CANCELLED',
};

/** Only these may be cancelled (spec 002: "Cancel: only DRAFT or SUBMITTED; otherwise 400"). */
export const CANCELLABLE: readonly TaxReturnStatus[] = ['DRAFT', 'SUBMITTED'];

/**
 * What blocks a second original filing for the account and year: a SUBMITTED or APPROVED return, or
 * an IMPORTED one that the portal shows as submitted or assessed. A DRAFT does not (the portal did not
 * take it: fixing the ledger and submitting again is the way on), nor do REJECTED and CANCELLED.
 */
export const blocksOriginal = (r: { status: TaxReturnStatus; portalStatus: string | null }): boolean =>
  r.status === 'SUBMITTED' || r.status === 'APPROVED' || (r.status === 'IMPORTED' && (r.portalStatus === 'submitted' || r.portalStatus === 'approved'));

/** What a correction (endringsanmodning) can correct: an assessed return, APPROVED or IMPORTED assessed. */
export const isFiled = (r: { status: TaxReturnStatus; portalStatus: string | null; portalInstanceId: string | null }): boolean =>
  !!r.portalInstanceId && (r.status === 'APPROVED' || (r.status === 'IMPORTED' && r.portalStatus === 'approved'));

/** GET /tax-returns: page_size 100 by default, at most 1000. */
export const TAX_RETURN_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 1000 };

export const TAX_RETURN_ORDER = {
  id: 'id',
  reporting_year: 'reportingYear',
  status: 'status',
  created_at: 'createdAt',
  submitted_at: 'submittedAt',
  client_account_id: 'clientAccountId',
} as const;
export const DEFAULT_TAX_RETURN_ORDER = ['-reporting_year', '-created_at', '-id'];

const year = z.number({ error: (i) => (i.input == null ? 'is required' : undefined) }).int('must be a whole number').min(2000, 'must be 2000 or later').max(2100, 'must be 2100 or earlier');
const date = z.date().nullish();
const pageNumber = z.number().int('must be an integer of at least 1').min(1, 'must be an integer of at least 1').nullish();

/** from/to default to 1 January and 31 December of the year; from must not be after to. */
const period = <T extends { reportingYear: number; fromDate?: Date | null; toDate?: Date | null }>(v: T) => ({
  ...v,
  fromDate: v.fromDate ?? new Date(Date.UTC(v.reportingYear, 0, 1)),
  toDate: v.toDate ?? new Date(Date.UTC(v.reportingYear, 11, 31)),
});
const ordered = (v: { fromDate: Date; toDate: Date }, ctx: z.RefinementCtx) => {
  if (v.fromDate.getTime() > v.toDate.getTime()) ctx.addIssue({ code: 'custom', path: ['toDate'], message: 'must not be before from_date' });
};

export const taxReturnRules = {
  list: z.object({
    clientAccountIds: z.array(id).max(1000, 'names at most 1000 client accounts').nullish(),
    reportingYear: year.nullish(),
    status: z.array(z.enum(TAX_RETURN_STATUSES)).nullish(),
    orderBy: orderByNames(TAX_RETURN_ORDER).nullish(),
    page: pageNumber,
    pageSize: pageNumber,
    ...cursorRules,
  }),
  prefilled: z.object({ clientAccountId: id, year }),
  preview: z.object({ clientAccountId: id, reportingYear: year, fromDate: date, toDate: date }).transform(period).superRefine(ordered),
  submit: z.object({
    input: z
      .object({
        clientAccountId: id,
        reportingYear: year,
        fromDate: date,
        toDate: date,
        ignoreWarnings: z.boolean().nullish().transform((v) => v ?? true),
        innsendingsformaal: z
          .string()
          .nullish()
          .transform((v) => v ?? 'egenfastsetting')
          .pipe(z.enum(INNSENDINGSFORMAAL, { error: () => `must be ${INNSENDINGSFORMAAL.join(' (an original filing, the default) or ')} (a correction)` })),
      })
      .transform(period)
      .superRefine(ordered),
  }),
  import: z.object({
    input: z.object({
      clientAccountId: id,
      year: year.nullish(),
      dryRun: z.boolean().nullish().transform((v) => v ?? false),
      auth: z
        .string()
        .nullish()
        .transform((v) => v ?? 'auto')
        .pipe(z.enum(IMPORT_AUTH, { error: () => `must be one of ${IMPORT_AUTH.join(', ')}` })),
    }),
  }),
};
