import { z } from 'zod';

/**
 * The tables whose writes are published as changes, with the resource name a change carries and
 * the semantic types some updates get instead of `<resource>.updated` (or an insert instead of
 * `<resource>.created`). The database does the recording: the migration
 * `*_changes_triggers` puts the trigger `changes_outbox` (function record_change()) on each of these
 * tables with these arguments, so every write of every module — Prisma or raw SQL, service or job —
 * records its change in its own transaction. test/changes/coverage.test.ts fails when the
 * database's triggers and this list differ, or when a table with a client_account_id is in neither
 * this list nor UNPUBLISHED_TABLES.
 *
 * The first semantic event that holds names the change (order matters: a reversal entry is inserted
 * posted and already cancelled 'C', and is journal_entry.posted). A semantic event is `<event>:set:<column>` (the column went from null to a value: journal_entry.posted
 * when posted_at is stamped) or `<event>:changed:<column>` (the column's value changed).
 */
export const CHANGE_SOURCES = {
  bank_accounts: { resource: 'bank_account' },
  bank_statements: { resource: 'bank_statement' },
  bank_transactions: { resource: 'bank_transaction' },
  bank_transaction_questions: { resource: 'bank_transaction_question' },
  bank_transaction_statements: { resource: 'bank_transaction_statement' },
  billing_add_ons: { resource: 'billing_add_on' },
  business_partners: { resource: 'business_partner' },
  client_accounts: { resource: 'client_account' },
  departments: { resource: 'department' },
  assets: { resource: 'asset' },
  tags: { resource: 'tag' },
  documents: { resource: 'document' },
  payment_requests: { resource: 'payment_request' },
  equity_transactions: { resource: 'equity_transaction' },
  files: { resource: 'file' },
  integration_settings: { resource: 'integration_setting' },
  invitations: { resource: 'invitation' },
  item_collections: { resource: 'item_collection' },
  item_collection_entries: { resource: 'item_collection_entry' },
  items: { resource: 'item' },
  journal_entries: { resource: 'journal_entry', events: ['posted:set:posted_at', 'cancelled:set:cancelled'] },
  accounts: { resource: 'ledger_account' },
  memberships: { resource: 'membership' },
  notification_settings: { resource: 'notification_setting' },
  payroll_contracts: { resource: 'payroll_contract' },
  payroll_tax_cards: { resource: 'payroll_tax_card' },
  payroll_garnishments: { resource: 'payroll_garnishment' },
  projects: { resource: 'project' },
  provider_relationships: { resource: 'provider_relationship' },
  reconciliations: { resource: 'reconciliation' },
  tasks: { resource: 'task' },
  tax_codes: { resource: 'tax_code' },
  tax_returns: { resource: 'tax_return' },
  vouchers: { resource: 'voucher', events: ['status_changed:changed:status'] },
  voucher_collections: { resource: 'voucher_collection' },
  voucher_questions: { resource: 'voucher_question' },
  voucher_statements: { resource: 'voucher_statement' },
  worker_tasks: { resource: 'worker_task' },
  yearly_account_submissions: { resource: 'yearly_account_submission' },
} as const satisfies Record<string, { resource: string; events?: readonly string[] }>;

/** Tables with a client_account_id that publish no changes of their own, and why. */
export const UNPUBLISHED_TABLES = {
  changes: 'the feed itself',
  journal_entry_lines: "part of their journal entry: an entry's lines are written with it and never edited",
  ledger_chains: 'the hash chain behind posting, internal',
  sequence_counters: 'number counters, internal',
  notification_deliveries: 'a log of mail sent, internal',
  role_changes: 'a log of membership role changes, read through memberships',
  chat_threads: "the assistant's conversations are their user's, not the account's data",
  payroll_garnishment_fetch_runs: 'a log of fetches from the authority, internal',
  govportal_system_users: 'credentials of a portal integration, internal',
  worker_task_results: "part of their worker task (worker_task.updated)",
  webhooks: "an integration's subscription to this feed, with its secret: plumbing, not the account's data",
  saft_imports: 'an import job and its progress, read through GET /saft-imports; what it writes (accounts, business partners, journal entries) is in the feed as those',
  saft_import_entries: 'which journal entry each SAF-T transaction became: part of its import',
} as const;

export const CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** Every type a change can have: `<resource>.<action>`, and the semantic events. */
export const CHANGE_TYPES: readonly string[] = Object.values(CHANGE_SOURCES).flatMap((s) => [
  ...CHANGE_ACTIONS.map((a) => `${s.resource}.${a}`),
  ...('events' in s ? s.events.map((e) => `${s.resource}.${e.split(':')[0]}`) : []),
]);

/** How many days changes are kept by default (CHANGE_RETENTION_DAYS). */
export const DEFAULT_CHANGE_RETENTION_DAYS = 35;

/** GET /changes and the changes connection: the cursor envelope of spec 000. */
export const changesArgs = z.object({
  clientAccountId: z.number().int().positive(),
  types: z
    .array(z.string().refine((t) => CHANGE_TYPES.includes(t), { message: 'is not a change type (see the README, "Change types")' }))
    .max(100)
    .nullish(),
});
