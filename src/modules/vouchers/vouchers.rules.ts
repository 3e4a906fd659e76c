import { z } from 'zod';
import { pageArgs, parseOrder, type PageLimits } from '../../shared/pagination.ts';
import { filterText, id, optionalText, required } from '../../shared/validation.ts';
import { DOCUMENT_TYPES } from '../documents/documents.rules.ts';

/** Voucher status values (spec 001): PENDING, DRAFT, ARCHIVED, BOOKED, DELETED. */
export const VOUCHER_STATUSES = ['PENDING', 'DRAFT', 'ARCHIVED', 'BOOKED', 'DELETED'] as const;


/** What happens to the sources of a merge or split (spec 001): NONE (default), ARCHIVE, DELETE. */
export const SOURCE_ACTIONS = ['NONE', 'ARCHIVE', 'DELETE'] as const;
export type SourceAction = (typeof SOURCE_ACTIONS)[number];

/** How a voucher was paid, as its statement says (the VoucherPaymentMethod enum of the schema). */
export const PAYMENT_METHODS = ['BANK_TRANSFER', 'COMPANY_CARD', 'PRIVATE_CARD', 'CASH', 'UNPAID'] as const;

/** GET /vouchers: per_page 100 by default (spec 001), at most 1000. */
export const VOUCHER_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 1000 };
/** GET /vouchers/{id}/statements: per_page 100 by default and at most. */
export const VOUCHER_STATEMENT_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

/** The most vouchers one merge combines, and the most ranges one split makes. */
export const MAX_MERGE_SOURCES = 100;
export const MAX_SPLIT_RANGES = 500;

/**
 * order_by of GET /vouchers: the public names and the SQL each sorts by (a fixed list: nothing of
 * the request goes into the ORDER BY but the direction).
 */
export const VOUCHER_ORDER_FIELDS = {
  id: 'v.id',
  created_at: 'v.created_at',
  updated_at: 'v.updated_at',
  document_date: 'v.document_date',
  file_name: 'f.file_name',
  size: 'f.size',
  status: 'v.status',
  type: 'v.type',
} as const;
/** Newest first when order_by is not given. */
export const DEFAULT_VOUCHER_ORDER = ['-created_at'];

/**
 * order_by: one string of terms (`document_date desc, id asc`; `-field` is descending too), read as
 * every list's order_by is (parseOrder), with the fields of VOUCHER_ORDER_FIELDS.
 */
export const voucherOrderBy = z
  .string()
  .max(200, 'must be at most 200 characters')
  .superRefine((raw, ctx) => {
    const order = parseOrder([raw], VOUCHER_ORDER_FIELDS);
    if (typeof order === 'string') ctx.addIssue({ code: 'custom', message: order });
  })
  .nullish();

/** A short code a list filter matches exactly (a document status, a ledger account code), upper-cased. */
const code = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const list = <T extends z.ZodType>(item: T, max = 100) => z.array(item).max(max, `names at most ${max} values`).nullish();
const date = z.date().nullish();

const sourceAction = z.enum(SOURCE_ACTIONS, { error: () => `must be one of ${SOURCE_ACTIONS.join(', ')}` }).nullish();

/** The inputs of every voucher operation (the GraphQL fields' arguments). */
export const voucherRules = {
  // a range whose from is after its to matches nothing (an empty page, as on every other list)
  list: z.object({
    clientAccountIds: list(id),
    status: list(z.enum(VOUCHER_STATUSES), VOUCHER_STATUSES.length * 2),
    documentTypes: list(z.string().trim().toUpperCase().pipe(z.enum(DOCUMENT_TYPES, { error: () => `must be a document type: ${DOCUMENT_TYPES.join(', ')}` }))),
    documentStatuses: list(code(20).toUpperCase()),
    paymentStatuses: list(code(20).toUpperCase()),
    businessPartnerIds: list(id, 1000),
    collectionIds: list(id, 1000),
    projectIds: list(id, 1000),
    accountCodes: list(code(10)),
    taxCodes: list(code(10)),
    documentDateFrom: date,
    documentDateTo: date,
    dueDateFrom: date,
    dueDateTo: date,
    postingDateFrom: date,
    postingDateTo: date,
    freeText: filterText,
    similarTo: id.nullish(),
    hasProject: z.boolean().nullish(),
    hasCollection: z.boolean().nullish(),
    hasJournalEntry: z.boolean().nullish(),
    hasDocument: z.boolean().nullish(),
    hasAttachment: z.boolean().nullish(),
    orderBy: voucherOrderBy,
    ...pageArgs,
  }),
  merge: z.object({
    input: z.object({
      voucherIds: z
        .array(id, required)
        .min(2, 'must name at least 2 vouchers')
        .max(MAX_MERGE_SOURCES, `must name at most ${MAX_MERGE_SOURCES} vouchers`)
        .superRefine((ids, ctx) => {
          const seen = new Set<number>();
          for (const [i, v] of ids.entries()) {
            if (seen.has(v)) ctx.addIssue({ code: 'custom', path: [i], message: `names voucher ${v} twice` });
            seen.add(v);
          }
        }),
      sourceAction,
    }),
  }),
  split: z.object({
    input: z.object({
      voucherId: id,
      pageRanges: z
        .array(
          z.array(z.number().int('must be whole page numbers'), { error: () => 'must be a pair [start_page, end_page]' }).length(2, 'must be exactly two integers [start_page, end_page]'),
          required,
        )
        .min(2, 'must have at least 2 ranges')
        .max(MAX_SPLIT_RANGES, `must have at most ${MAX_SPLIT_RANGES} ranges`),
      sourceAction,
    }),
  }),
  statements: z.object({ voucherId: id, ...pageArgs }),
  createStatement: z.object({
    voucherId: id,
    input: z
      .object({
        purpose: optionalText(1000),
        itemCategories: z
          .array(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'))
          .max(20, 'names at most 20 categories')
          .nullish(),
        paymentMethod: z.enum(PAYMENT_METHODS).nullish(),
        payorId: id.nullish(),
        projectId: id.nullish(),
        isPaid: z.boolean().nullish(),
        comment: optionalText(2000),
      })
      .refine((s) => Object.values(s).some((v) => v != null && !(Array.isArray(v) && v.length === 0)), 'give at least one field: purpose, item_categories, payment_method, payor_id, project_id, is_paid or comment'),
  }),
};

/** A page range as checked: 1-based, inclusive. */
export type PageRange = readonly [number, number];

/**
 * The split rules on ranges (spec 001): every range within 1..pageCount, start not after end, no two
 * ranges sharing a page. One issue per broken rule, each naming its range (page_ranges.<i>).
 */
export function rangeIssues(ranges: readonly PageRange[], pageCount: number): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  for (const [i, [start, end]] of ranges.entries()) {
    if (start < 1 || end < 1 || start > pageCount || end > pageCount) {
      issues.push({ path: ['pageRanges', i], message: `[${start}, ${end}] is out of bounds: the PDF has pages 1 to ${pageCount}` });
    } else if (start > end) {
      issues.push({ path: ['pageRanges', i], message: `[${start}, ${end}] starts after it ends` });
    }
  }
  if (issues.length) return issues;
  const byStart = [...ranges.entries()].sort((a, b) => a[1][0] - b[1][0]);
  for (let k = 1; k < byStart.length; k++) {
    const [i, [s, e]] = byStart[k];
    const [j, [ps, pe]] = byStart[k - 1];
    if (s <= pe) issues.push({ path: ['pageRanges', i], message: `[${s}, ${e}] overlaps range ${j} [${ps}, ${pe}]` });
  }
  return issues;
}
