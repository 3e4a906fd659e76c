import { HEAVY_WEIGHT, type Rendering, type Representations } from '../operation.ts';
import type { ReportName } from '../../src/modules/reports/reports.presenters.ts';
import { REPORT_MEDIA_TYPES, type ReportMediaType } from '../../src/modules/reports/render/index.ts';
import { reportFile } from '../../src/modules/reports/report-files.ts';
import { requestSaftZip } from '../../src/modules/reports/saft/saft.job.ts';
import { writeSaft } from '../../src/modules/reports/saft/saft.service.ts';

// The non-JSON answers of the report routes (spec 001 "Reports": the format by Accept). They are the
// only entries that call services directly (STYLE: PDF, XLSX and other files), always after the
// entry's own GraphQL document has checked the arguments and the caller's access, and with the
// arguments its field was called with.

/**
 * The Excel, HTML and PDF answers of a report route (spec 001 "Reports": the format by Accept): the
 * report's rows from the service its field calls, with the arguments the route's GraphQL document
 * checked (reportFile), so a file covers the whole request (every ledger line, not the JSON's page).
 */
export function reportFiles(report: ReportName, extra: Pick<Representations, 'fileParameters'> = {}): Representations {
  const render =
    (mediaType: ReportMediaType): Rendering =>
    ({ ctx, args, query }) =>
      reportFile(ctx, report, args, query, mediaType);
  return {
    files: Object.fromEntries(Object.values(REPORT_MEDIA_TYPES).map((t) => [t, render(t)])),
    weight: HEAVY_WEIGHT,
    describe: {
      [REPORT_MEDIA_TYPES.xlsx]: 'The report as an Excel workbook: figures as numbers with number formats, grouped with subtotals; a ledger with every line of the period (not one page) and a running balance.',
      [REPORT_MEDIA_TYPES.html]: 'The report as a printable HTML page (the balance sheet and income statement with a small SVG chart); a ledger with every line of the period and a running balance.',
      [REPORT_MEDIA_TYPES.pdf]: 'The report as a paginated A4 PDF with the column headers on every page; a ledger with every line of the period and a running balance.',
    },
    ...extra,
  };
}

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
  weight: HEAVY_WEIGHT,
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
