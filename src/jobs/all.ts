/**
 * Every module that defines jobs, imported for its defineJob calls (as src/schema.ts imports every
 * module's types): the runner and migrateJobs create a queue and a worker for each.
 */
import '../mail/mail.job.ts';
import '../modules/oauth/cleanup.ts';
import '../modules/reconciliations/matcher.job.ts';
import '../modules/reports/saft/saft.job.ts';
import '../modules/saft-imports/saft-imports.job.ts';
import '../modules/vouchers/pipeline/pipeline.job.ts';
import '../modules/documents/documents.job.ts';
import '../modules/invitations/invitations.job.ts';
import '../modules/changes/changes.job.ts';
import '../modules/notification-settings/summaries.job.ts';
import '../assistant/assistant.job.ts';
import '../modules/tax-returns/tax-returns.job.ts';
import '../modules/payroll-garnishments/payroll-garnishments.job.ts';
import '../modules/payroll-contracts/payroll-contracts.job.ts';
import '../modules/webhooks/webhooks.job.ts';
import '../backup/backup.job.ts';
