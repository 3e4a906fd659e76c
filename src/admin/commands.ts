import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminSocketPath, askServer, type AdminRequest } from '../backup/admin-socket.ts';
import { BackupError, backupSummary, dumpOf, DUMP_FORMATS, restoreBackup, verifyBackup, writeBackup, type DumpFormat } from '../backup/backup.ts';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { DataDirLockedError } from '../db/lock.ts';
import type { Prisma } from '../db/database.ts';
import { JOBS_SCHEMA_VERSION, migrateJobs } from '../jobs/runner.ts';
import { createLogger } from '../shared/logger.ts';
import type { Role } from '../generated/prisma/enums.ts';
import { createBankAccount } from '../modules/bank-accounts/bank-accounts.service.ts';
import { confirmBankAgreement } from '../modules/bank-integrations/bank-integrations.service.ts';
import { createBusinessPartner } from '../modules/business-partners/business-partners.service.ts';
import { ROLE_IDS, isProviderIndustryCode } from '../modules/client-accounts/client-accounts.rules.ts';
import { createClientAccount, grantRole, linkProvider } from '../modules/client-accounts/client-accounts.service.ts';
import { createUser } from '../modules/users/users.service.ts';
import type { RequestContext } from '../shared/context.ts';
import { requireAccount } from '../shared/tenancy.ts';
import { verifyLedger } from '../modules/journal-entries/ledger-chain.ts';
import { JOB_STATES, listJobs, type JobState } from '../jobs/list.ts';
import { DEMO_LOGIN, seedDemo } from './seed-demo.ts';

/**
 * The admin commands: `npm run --silent admin -- <command> [--flag value ...]`. Command and flag
 * names are a public interface. Flags are parsed and checked here (bad usage: exit 2, before any
 * database is opened); everything else is the services' job, so the CLI and GraphQL share the rules.
 * Each command returns one object, printed as JSON with snake_case keys like the REST API.
 */

/** Bad invocation: unknown command or flag, missing or malformed value. The CLI exits 2. */
export class UsageError extends Error {}

/** id: a positive integer naming a row; count: a positive integer; choice: one of `choices` */
type FlagKind = 'string' | 'id' | 'count' | 'boolean' | 'choice';

interface FlagSpec {
  kind: FlagKind;
  required?: boolean;
  /** placeholder in the usage text */
  value: string;
  choices?: readonly string[];
}

const ROLES = ['AA', 'CA', 'BK', 'EM'] as const;

const req = (kind: FlagKind, value: string): FlagSpec => ({ kind, required: true, value });
const opt = (kind: FlagKind, value: string): FlagSpec => ({ kind, value });
const choice = (choices: readonly string[], required = false): FlagSpec => ({ kind: 'choice', required, value: choices.join('|'), choices });

export interface CommandContext {
  /** the system context every command calls the services with (absent for a command `withoutDatabase`) */
  ctx: RequestContext;
  /** for the seed and the extra reads a command prints (absent for a command `withoutDatabase`) */
  prisma: Prisma;
  config: Config;
}

/** Parsed flag values by flag name (without --): strings, positive integers, booleans, choices. */
export class Flags {
  constructor(private readonly values: ReadonlyMap<string, string | number | boolean>) {}
  string(name: string): string {
    return this.values.get(name) as string;
  }
  optionalString(name: string): string | undefined {
    return this.values.get(name) as string | undefined;
  }
  id(name: string): number {
    return this.values.get(name) as number;
  }
  optionalBoolean(name: string): boolean | undefined {
    return this.values.get(name) as boolean | undefined;
  }
  optionalCount(name: string): number | undefined {
    return this.values.get(name) as number | undefined;
  }
  role(name: string): Role {
    return this.values.get(name) as Role;
  }
  optionalChoice<T extends string>(name: string): T | undefined {
    return this.values.get(name) as T | undefined;
  }
}

export interface Command {
  summary: string;
  flags: Record<string, FlagSpec>;
  run(ctx: CommandContext, flags: Flags): Promise<Record<string, unknown>>;
  /**
   * Opens no database before running (the backup commands: a restore's target must stay empty,
   * and a backup file is checked without one); `run` is then given only the configuration.
   */
  withoutDatabase?: boolean;
  /** the exit status for a result that was printed (default 0): a verification that finds a fault exits 1 */
  exitCode?: (result: Record<string, unknown>) => number;
}

