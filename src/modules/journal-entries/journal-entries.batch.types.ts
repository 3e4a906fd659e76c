import { builder } from '../../builder.ts';
import { toSnake } from '../../shared/naming.ts';
import { createJournalEntries, MAX_BATCH_ENTRIES, type BatchItem } from './journal-entries.batch.ts';
import { entryFields } from './journal-entries.types.ts';

type ItemError = Extract<BatchItem, { error: unknown }>['error'];

/** A field path as the wire spells it: camelCase in GraphQL, snake_case on REST and in MCP tools (`snakeCase: true`). */
const spell = (path: string[], snake: boolean | null | undefined) => (snake ? path.map((p) => (/^[a-z][A-Za-z0-9]*$/.test(p) ? toSnake(p) : p)) : path);

const BatchIssue = builder.objectRef<{ path: string[]; message: string }>('JournalEntryBatchIssue').implement({
  description: 'One problem of a refused entry, at its field (relative to the entry).',
  fields: (t) => ({
    path: t.stringList({ args: { snakeCase: t.arg.boolean({ description: 'REST spelling (account_code) instead of GraphQL’s (accountCode)' }) }, resolve: (i, a) => spell(i.path, a.snakeCase) }),
    message: t.exposeString('message'),
  }),
});

const BatchError = builder.objectRef<ItemError>('JournalEntryBatchError').implement({
  description: 'Why one entry of a bulk posting was not written: the error a single create would have answered.',
  fields: (t) => ({
    status: t.exposeInt('status', { description: '400 (a rule of the entry) or 409 (its voucher or its year’s opening balance is taken)' }),
    code: t.exposeString('code'),
    message: t.string({
      args: { snakeCase: t.arg.boolean({ description: 'field paths in REST spelling' }) },
      resolve: (e, a) => (e.issues.length ? e.issues.map((i) => `${spell(i.path, a.snakeCase).join('.')}: ${i.message}`).join('; ') : e.message),
    }),
    issues: t.field({ type: [BatchIssue], resolve: (e) => e.issues }),
  }),
});

const BatchItemRef = builder.objectRef<BatchItem>('JournalEntryBatchItem').implement({
  description: 'One entry of a bulk posting, by its place in the request: its id and number when written, else its error.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'The entry’s position in `entries`, from 0' }),
    id: t.int({ nullable: true, resolve: (i) => ('id' in i ? i.id : null) }),
    sequenceNumber: t.int({ nullable: true, description: 'Null for a draft (isDraft true) and for an entry not written', resolve: (i) => ('id' in i ? i.sequenceNumber : null) }),
    error: t.field({ type: BatchError, nullable: true, resolve: (i) => ('error' in i ? i.error : null) }),
  }),
});

const BatchResult = builder.objectRef<{ data: BatchItem[] }>('JournalEntryBatchResult').implement({
  fields: (t) => ({ data: t.field({ type: [BatchItemRef], resolve: (r) => r.data }) }),
});

const BatchJournalEntryInput = builder.inputType('BatchJournalEntryInput', {
  description: 'One entry of a bulk posting, in the create shape; clientAccountId may be left out (sent, it must be the batch’s).',
  fields: (t) => ({ clientAccountId: t.int(), ...entryFields(t) }),
});

const CreateJournalEntriesInput = builder.inputType('CreateJournalEntriesInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    entries: t.field({ type: [BatchJournalEntryInput], required: true, description: `1 to ${MAX_BATCH_ENTRIES} entries, posted in this order` }),
    atomic: t.boolean({
      description: 'true (default): all or nothing, any error refuses the batch (400 listing every error under entries.<index>, 409 when all are conflicts); false: the valid entries are posted, the others answered with their error',
    }),
  }),
});

builder.mutationFields((t) => ({
  createJournalEntries: t.field({
    type: BatchResult,
    description:
      'Bulk posting: up to 1,000 entries of one client account in one transaction, each under every rule of createJournalEntry (balance, accounts, currencies, tax codes, dimensions, locked periods, voucher and opening-balance 409s), numbered in order in the hash chain; the rules’ reads are made once for the batch.',
    args: { input: t.arg({ type: CreateJournalEntriesInput, required: true }) },
    resolve: (_root, args, ctx) => createJournalEntries(ctx, args as never),
  }),
}));
