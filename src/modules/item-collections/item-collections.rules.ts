import { z } from 'zod';
import { CollectionType, RecurringTerms, RefundPolicy } from '../../generated/prisma/enums.ts';
import { orderByNames, pageArgs } from '../../shared/pagination.ts';
import { currencyCode, decimal, evenWithIssues, filterText, id, immutable, required, text } from '../../shared/validation.ts';

/**
 * Rules of item collections and their entries (spec 001 "Item collection and entry").
 */

/**
 * Months between invoices of a recurring entry (spec 001: "integer months; 1 monthly, 3 quarterly, 6
 * half-yearly, 12 yearly" — examples, not a list: 24 bills every other year). At least 1.
 */
export const MIN_RECURRING_INTERVAL = 1;

/** recurring_interval is stored null when omitted and then treated as 1 (monthly). */
export const effectiveRecurringInterval = (interval: number | null | undefined): number => interval ?? 1;

/** A recurring period may be open at either end; when both are set the end is not before the start. */
export const recurringPeriodIsValid = (start: Date | null | undefined, end: Date | null | undefined): boolean =>
  !(start instanceof Date) || !(end instanceof Date) || end.getTime() >= start.getTime();

export const RECURRING_PERIOD_MESSAGE = 'must not be before the recurring start date';

/** order_by names of GET /item-collections/{id}/entries (snake_case, - for descending). */
export const ENTRY_ORDER: Record<string, string> = {
  id: 'id',
  item_id: 'itemId',
  description: 'description',
  quantity: 'quantity',
  price: 'price',
  currency_code: 'currencyCode',
  unit_id: 'unitId',
  tax_code_id: 'taxCodeId',
  business_partner_id: 'businessPartnerId',
  project_id: 'projectId',
  recurring_start_date: 'recurringStartDate',
  recurring_end_date: 'recurringEndDate',
  recurring_interval: 'recurringInterval',
  trial_end_date: 'trialEndDate',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

const collectionFields = {
  collectionType: z.enum(CollectionType, required),
  name: text(150).nullish(),
};

/** quantity and price are Decimal(18, 6) columns: values must fit exactly. */
const AMOUNT = { precision: 18, scale: 6 } as const;

const interval = `must be a whole number of months, at least ${MIN_RECURRING_INTERVAL}`;

const entryFields = {
  /** an item of the client account of the collection */
  itemId: id.nullish(),
  description: text(1000).nullish(),
  quantity: decimal(AMOUNT),
  price: decimal(AMOUNT),
  currencyCode: currencyCode.nullish(),
  unitId: id,
  taxCodeId: id,
  businessPartnerId: id.nullish(),
  projectId: id.nullish(),
  recurringStartDate: z.date().nullish(),
  recurringEndDate: z.date().nullish(),
  recurringTerms: z.enum(RecurringTerms).nullish(),
  recurringInterval: z.number().int('must be a whole number of months').min(MIN_RECURRING_INTERVAL, interval).nullish(),
  refundPolicy: z.enum(RefundPolicy).nullish(),
  trialEndDate: z.date().nullish(),
};

/** An entry's recurring period, checked on the fields given (an update checks the stored ones in the service). */
const recurringPeriod = (e: { recurringStartDate?: Date | null; recurringEndDate?: Date | null }, ctx: z.RefinementCtx) => {
  if (!recurringPeriodIsValid(e.recurringStartDate, e.recurringEndDate)) {
    ctx.issues.push({ code: 'custom', path: ['recurringEndDate'], message: RECURRING_PERIOD_MESSAGE, input: e.recurringEndDate });
  }
};

/** An entry reached through its collection (the REST path /item-collections/{id}/entries/{entry_id}). */
const withinCollection = { id, itemCollectionId: id.nullish() };

/** The inputs of every item collection operation (the GraphQL fields' arguments). */
export const itemCollectionRules = {
  list: z.object({
    clientAccountId: id,
    /** any of these types; empty or absent: all */
    collectionTypes: z.array(z.enum(CollectionType)).nullish(),
    /** case-insensitive part of the name */
    name: filterText,
    ...pageArgs,
  }),
  create: z.object({ input: z.object({ clientAccountId: id, ...collectionFields }) }),
  update: z.object({
    id,
    /** entries copy the client account, so it never changes */
    input: z.object(collectionFields).partial().extend({ clientAccountId: immutable }),
  }),
  listEntries: z.object({
    itemCollectionId: id,
    itemIds: z.array(id).nullish(),
    projectIds: z.array(id).nullish(),
    /** false (default): leave out entries a document line has consumed */
    includeUsed: z.boolean().nullish(),
    orderBy: orderByNames(ENTRY_ORDER),
    ...pageArgs,
  }),
  createEntry: z.object({ input: z.object({ itemCollectionId: id, ...entryFields }).superRefine(recurringPeriod, evenWithIssues) }),
  updateEntry: z.object({
    ...withinCollection,
    /** omitted fields keep their value, null clears an optional one; itemCollectionId may be sent back but not changed */
    input: z.object(entryFields).partial().extend({ itemCollectionId: immutable }).superRefine(recurringPeriod, evenWithIssues),
  }),
  deleteEntry: z.object(withinCollection),
};
