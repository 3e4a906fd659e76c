import { z } from 'zod';
import { id, required } from '../../../shared/validation.ts';

/**
 * The arguments of a SAF-T export (GraphQL requestSaftExport, GET /reports/data-export): a client
 * account and a period. PeriodYear in the file must lie between 1970 and 2100 (the XSD), so the
 * period must too.
 */
const exportArgs = z
  .object({
    clientAccountId: id,
    dateFrom: z.date(required),
    dateTo: z.date(required),
  })
  .superRefine((a, issue) => {
    for (const key of ['dateFrom', 'dateTo'] as const) {
      const year = a[key].getUTCFullYear();
      if (year < 1970 || year > 2100) issue.addIssue({ code: 'custom', path: [key], message: 'must be a date between 1970 and 2100 (SAF-T PeriodYear)' });
    }
    if (a.dateTo.getTime() < a.dateFrom.getTime()) issue.addIssue({ code: 'custom', path: ['dateTo'], message: 'must not be before dateFrom' });
  });

export const saftRules = { export: exportArgs };
