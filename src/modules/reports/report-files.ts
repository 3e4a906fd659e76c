import type { RequestContext } from '../../shared/context.ts';
import { fileServices } from '../files/file-services.ts';
import { presentReport, type ReportName, type ReportRows } from './reports.presenters.ts';
import { renderReport, type RenderedReport, type ReportMediaType } from './render/index.ts';
import { balanceSheet, generalLedgerFile, incomeStatement, subLedgerFile, trialBalance } from './reports.service.ts';

/**
 * The rows of each report's file, from the service the report's GraphQL field calls, with the same
 * arguments: the whole period (a ledger's every page, read in batches), never the JSON page.
 */
const ROWS: { [R in ReportName]: (ctx: RequestContext, args: unknown) => Promise<ReportRows[R]> } = {
  'balance-sheet': balanceSheet,
  'income-statement': incomeStatement,
  'trial-balance': trialBalance,
  'general-ledger': generalLedgerFile,
  'accounts-payable': (ctx, args) => subLedgerFile(ctx, 'payable', args),
  'accounts-receivable': (ctx, args) => subLedgerFile(ctx, 'receivable', args),
};

/**
 * A report as a file (spec 001 "Reports": the format by Accept): its rows from the service, presented
 * once as a ReportTable (reports.presenters.ts) and drawn in the asked format, so every format shows
 * the same figures. `args` are the report field's arguments (clientAccountId among them, whose access
 * the service checks); `query` the request's parameters as sent, for the subtitle and the file name.
 */
export async function reportFile<R extends ReportName>(
  ctx: RequestContext,
  report: R,
  args: Readonly<Record<string, unknown>>,
  query: Record<string, string | undefined>,
  mediaType: ReportMediaType,
): Promise<RenderedReport> {
  const rows = await ROWS[report](ctx, args);
  const company = await ctx.db.clientAccount.findUniqueOrThrow({
    where: { id: Number(args.clientAccountId) },
    select: { displayName: true, organizationNumber: true },
  });
  const table = await presentReport(report, rows, { company, query });
  return renderReport(table, mediaType, fileServices(ctx).heavy);
}
