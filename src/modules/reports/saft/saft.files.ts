import type { Representations } from '../../../../rest-adapter/operation.ts';
import { requestSaftZip } from './saft.job.ts';
import { writeSaft } from './saft.service.ts';

/** The data-export route's result (the `saftExport` field under the wire names). */
interface ExportResult {
  client_account_id: number;
  date_from: string;
  date_to: string;
  created_at: string;
  file_name: string;
}

/**
 * spec 001 "/reports/data-export": Accept text/xml streams the file (written as it is read, never
 * whole in memory), application/zip queues the export job and answers 202 with its message. No JSON.
 */
export const saftFiles: Representations = {
  json: false,
  files: {
    'text/xml': async ({ ctx, result }) => {
      const r = result as ExportResult;
      const args = { clientAccountId: r.client_account_id, dateFrom: new Date(r.date_from), dateTo: new Date(r.date_to), createdAt: new Date(r.created_at) };
      return {
        contentType: 'text/xml; charset=utf-8',
        fileName: r.file_name,
        body: async (out) => {
          await writeSaft(ctx, args, out);
        },
      };
    },
    'application/zip': async ({ ctx, result }) => {
      const r = result as ExportResult;
      return { status: 202, json: await requestSaftZip(ctx, { clientAccountId: r.client_account_id, dateFrom: new Date(r.date_from), dateTo: new Date(r.date_to) }) };
    },
  },
  describe: {
    'text/xml': 'The SAF-T Financial 1.30 XML file (namespace urn:StandardAuditFile-Taxation-Financial:NO), streamed.',
    'application/zip': 'Not the file: 202 with {message}; the export runs as a job and the ZIP is e-mailed to the requesting user.',
  },
  responses: {
    202: {
      description: 'Accept: application/zip: the export is queued; the ZIP is e-mailed to the requesting user when ready.',
      schema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false },
    },
  },
};
