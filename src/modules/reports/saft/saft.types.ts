import { builder } from '../../../builder.ts';
import { requestSaftZip } from './saft.job.ts';
import { saftRules } from './saft.rules.ts';

/** The answer to a SAF-T export request: the file comes later, by e-mail. */
const SaftExportRequest = builder.objectRef<{ message: string }>('SaftExportRequest').implement({
  description: 'A SAF-T Financial export that has been started; the ZIP file is e-mailed to the requesting user when it is ready',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What happens next, e.g. to which address the file goes' }),
  }),
});

builder.mutationFields((t) => ({
  requestSaftExport: t.field({
    type: SaftExportRequest,
    nullable: true,
    description:
      "Starts a SAF-T Financial 1.30 export of the client account's posted ledger for the period (drafts left out). " +
      'The XML file is zipped and e-mailed to the requesting user (GET /reports/data-export with Accept: application/zip does the same).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      dateFrom: t.arg({ type: 'Date', required: true }),
      dateTo: t.arg({ type: 'Date', required: true }),
    },
    validate: saftRules.export,
    resolve: (_root, args, ctx) => requestSaftZip(ctx, args),
  }),
}));
