import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import { boundEnumCoercion } from './shared/enum-values.ts';

// Every module's types register themselves on the builder when imported.
import './modules/users/users.types.ts';
import './modules/client-accounts/client-accounts.types.ts';
import './modules/units/units.types.ts';
import './modules/changes/changes.types.ts';
import './modules/changes/changes.subscription.ts';
import './modules/tax-codes/tax-codes.types.ts';
import './modules/currencies/currencies.types.ts';
import './modules/ledger-accounts/ledger-accounts.types.ts';
import './modules/business-partners/business-partners.types.ts';
import './modules/bank-accounts/bank-accounts.types.ts';
import './modules/projects/projects.types.ts';
import './modules/departments/departments.types.ts';
import './modules/tags/tags.types.ts';
import './modules/webhooks/webhooks.types.ts';
import './modules/assets/assets.types.ts';
import './modules/documents/documents.types.ts';
import './modules/items/items.types.ts';
import './modules/item-collections/item-collections.types.ts';
import './modules/journal-entries/journal-entries.types.ts';
import './modules/journal-entries/journal-entries.batch.types.ts';
import './modules/saft-imports/saft-imports.types.ts';
import './modules/reconciliations/reconciliations.types.ts';
import './modules/bank-transactions/bank-transactions.types.ts';
import './modules/reconciliations/bank-payments.types.ts';
import './modules/reconciliations/matcher.types.ts';
import './modules/reports/reports.types.ts';
import './modules/reports/saft/saft.types.ts';
import './modules/files/files.types.ts';
import './modules/chat/chat.types.ts';
import './modules/tasks/tasks.types.ts';
import './modules/voucher-collections/voucher-collections.types.ts';
import './modules/vouchers/vouchers.types.ts';
import './modules/vouchers/voucher-documents.types.ts';
import './modules/invitations/invitations.types.ts';
import './modules/worker-tasks/worker-tasks.types.ts';
import './modules/notification-settings/notification-settings.types.ts';
import './modules/bank-integrations/bank-integrations.types.ts';
import './modules/yearly-accounts/yearly-accounts.types.ts';
import './modules/chat/chat-tools.types.ts';
import { registerAssistant } from './assistant/chat-listener.ts';
import './modules/portal-integrations/portal-integrations.types.ts';
import './modules/tax-returns/tax-returns.types.ts';
import './modules/payroll-garnishments/payroll-garnishments.types.ts';
import './modules/payroll-contracts/payroll-contracts.types.ts';
import './modules/equity/equity.types.ts';

export const schema = builder.toSchema();
// published chat messages set off code actions, approvals and the assistant, which run on this schema
registerAssistant(schema);
boundEnumCoercion(schema);

/** The SDL committed as schema.graphql: sorted, so diffs show real changes only. */
export const printedSchema = (): string => `${printSchema(lexicographicSortSchema(schema))}\n`;