const iso = (d: Date) => d.toISOString();
const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);

/**
 * The embedded database is held by a running server: that server writes the backup, asked through
 * its admin socket (src/backup/admin-socket.ts); the answer is what the CLI prints, and says so.
 */
async function backupThroughServer(config: Config, held: DataDirLockedError, request: AdminRequest): Promise<Record<string, unknown>> {
  const socket = adminSocketPath(config);
  const reply = await askServer(socket, request);
  if (!reply) {
    throw new BackupError(
      `${held.message.split('\n')[0]}\nIt does not answer on ${socket}, so it cannot be asked to write a backup now; it backs up its embedded database itself, on BACKUP_SCHEDULE into ${config.backup.dir} (src/backup/README.md). Stop it to write a backup now.`,
    );
  }
  if (!reply.ok) throw new BackupError(`The running server that holds the embedded database (${socket}) did not write the backup: ${reply.error}`);
  return { ...reply.result, written_by: { server_pid: reply.pid, admin_socket: socket } };
}

/** Job data can hold whole attachments: strings over 500 characters are shown as their length. */
function elideLongStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 500 ? `<${value.length} characters>` : value;
  if (Array.isArray(value)) return value.map(elideLongStrings);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, elideLongStrings(v)]));
  return value;
}

export const COMMANDS: Record<string, Command> = {
  'create-user': {
    summary: 'Create a user who can log in (POST /v2/oauth/login)',
    flags: { email: req('string', 'E'), password: req('string', 'P'), 'first-name': opt('string', 'F'), 'last-name': opt('string', 'L') },
    async run({ ctx }, f) {
      const user = await createUser(ctx, {
        input: {
          email: f.string('email'),
          password: f.string('password'),
          firstName: f.optionalString('first-name') ?? null,
          lastName: f.optionalString('last-name') ?? null,
        },
      });
      return { id: user.id, email: user.email, first_name: user.firstName, last_name: user.lastName, created_at: iso(user.createdAt) };
    },
  },

  'create-client-account': {
    summary: 'Create a client account with the default chart of accounts, VAT codes and the company as a partner.\n      ORG-NO: 9 digits with a mod-11 check digit; SN2007: industry code, 69.2xx makes a provider (accounting firm); currency NOK by default',
    flags: {
      name: req('string', 'N'),
      'org-number': opt('string', 'ORG-NO'),
      'industry-code': opt('string', 'SN2007'),
      'vat-liable': opt('boolean', 'true|false'),
      'accounting-currency': opt('string', 'ISO-4217'),
    },
    async run({ ctx, prisma }, f) {
      const account = await createClientAccount(ctx, {
        input: {
          displayName: f.string('name'),
          organizationNumber: f.optionalString('org-number') ?? null,
          industryCode: f.optionalString('industry-code') ?? null,
          vatLiable: f.optionalBoolean('vat-liable') ?? null,
          accountingCurrency: f.optionalString('accounting-currency') ?? null,
        },
      });
      const [accounts, taxCodes, self] = await Promise.all([
        prisma.account.count({ where: { clientAccountId: account.id } }),
        prisma.taxCode.count({ where: { clientAccountId: account.id } }),
        prisma.businessPartner.findFirst({ where: { clientAccountId: account.id, isSelf: true }, select: { id: true } }),
      ]);
      return {
        id: account.id,
        display_name: account.displayName,
        unique_name: account.uniqueName,
        organization_number: account.organizationNumber,
        industry_code: account.industryCode,
        is_provider: isProviderIndustryCode(account.industryCode),
        vat_liable: account.vatLiable,
        accounting_currency: account.accountingCurrency,
        ledger_accounts: accounts,
        tax_codes: taxCodes,
        self_business_partner_id: self?.id ?? null,
        created_at: iso(account.createdAt),
      };
    },
  },

  'grant-role': {
    summary: 'Give a user a role on a client account (AA and BK only on provider accounts, 69.2xx)',
    flags: { email: req('string', 'E'), 'client-account-id': req('id', 'ID'), role: choice(ROLES, true) },
    async run({ ctx, prisma }, f) {
      const m = await grantRole(ctx, { input: { email: f.string('email'), clientAccountId: f.id('client-account-id'), role: f.role('role') } });
      const user = await prisma.user.findUniqueOrThrow({ where: { id: m.userId }, select: { email: true } });
      return { id: m.id, user_id: m.userId, email: user.email, client_account_id: m.clientAccountId, role: m.role, role_id: ROLE_IDS[m.role] };
    },
  },

  'link-provider': {
    summary: 'Record that a provider account (accounting firm) serves a client account',
    flags: { 'provider-account-id': req('id', 'P'), 'client-account-id': req('id', 'C') },
    async run({ ctx }, f) {
      const link = await linkProvider(ctx, { input: { providerAccountId: f.id('provider-account-id'), clientAccountId: f.id('client-account-id') } });
      return { id: link.id, provider_account_id: link.providerAccountId, client_account_id: link.clientAccountId };
    },
  },

  'create-business-partner': {
    summary: 'Create a business partner (customer, supplier, ...) in a client account',
    flags: { 'client-account-id': req('id', 'ID'), name: req('string', 'N'), 'org-number': opt('string', 'ORG-NO') },
    async run({ ctx }, f) {
      const p = await createBusinessPartner(ctx, {
        input: { clientAccountId: f.id('client-account-id'), name: f.string('name'), organizationNumber: f.optionalString('org-number') ?? null },
      });
      return {
        id: p.id,
        client_account_id: p.clientAccountId,
        name: p.name,
        organization_number: p.organizationNumber,
        is_customer: p.isCustomer,
        is_supplier: p.isSupplier,
        is_active: p.isActive,
        created_at: iso(p.createdAt),
      };
    },
  },

  'confirm-bank-agreement': {
    summary:
      "Record that the bank has confirmed a client account's signed integration agreement: the bank integration\n      (enabled with PATCH /integrations/banks/{bic}/status) is connected from then on (is_connected true)",
    flags: { 'client-account-id': req('id', 'ID'), bic: req('string', 'BIC') },
    async run({ ctx }, f) {
      const s = await confirmBankAgreement(ctx, { clientAccountId: f.id('client-account-id'), bic: f.string('bic') });
      return { client_account_id: f.id('client-account-id'), is_active: s.isActive, is_connected: s.isConnected, onboarding_information: s.onboardingInformation };
    },
  },

  'create-bank-account': {
    summary: "Register one of the company's own bank accounts, posting to ledger account 1920.\n      ACCOUNT-NO: 11 digits with a mod-11 check digit (1503.20.12342 accepted); currency NOK by default",
    flags: { 'client-account-id': req('id', 'ID'), 'account-number': req('string', 'ACCOUNT-NO'), bic: opt('string', 'BIC'), currency: opt('string', 'ISO-4217') },
    async run({ ctx, prisma }, f) {
      const b = await createBankAccount(ctx, {
        input: {
          clientAccountId: f.id('client-account-id'),
          accountNumber: f.string('account-number'),
          bic: f.optionalString('bic') ?? null,
          currencyCode: f.optionalString('currency'),
        },
      });
      const ledger = b.ledgerAccountId == null ? null : await prisma.account.findUnique({ where: { id: b.ledgerAccountId }, select: { code: true } });
      return {
        id: b.id,
        client_account_id: b.clientAccountId,
        business_partner_id: b.businessPartnerId,
        account_number: b.accountNumber,
        bic: b.bic,
        currency_code: b.currencyCode,
        ledger_account_id: b.ledgerAccountId,
        ledger_account_code: ledger?.code ?? null,
        is_active: b.isActive,
        created_at: iso(b.createdAt),
      };
    },
  },

  jobs: {
    summary: 'List background jobs, newest first, with their state (archived: completed more than 12 hours ago)',
    flags: { state: choice(JOB_STATES), name: opt('string', 'JOB'), limit: opt('count', 'N (default 50)') },
    async run({ prisma }, f) {
      const jobs = await listJobs(prisma, { state: f.optionalChoice<JobState>('state'), name: f.optionalString('name'), limit: f.optionalCount('limit') ?? 50 });
      return {
        count: jobs.length,
        jobs: jobs.map((j) => ({
          id: j.id,
          name: j.name,
          state: j.state,
          archived: j.archived,
          retry_count: j.retryCount,
          retry_limit: j.retryLimit,
          priority: j.priority,
          created_at: iso(j.createdOn),
          start_after: iso(j.startAfter),
          started_at: j.startedOn && iso(j.startedOn),
          completed_at: j.completedOn && iso(j.completedOn),
          data: elideLongStrings(j.data),
          output: elideLongStrings(j.output),
        })),
      };
    },
  },

  'verify-ledger': {
    summary:
      "Recompute a client account's hash chain of posted journal entries: numbers 1..N without gaps, every entry's hash, the chain head. Exit 1 when a link is broken, naming the first",
    flags: { 'client-account-id': req('id', 'ID') },
    exitCode: (result) => (result.ok ? 0 : 1),
    async run({ ctx, prisma }, f) {
      const clientAccountId = f.id('client-account-id');
      await requireAccount(ctx, clientAccountId);
      const v = await verifyLedger(prisma, clientAccountId);
      return {
        client_account_id: v.clientAccountId,
        ok: v.ok,
        entries: v.entries,
        first_broken: v.broken[0] ? { sequence_number: v.broken[0].sequenceNumber, entry_id: v.broken[0].entryId, reason: v.broken[0].reason } : null,
        broken_count: v.brokenCount,
        broken: v.broken.map((b) => ({ sequence_number: b.sequenceNumber, entry_id: b.entryId, reason: b.reason })),
      };
    },
  },

  backup: {
    summary:
      "Write a backup of the database and the file store to FILE (a ZIP with a manifest of row counts and ledger chain heads) while the server keeps serving.\n      PostgreSQL: pg_dump of one snapshot, or without pg_dump (or --format logical) our tables as JSON lines read in that one snapshot.\n      The embedded database: PGlite's data directory (or --format logical); a running server that holds it is asked to write it (DATA_DIR/admin.sock)",
    flags: { out: req('string', 'FILE'), format: choice(DUMP_FORMATS) },
    withoutDatabase: true,
    async run({ config }, f) {
      const out = resolve(f.string('out'));
      const format = f.optionalChoice<DumpFormat>('format');
      let db: Database | undefined;
      if (!config.databaseUrl) {
        try {
          db = await openDatabase({ dataDir: config.dataDir, purpose: 'admin backup' });
        } catch (e) {
          if (!(e instanceof DataDirLockedError)) throw e;
          return backupThroughServer(config, e, { command: 'backup', out, format });
        }
      }
      try {
        return backupSummary(await writeBackup(config, out, db, { format }));
      } finally {
        await db?.close();
      }
    },
  },

  restore: {
    summary:
      'Restore a backup into an empty database (DATABASE_URL, else the embedded one in DATA_DIR) and an empty file store, then check it: row counts and chain heads against the manifest, verify-ledger of every account.\n      A logical backup restores into either kind of database. Refuses a target that holds anything. Exit 1 when a check fails',
    flags: { from: req('string', 'FILE') },
    withoutDatabase: true,
    exitCode: (result) => (result.ok ? 0 : 1),
    async run({ config }, f) {
      const jobs = { version: JOBS_SCHEMA_VERSION, migrate: (db: Database) => migrateJobs(db, createLogger('silent')) };
      const r = await restoreBackup(config, f.string('from'), jobs);
      return {
        ok: r.ok,
        problems: r.problems,
        checked: r.checked,
        accounts_verified: r.accounts_verified,
        database: r.manifest.database,
        format: dumpOf(r.manifest),
        created_at: r.manifest.created_at,
        rows: sum(Object.values(r.manifest.tables)),
        files: r.files,
        notes: r.notes,
        migrations_applied: r.migrations_applied,
      };
    },
  },

  'verify-backup': {
    summary:
      'Check a backup without restoring it: every entry against the manifest\'s checksums; an embedded database\'s dump is opened in memory (a logical one loaded into memory) and its counts, chain heads and ledgers are checked too. Exit 1 when a check fails',
    flags: { from: req('string', 'FILE') },
    withoutDatabase: true,
    exitCode: (result) => (result.ok ? 0 : 1),
    async run(_ctx, f) {
      const scratch = mkdtempSync(join(tmpdir(), 'regnskap-verify-backup-'));
      try {
        const r = await verifyBackup(f.string('from'), scratch);
        return { ok: r.ok, problems: r.problems, checked: r.checked, accounts_verified: r.accounts_verified, database: r.manifest.database, format: dumpOf(r.manifest), created_at: r.manifest.created_at, app_version: r.manifest.app_version, migration: r.manifest.migration, rows: sum(Object.values(r.manifest.tables)), ledgers: r.manifest.chain_heads.length };
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  },

  'seed-demo': {
    summary: 'Create the demo firm, company and login (idempotent)',
    flags: {},
    async run({ prisma, config }, _f) {
      const demo = await seedDemo(prisma);
      return {
        created: demo.created,
        login: { email: DEMO_LOGIN.email, password: DEMO_LOGIN.password },
        user_id: demo.user.id,
        firm_id: demo.firm.id,
        company_id: demo.company.id,
        urls: {
          graphiql: `${config.baseUrl}/graphql`,
          rest: `${config.baseUrl}/api/v2`,
          login: `${config.baseUrl}/v2/oauth/login`,
        },
      };
    },
  },
};

export function usage(): string {
  const lines = ['Usage: npm run --silent admin -- <command> [--flag value ...]', '', 'Commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) {
    const flags = Object.entries(c.flags).map(([flag, s]) => (s.required ? `--${flag} ${s.value}` : `[--${flag} ${s.value}]`));
    lines.push(`  ${[name, ...flags].join(' ')}`, `      ${c.summary}`);
  }
  lines.push(
    '  help',
    '',
    'Prints one JSON object on stdout (exit 0), or an error on stderr (exit 2: usage, 1: anything else).',
    'Uses DATABASE_URL (PostgreSQL) when set, else the embedded database in DATA_DIR (stop the server first; backup asks a running server instead).',
  );
  return lines.join('\n');
}

export interface Invocation {
  name: string;
  command: Command;
  flags: Flags;
}

function parseValue(flag: string, spec: FlagSpec, raw: string): string | number | boolean {
  switch (spec.kind) {
    case 'string':
      return raw;
    case 'id':
    case 'count': {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
        throw new UsageError(`--${flag} must be a positive integer${spec.kind === 'id' ? ' id' : ''}, not '${raw}'`);
      }
      return n;
    }
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${flag} must be true or false, not '${raw}'`);
      return raw === 'true';
    case 'choice':
      if (!spec.choices!.includes(raw)) throw new UsageError(`--${flag} must be one of ${spec.choices!.join(', ')}, not '${raw}'`);
      return raw;
  }
}

/** `help`, no command, or `<command> --help`: null (print usage). Otherwise the command and its flags. */
export function parseInvocation(argv: readonly string[]): Invocation | null {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') return null;
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`Unknown command '${name}'`);
  const values = new Map<string, string | number | boolean>();
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i];
    if (token === '--help' || token === '-h') return null;
    if (!token.startsWith('--') || token === '--') throw new UsageError(`Unexpected argument '${token}' (flags are --name value)`);
    const eq = token.indexOf('=');
    const flag = token.slice(2, eq === -1 ? undefined : eq);
    const spec = Object.hasOwn(command.flags, flag) ? command.flags[flag] : undefined;
    if (!spec) {
      const known = Object.keys(command.flags).map((f) => `--${f}`).join(', ') || 'none';
      throw new UsageError(`Unknown flag --${flag} for ${name} (flags: ${known})`);
    }
    if (values.has(flag)) throw new UsageError(`--${flag} is given more than once`);
    let raw: string;
    if (eq !== -1) raw = token.slice(eq + 1);
    else {
      const next = rest[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`--${flag} needs a value (${spec.value})`);
      raw = next;
      i++;
    }
    values.set(flag, parseValue(flag, spec, raw));
  }
  const missing = Object.entries(command.flags).filter(([flag, s]) => s.required && !values.has(flag)).map(([flag]) => `--${flag}`);
  if (missing.length) throw new UsageError(`${name}: missing required ${missing.length > 1 ? 'flags' : 'flag'} ${missing.join(', ')}`);
  return { name, command, flags: new Flags(values) };
}
