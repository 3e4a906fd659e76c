import { builder } from '../../builder.ts';
import { runMatcher } from './matcher.service.ts';

/** What a matcher run wrote: the draft reconciliations (read them with the reconciliation queries). */
const ReconciliationMatcherResult = builder.objectRef<{ proposed: number; reconciliationIds: number[] }>('ReconciliationMatcherResult').implement({
  description: 'The draft reconciliations one run of the automatic matcher proposed',
  fields: (t) => ({
    proposed: t.exposeInt('proposed', { description: 'How many drafts this run wrote (0 when everything was already proposed)' }),
    reconciliationIds: t.exposeIntList('reconciliationIds', { description: 'The new drafts (is_draft true), in bank transaction order' }),
  }),
});

builder.mutationFields((t) => ({
  runReconciliationMatcher: t.field({
    type: ReconciliationMatcherResult,
    description:
      'Runs the automatic matcher for the client account now (it also runs after bank transactions arrive): proposes draft ' +
      'reconciliations of unbooked bank transactions against open receivables and payables (rules KID, AMOUNT, SUM). ' +
      'What is already in a draft is not proposed again.',
    args: { clientAccountId: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { proposed, proposals } = await runMatcher(ctx, args);
      return { proposed, reconciliationIds: proposals.map((p) => p.reconciliationId) };
    },
  }),
}));
