import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The end of an employment, reported to the tax authority by the employer (service credentials,
 * HTTP Basic, on behalf of its organisation number): the employment's arbeidsforhold id as the
 * a-melding carries it, the employee's national identity number when known, the start and end date
 * and the a-melding sluttaarsak. The authority answers a receipt; the same report sent again (same
 * employment and end date) answers the same receipt, so a retried call does no harm.
 */
export const endReportReceiptSchema = z.object({
  referanse: z.string().min(1),
  mottatt: z.string(),
});
export type EndReportReceipt = z.infer<typeof endReportReceiptSchema>;

export interface EmploymentEnd {
  orgNumber: string;
  arbeidsforholdId: string;
  nationalIdNumber: string | null;
  startDate: string;
  endDate: string;
  endDateReason: string | null;
}

export function reportEmploymentEnd(c: Connector, e: EmploymentEnd): Promise<EndReportReceipt> {
  return c.call(endReportReceiptSchema, 'POST', '/employments/end-reports', {
    body: {
      organisasjonsnummer: e.orgNumber,
      arbeidsforholdId: e.arbeidsforholdId,
      arbeidstakeridentifikator: e.nationalIdNumber,
      startdato: e.startDate,
      sluttdato: e.endDate,
      sluttaarsak: e.endDateReason,
    },
  });
}
