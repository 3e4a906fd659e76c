import type { Rendering, Representations } from '../../../rest-adapter/operation.ts';
import { presentReport, type ReportName } from './reports.presenters.ts';
import { renderReport, REPORT_MEDIA_TYPES, type ReportMediaType } from './render/index.ts';

/**
 * The Excel, HTML and PDF answers of a report route (spec 001 "Reports": the format by Accept): the
 * route's JSON result, presented once as a ReportTable and drawn in the asked format, so every format
 * shows the JSON's figures. The company line comes from the client account (already access-checked
 * by the operation that produced the result).
 */
export function reportFiles(report: ReportName, extra: Pick<Representations, 'fileParameters'> = {}): Representations {
  const render =
    (mediaType: ReportMediaType): Rendering =>
    async ({ ctx, result, query }) => {
      const account = await ctx.db.clientAccount.findUniqueOrThrow({
        where: { id: Number(query.client_account_id) },
        select: { displayName: true, organizationNumber: true },
      });
      const table = presentReport(report, result, { company: account, query });
      return renderReport(table, mediaType);
    };
  return {
    files: Object.fromEntries(Object.values(REPORT_MEDIA_TYPES).map((t) => [t, render(t)])),
    describe: {
      [REPORT_MEDIA_TYPES.xlsx]: 'The report as an Excel workbook: figures as numbers with number formats, grouped with subtotals.',
      [REPORT_MEDIA_TYPES.html]: 'The report as a printable HTML page (the balance sheet and income statement with a small SVG chart).',
      [REPORT_MEDIA_TYPES.pdf]: 'The report as a paginated A4 PDF with the column headers on every page.',
    },
    ...extra,
  };
}
