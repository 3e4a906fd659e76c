import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decimal } from '@prisma/client/runtime/client';
import { Prisma } from '../../generated/prisma/client.ts';
import { enqueue } from '../../jobs/jobs.ts';
import { lockForTransaction } from '../../shared/advisory-locks.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { AppError, ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../shared/errors.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { createBusinessPartner } from '../business-partners/business-partners.service.ts';
import { requireManager } from '../client-accounts/client-accounts.service.ts';
import { createDepartment } from '../departments/departments.service.ts';
import { createJournalEntries, MAX_BATCH_ENTRIES } from '../journal-entries/journal-entries.batch.ts';
import { isBalanceAccount } from '../ledger-accounts/account-classes.ts';
import { createAccount } from '../ledger-accounts/ledger-accounts.service.ts';
import { createProject } from '../projects/projects.service.ts';
import { incomingOf } from '../reports/opening-balances.ts';
import { SaftChecker } from '../reports/saft/saft.checks.ts';
import { saftOpeningBalances } from '../reports/saft/saft.service.ts';
import type { SaftNode } from '../reports/saft/saft-reader.ts';
import { fileServices } from '../files/file-services.ts';
import { SpooledUpload } from '../../shared/scalars.ts';
import { headOf, orgDigits, readSaftFile, spoolSaftXml, transactionOf, type SaftHead, type SaftLine, type SaftTransaction } from './saft-file.ts';
import { saftImportRules as rules, type SaftImportStatus } from './saft-imports.rules.ts';

/** The job that runs an import (saft-imports.job.ts). */
export const SAFT_IMPORT_JOB = 'saft-imports.run';

export const SAFT_IMPORT_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

/** The official 1.30 XSD shipped with the export (beside the sources, or from the working directory in the bundle). */
function xsdPath(): string {
  const beside = fileURLToPath(new URL('../reports/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd', import.meta.url));
  return existsSync(beside) ? beside : 'src/modules/reports/saft/Norwegian_SAF-T_Financial_Schema_v_1.30.xsd';
}

/**
 * Longest xmllint run on a file of `bytes`; beyond it the file is refused (400) rather than holding
 * the request: 120 s, or the file read at 2 MB/s where that is longer (a 1 GiB file: 537 s), at most
 * 15 minutes (a larger SAFT_IMPORT_MAX_XML_MB may then refuse a file as too slow). xmllint --stream
 * measured 18–25 MB/s on 2 shared cores (a 1 GiB file 58 s, 65 MB 2.6 s; an earlier run 7.6 MB/s), so
 * a fixed 120 s was only twice the 1 GiB ceiling's time: 2 MB/s leaves a slower or busier machine
 * room, while a file that makes xmllint crawl is still stopped.
 */
export const xmllintTimeoutMs = (bytes: number) => Math.min(15 * 60_000, Math.max(120_000, Math.ceil(bytes / 2_000)));

/** One xmllint run on the XML file at `path`: its exit code (null when killed after `timeoutMs`) and stderr (the first 64 KB). */
function xmllint(args: string[], path: string, timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('xmllint', [...args, path], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 64_000) stderr += d.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`xmllint could not run (is libxml2-utils installed?): ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal ? null : code, stderr });
    });
  });
}

/** xmllint's status lines, not problems: "- validates", "- fails to validate", "- : failed to parse", and the streaming validator's "Unimplemented block at xmlschemas.c" notice. */
const NOT_A_PROBLEM = / fails to validate$| validates$|: failed to parse$|^Unimplemented block at /;

/**
 * Validates the XML against the official SAF-T Financial 1.30 XSD with xmllint, in a child process
 * (its memory is its own: a hostile file cannot take this process down). Answers the schema errors
 * (at most 20), empty when it validates.
 *
 * `--stream` validates while reading (libxml2's reader), so xmllint's memory does not grow with the
 * file: on a 64 MB, 200,000-line file 7 MB and 8.5 s, against 494 MB and 14.5 s building the tree.
 * It reports the same schema errors (the XSD's xs:key/xs:keyref select unprefixed names, so they
 * match nothing in the SAF-T namespace in either mode; checkSaft checks the references), but a file
 * that is not well-formed only says "failed to parse": then a second streaming pass without the
 * schema (0.4 s on that file) names the parser error and its line, as before.
 */
export async function xsdErrors(path: string): Promise<string[]> {
  const pretty = (stderr: string, code: number | null) => {
    const lines = stderr.split('\n').filter((l) => l.trim() && !NOT_A_PROBLEM.test(l) && !l.startsWith(`${path} `));
    // "<path>:12: element Foo: Schemas validity error : …" → "line 12: element Foo: …"
    return (lines.length ? lines : [`xmllint exited with ${code}`]).slice(0, 20).map((l) => l.split(path).join('-').replace(/^-:(\d+): /, 'line $1: ').replace('Schemas validity error : ', ''));
  };
  const timeoutMs = xmllintTimeoutMs((await stat(path)).size);
  const tooLong = [`the schema validation took longer than ${Math.round(timeoutMs / 1000)} s`];
  const valid = await xmllint(['--stream', '--noout', '--nonet', '--schema', xsdPath()], path, timeoutMs);
  if (valid.code === null) return tooLong;
  if (valid.code === 0) return [];
  if (/: failed to parse$/m.test(valid.stderr) && !/Schemas validity error/.test(valid.stderr)) {
    const wellFormed = await xmllint(['--stream', '--noout', '--nonet'], path, timeoutMs);
    if (wellFormed.code === null) return tooLong;
    if (wellFormed.code !== 0) return pretty(wellFormed.stderr, wellFormed.code);
  }
  return pretty(valid.stderr, valid.code);
}

/** checkSaft's problems that the import takes as warnings: a party named only on lines becomes a new business partner. */
const PARTY_ONLY_ON_LINES = /: (CustomerID|SupplierID) .+ is not in MasterFiles$/;

/** Where imports keep their XML between the upload and the job: $DATA_DIR/saft-imports, shared by the processes sharing DATA_DIR (any of them may run the job). */
export const saftImportDir = (dataDir: string) => join(dataDir, 'saft-imports');
/** The XML of import `id`, from its upload until its job has run. */
export const saftImportFile = (dataDir: string, id: number) => join(saftImportDir(dataDir), `${id}.xml`);
/** Where a POST spools an upload's XML while it checks it (renamed to saftImportFile when the import is recorded, else removed). */
const saftSpoolFile = (dataDir: string) => join(saftImportDir(dataDir), `upload-${randomUUID()}.xml`);
/** The names in saftImportDir, as the cleanup (cleanup.service.ts) tells them apart: a POST's spool file, an import's XML (its id). */
export const SAFT_FILE_NAMES = { spool: /^upload-[0-9a-f-]{36}\.xml$/, imported: /^([1-9]\d*)\.xml$/ } as const;

/**
 * How often a POST touches (mtime) the file it works on, from its spool file's last write until its
 * import is committed (the checks of a 1 GiB file take minutes): a file of a live request is never
 * older than this, so the cleanup's age (SAFT_ORPHAN_AGE_MS) tells a dead process's file from it,
 * however large the file or slow the machine.
 */
export const SAFT_FILE_TOUCH_MS = 60_000;

/** Touches `path()` every SAFT_FILE_TOUCH_MS until stopped (a file gone meanwhile is no error). */
export function keepTouched(path: () => string): () => void {
  const timer = setInterval(() => {
    const now = new Date();
    utimes(path(), now, now).catch(() => {});
  }, SAFT_FILE_TOUCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}

interface Checked {
  head: SaftHead;
  hash: string;
  transactions: number;
  warnings: string[];
}

/** checkSaft's problems split: what refuses the file, and what the import takes as warnings. */
function problemsOf(checker: SaftChecker): { problems: string[]; warnings: string[] } {
  return { warnings: checker.problems.filter((p) => PARTY_ONLY_ON_LINES.test(p)), problems: checker.problems.filter((p) => !PARTY_ONLY_ON_LINES.test(p)) };
}

const checksFailed = (problems: string[]) => ValidationError.field('file', `fails the SAF-T checks (totals, balance, references): ${problems.join('; ')}`);

/**
 * Everything about the XML file at `path` that needs no write, in this order, each a clear 4xx:
 * the XSD (xmllint on the file: 400 with its errors), then one streaming pass (saft-reader.ts) that
 * runs checkSaft's rules (SaftChecker: totals, balance, references; 400 with every problem), reads
 * the Header and MasterFiles and hashes the bytes, then the header's checks (checkHead).
 */
async function checkXml(ctx: RequestContext, clientAccountId: number, path: string, allowOtherOrganization: boolean): Promise<Checked> {
  const schema = await xsdErrors(path);
  if (schema.length) throw ValidationError.field('file', `does not validate against the SAF-T Financial 1.30 XSD: ${schema.join('; ')}`);
  const checker = new SaftChecker();
  let head: SaftHead | null = null;
  const { hash, reader } = await readSaftFile(path, {
    onMaster: (header, master) => {
      checker.master(master);
      head = headOf(header, master);
    },
    onTransaction: (_journal, t) => checker.transaction(t),
  });
  if (reader.root !== 'AuditFile') throw checksFailed(['no AuditFile root element']);
  checker.finish(reader.ledger);
  const { problems, warnings } = problemsOf(checker);
  if (problems.length) throw checksFailed(problems);
  await checkHead(ctx, clientAccountId, head!, hash, allowOtherOrganization);
  return { head: head!, hash, transactions: checker.numberOfTransactions, warnings };
}

/**
 * The checks of a file's Header against the account, at the upload and again in the job under the
 * import's lock: the company's organisation number (400 naming both, unless allowOtherOrganization),
 * the currency (400), a file imported before (409, by SHA-256 of the XML), posted entries of the
 * account inside the file's period (409) and, when the file continues the account's books, its
 * opening balances against the account's balances (409, continuesBooks). Answers whether it does.
 */
async function checkHead(ctx: RequestContext, clientAccountId: number, file: SaftHead, hash: string, allowOtherOrganization: boolean, exceptImportId?: number): Promise<boolean> {
  const account = await ctx.db.clientAccount.findUnique({ where: { id: clientAccountId }, select: { organizationNumber: true, accountingCurrency: true } });
  if (!account) throw new NotFoundError(`Client account ${clientAccountId}`);
  const theirs = orgDigits(file.registrationNumber);
  if (!allowOtherOrganization && theirs !== orgDigits(account.organizationNumber)) {
    throw ValidationError.field(
      'file',
      `the file is of organisation number ${theirs || '(none)'} (${file.companyName}), client account ${clientAccountId} has ${account.organizationNumber ?? '(none)'}: send allow_other_organization=true to import it anyway`,
    );
  }
  if (file.currency !== account.accountingCurrency.trim()) {
    throw ValidationError.field('file', `the file's DefaultCurrencyCode is ${file.currency}, the accounting currency of client account ${clientAccountId} is ${account.accountingCurrency.trim()}`);
  }
  await assertNotImported(ctx, clientAccountId, hash, exceptImportId);
  await assertNoOverlap(ctx, clientAccountId, file);
  return continuesBooks(ctx, clientAccountId, file);
}

async function assertNotImported(ctx: RequestContext, clientAccountId: number, hash: string, exceptImportId?: number) {
  const before = await ctx.db.saftImport.findFirst({
    where: { clientAccountId, fileHash: hash, dryRun: false, status: { in: ['QUEUED', 'RUNNING', 'COMPLETED'] }, ...(exceptImportId ? { NOT: { id: exceptImportId } } : {}) },
    select: { id: true, status: true },
  });
  if (before) throw new ConflictError(`This file was imported before into client account ${clientAccountId} (SAF-T import ${before.id}, ${before.status}): nothing is written`);
}

async function assertNoOverlap(ctx: RequestContext, clientAccountId: number, file: SaftHead) {
  const rows = await ctx.db.$queryRawUnsafe<{ n: number; first: string | null; last: string | null }[]>(
    `SELECT count(*)::int AS n, min(l.posting_date)::text AS first, max(l.posting_date)::text AS last
       FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
      WHERE l.client_account_id = $1 AND NOT e.is_draft AND l.posting_date BETWEEN $2::date AND $3::date`,
    clientAccountId,
    file.start,
    file.end,
  );
  const r = rows[0]!;
  if (r.n > 0) {
    throw new ConflictError(
      `The file's period ${file.start} – ${file.end} overlaps posted entries of client account ${clientAccountId} (${r.n} lines dated ${r.first} – ${r.last}): nothing is written`,
    );
  }
}

/**
 * Whether the file continues books the account already has: posted lines in the incoming balance of
 * the file's period (opening-balances.ts: dated before its first day, or an opening balance on it),
 * as when a client's years are imported one file at a time, in order. Then the file's opening
 * balances are those books' closing balances, already posted: they must be the opening balances our
 * own export writes for the account on the file's first day (saftOpeningBalances: result accounts
 * open at zero each year), account by account (409 naming the differences, nothing written), and
 * are not posted a second time. An account without such lines answers false: the file's opening
 * balances are posted (prepare).
 */
async function continuesBooks(ctx: RequestContext, clientAccountId: number, file: SaftHead): Promise<boolean> {
  const before = await ctx.db.$queryRaw<{ n: number }[]>(Prisma.sql`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id
     WHERE l.client_account_id = ${clientAccountId} AND NOT e.is_draft AND ${incomingOf(clientAccountId, file.start)} LIMIT 1) x`);
  if (!before[0]!.n) return false;
  const books = await saftOpeningBalances(ctx, clientAccountId, new Date(`${file.start}T00:00:00.000Z`));
  const inFile = new Map<string, Decimal>();
  for (const a of file.accounts) inFile.set(a.id, (inFile.get(a.id) ?? new Decimal(0)).plus(a.opening));
  const differ: string[] = [];
  for (const code of [...new Set([...books.keys(), ...inFile.keys()])].sort()) {
    const [ours, theirs] = [books.get(code) ?? new Decimal(0), inFile.get(code) ?? new Decimal(0)];
    if (!ours.equals(theirs)) differ.push(`${code}: file ${theirs.toFixed(2)}, account ${ours.toFixed(2)}`);
  }
  if (differ.length) {
    throw new ConflictError(
      `The file's opening balances on ${file.start} are not the balances of client account ${clientAccountId} on that day (debit − credit; ${differ.slice(0, 10).join('; ')}${differ.length > 10 ? `; and ${differ.length - 10} more` : ''}): the file does not continue the account's books, nothing is written`,
    );
  }
  return true;
}

/**
 * POST /saft-imports: the upload's XML onto disk under $DATA_DIR/saft-imports (a ZIP's one .xml
 * entry inflated there, bounded; never the whole file in memory), then checks it all (checkXml:
 * 400/409 at once, nothing written, the file removed), then records the import and queues its job,
 * which reads the file by the import's id; 202 {id, status}. The account's managers only (CA, AA,
 * BK: the same who may move the lock date), with write.
 */
export async function startSaftImport(ctx: RequestContext, args: Args<typeof rules.start>) {
  const input = parse(rules.start, args);
  await requireAccount(ctx, input.clientAccountId);
  await requireManager(ctx, input.clientAccountId);
  const { dataDir, saftImportMaxXmlBytes } = fileServices(ctx);
  await mkdir(saftImportDir(dataDir), { recursive: true });
  const spooled = saftSpoolFile(dataDir);
  let named: string | null = null;
  // the file this request works on stays young while it does (renamed when the import is recorded)
  let working = spooled;
  const stopTouching = keepTouched(() => working);
  try {
    await spoolSaftXml(input.content instanceof SpooledUpload ? input.content.path : input.content, spooled, saftImportMaxXmlBytes);
    const checked = await checkXml(ctx, input.clientAccountId, spooled, input.allowOtherOrganization ?? false);
    return await inTransaction(ctx, async (tx) => {
      const row = await tx.db.saftImport.create({
        data: {
          clientAccountId: input.clientAccountId,
          status: 'QUEUED',
          fileName: input.fileName,
          fileHash: checked.hash,
          dryRun: input.dryRun ?? false,
          allowOtherOrganization: input.allowOtherOrganization ?? false,
          total: checked.transactions,
          createdById: auditUserId(tx),
        },
        select: { id: true, status: true },
      });
      // named by the import before it commits: its job finds the file (a rollback leaves a file no row names, removed below)
      await rename(spooled, (working = named = saftImportFile(dataDir, row.id)));
      await enqueue(tx, SAFT_IMPORT_JOB, { importId: row.id });
      named = null;
      return row;
    });
  } finally {
    stopTouching();
    await rm(spooled, { force: true });
    if (named) await rm(named, { force: true });
  }
}

/** Progress of the imports this process is running (the row is written in the import's transaction, seen at its end). */
const live = new Map<number, { processed: number; total: number }>();

export async function getSaftImport(ctx: RequestContext, args: Args<typeof rules.get>) {
  const { id } = parse(rules.get, args);
  const row = requireOwned(ctx, `SAF-T import ${id}`, await ctx.db.saftImport.findUnique({ where: { id }, omit: { content: true } }));
  return withProgress(await row);
}

const withProgress = <T extends { id: number; processed: number; total: number }>(row: T) => ({ ...row, ...(live.get(row.id) ?? {}) });

export async function listSaftImports(ctx: RequestContext, args: Args<typeof rules.list>) {
  const { clientAccountId, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where = { clientAccountId };
  const page = await findPage(
    pageWindow(window, SAFT_IMPORT_PAGE_LIMITS),
    (w) => ctx.db.saftImport.findMany({ where, omit: { content: true }, orderBy: { id: 'desc' }, ...w }),
    () => ctx.db.saftImport.count({ where }),
  );
  return { ...page, nodes: page.nodes.map(withProgress) };
}

// ── The job ──────────────────────────────────────────────────────────────────────────────────────

/** Ends a dry run's transaction without writing, carrying its summary out. */
class DryRun extends Error {
  constructor(readonly summary: Record<string, unknown>) {
    super('dry run');
  }
}

/** What failed, as the import's `errors`: one sentence per problem (at most 100), with the field path when there is one. */
function errorsOf(e: unknown): { message: string; status: number }[] {
  if (e instanceof AppError) {
    const list = e.issues.length ? e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)) : [e.message];
    return list.slice(0, 100).map((message) => ({ message, status: e.status }));
  }
  return [{ message: 'the import failed unexpectedly; nothing was written', status: 500 }];
}

/**
 * The job `saft-imports.run`: the whole import in ONE transaction (all or nothing), then the row's
 * outcome. A second run (at-least-once delivery) of a finished import does nothing.
 */
export async function runSaftImport(ctx: RequestContext, importId: number, dataDir: string): Promise<{ status: SaftImportStatus }> {
  const row = await ctx.db.saftImport.findUnique({ where: { id: importId } });
  if (!row || row.status === 'COMPLETED' || row.status === 'FAILED') return { status: (row?.status ?? 'FAILED') as SaftImportStatus };
  const path = saftImportFile(dataDir, importId);
  // a row queued before the import streamed holds its XML itself
  if (row.content) {
    await mkdir(saftImportDir(dataDir), { recursive: true });
    await writeFile(path, row.content);
  }
  if (!existsSync(path)) {
    await ctx.db.saftImport.update({
      where: { id: importId },
      data: { status: 'FAILED', errors: [{ message: `the file of this import is no longer in ${saftImportDir(dataDir)} (a process without the upload's DATA_DIR ran the job?); nothing was written`, status: 500 }], finishedAt: new Date() },
    });
    return { status: 'FAILED' };
  }
  await ctx.db.saftImport.update({ where: { id: importId }, data: { status: 'RUNNING', content: null } });
  live.set(importId, { processed: 0, total: row.total });
  let status: SaftImportStatus;
  let summary: Record<string, unknown> | null = null;
  let errors: { message: string; status: number }[] | null = null;
  try {
    summary = await inTransaction(ctx, (tx) => applyImport(tx, row, path), { timeoutMs: 30 * 60_000 });
    status = 'COMPLETED';
  } catch (e) {
    if (e instanceof DryRun) {
      summary = e.summary;
      status = 'COMPLETED';
    } else {
      if (!(e instanceof AppError)) ctx.logger.error({ err: e, importId }, 'SAF-T import failed unexpectedly');
      errors = errorsOf(e);
      status = 'FAILED';
    }
  } finally {
    live.delete(importId);
    await rm(path, { force: true });
  }
  await ctx.db.saftImport.update({
    where: { id: importId },
    data: {
      status,
      summary: summary as never,
      errors: errors as never,
      processed: status === 'COMPLETED' ? row.total : 0,
      content: null,
      finishedAt: new Date(),
    },
  });
  return { status };
}

const ACCOUNT_CODE = /^[1-8]\d{3,7}$/;
const accountType = (code: string) =>
  code.startsWith('1') ? 'ASSET' : code.startsWith('20') ? 'EQUITY' : code.startsWith('2') ? 'LIABILITY' : code.startsWith('3') ? 'INCOME' : 'EXPENSE';
const PROJECT_TYPES = new Set(['P', 'PROSJEKT', 'PROJECT', 'PRO']);
const DEPARTMENT_TYPES = new Set(['A', 'AVD', 'AVDELING', 'DEPARTMENT', 'DEP', 'K', 'KOSTNADSSTED']);
const abs = (s: string) => (s.startsWith('-') ? s.slice(1) : s);
const isZero = (s: string) => new Decimal(s).isZero();

/**
 * The mapping (README "Mapping"), every write through the owning module's service, inside the
 * import's transaction, in ONE streaming pass over the file: the Header and MasterFiles arrive first
 * (checkHead again under the lock, then accounts, partners, tax codes, analysis and the opening
 * balance), then the transactions, gathered as they are read and posted a batch at a time (the
 * reading waits for each batch), checked again by checkSaft's rules as they pass (SaftChecker) and
 * the bytes hashed against the upload's.
 */
async function applyImport(tx: RequestContext, row: { id: number; clientAccountId: number; fileHash: string; dryRun: boolean; allowOtherOrganization: boolean; total: number }, path: string) {
  const clientAccountId = row.clientAccountId;
  await lockForTransaction(tx, 'saftImport', clientAccountId);
  const checker = new SaftChecker();
  let master: { header: SaftNode; master: SaftNode } | null = null;
  const read: { journal: SaftNode; t: SaftNode }[] = [];
  let mapping: Mapping | null = null;
  const afterChunk = async () => {
    if (!mapping && master) {
      mapping = await prepare(tx, row, headOf(master.header, master.master));
      master = null;
    }
    if (mapping && read.length >= MAX_BATCH_ENTRIES) await mapping.post(read.splice(0, read.length));
  };
  const { hash, reader } = await readSaftFile(
    path,
    {
      onMaster: (header, m) => {
        checker.master(m);
        master = { header, master: m };
      },
      onTransaction: (journal, t) => {
        checker.transaction(t);
        read.push({ journal, t });
      },
    },
    afterChunk,
  );
  if (hash !== row.fileHash) throw new ConflictError(`The file of SAF-T import ${row.id} changed since it was uploaded (SHA-256 ${hash}, was ${row.fileHash}): nothing is written`);
  if (reader.root !== 'AuditFile') throw checksFailed(['no AuditFile root element']);
  checker.finish(reader.ledger);
  const { problems, warnings } = problemsOf(checker);
  if (problems.length) throw checksFailed(problems);
  const done = mapping as Mapping | null;
  if (!done) throw checksFailed(['no MasterFiles']);
  await done.post(read.splice(0, read.length));
  return done.finish(checker.numberOfLines, warnings);
}

interface Mapping {
  /** maps and posts transactions (at most MAX_BATCH_ENTRIES) through the bulk posting */
  post(batch: { journal: SaftNode; t: SaftNode }[]): Promise<void>;
  /** throws every refused transaction (all of them, at most 100), else answers the summary (a dry run throws it) */
  finish(lines: number, warnings: string[]): Record<string, unknown>;
}

/** The Header and MasterFiles mapped (what must exist before the first transaction is posted), and the poster of the transactions. */
async function prepare(tx: RequestContext, row: { id: number; clientAccountId: number; fileHash: string; dryRun: boolean; allowOtherOrganization: boolean; total: number }, file: SaftHead): Promise<Mapping> {
  const clientAccountId = row.clientAccountId;
  // checked again under the lock: another import or posting may have come in since the upload
  const continued = await checkHead(tx, clientAccountId, file, row.fileHash, row.allowOtherOrganization, row.id);
  const issues: FieldIssue[] = [];
  const problem = (where: string, message: string) => issues.push({ path: [where], message });

  // accounts: by number; created from MasterFiles when missing
  const existing = new Map((await tx.db.account.findMany({ where: { clientAccountId }, select: { id: true, code: true } })).map((a) => [a.code, a.id]));
  let accountsCreated = 0;
  for (const a of file.accounts) {
    if (existing.has(a.id)) continue;
    if (!ACCOUNT_CODE.test(a.id)) {
      problem(`Account ${a.id}`, 'is not an account number we keep (4 to 8 digits starting with 1-8), and the client account has no such account');
      continue;
    }
    const grouping = a.groupingCategory && a.groupingCode && a.groupingCategory !== 'NA' ? { saftGroupingCategory: a.groupingCategory.slice(0, 60), saftGroupingCode: a.groupingCode.slice(0, 10) } : {};
    const created = await createAccount(tx, { input: { clientAccountId, code: a.id, name: a.description.slice(0, 250) || a.id, accountType: accountType(a.id), isActive: true, ...grouping } });
    existing.set(a.id, created.id);
    accountsCreated++;
  }

  // customers and suppliers: business partners by organisation number, else (a partner without one) by name, else created (also
  // those named only on lines). By name only the account's partners from before this import that have no organisation number, and
  // only a name one of them has: a client's years imported one file each meet their partners without a number again in every file.
  const partners = await tx.db.businessPartner.findMany({ where: { clientAccountId }, select: { id: true, organizationNumber: true, name: true } });
  const byOrg = new Map(partners.filter((p) => p.organizationNumber).map((p) => [p.organizationNumber!, p.id]));
  const byName = new Map<string, number | null>();
  for (const p of partners) if (!p.organizationNumber) byName.set(p.name, byName.has(p.name) ? null : p.id);
  const partyId = new Map<string, number>();
  let partnersCreated = 0;
  let partnersMatched = 0;
  const party = async (kind: 'customer' | 'supplier', id: string, name?: string, registrationNumber?: string) => {
    const key = `${kind}:${id}`;
    if (partyId.has(key)) return partyId.get(key)!;
    const org = orgDigits(registrationNumber);
    const named = (name || `${kind === 'customer' ? 'Kunde' : 'Leverandør'} ${id}`).slice(0, 250);
    let pid = (org.length === 9 ? byOrg.get(org) : undefined) ?? byName.get(named) ?? undefined;
    if (pid) partnersMatched++;
    else {
      const created = await createBusinessPartner(tx, {
        input: {
          clientAccountId,
          name: named,
          organizationNumber: org.length === 9 && isValidOrganizationNumber(org) ? org : null,
          isCustomer: kind === 'customer',
          isSupplier: kind === 'supplier',
        },
      });
      pid = created.id;
      if (org.length === 9) byOrg.set(org, pid);
      partnersCreated++;
    }
    partyId.set(key, pid);
    return pid;
  };
  for (const p of file.parties) await party(p.kind, p.id, p.name, p.registrationNumber);

  // tax codes: by StandardTaxCode
  const ours = await tx.db.taxCode.findMany({ where: { clientAccountId }, select: { code: true, standardTaxCode: true, isActive: true }, orderBy: { id: 'asc' } });
  const taxCode = new Map<string, string>();
  for (const [code, standard] of file.taxCodes) {
    const same = ours.filter((t) => t.standardTaxCode === standard);
    const pick = same.find((t) => t.code === code) ?? same.find((t) => t.isActive) ?? same[0];
    if (pick) taxCode.set(code, pick.code);
  }

  // analysis: project or department where the type says so, matched by name, else created
  const dims = new Map<string, { type: 'project' | 'department'; id: number }>();
  const unmapped = new Set<string>();
  const projects = new Map((await tx.db.project.findMany({ where: { clientAccountId }, select: { id: true, name: true } })).map((p) => [p.name, p.id]));
  const departments = new Map((await tx.db.department.findMany({ where: { clientAccountId }, select: { id: true, name: true } })).map((d) => [d.name, d.id]));
  let projectsCreated = 0;
  let departmentsCreated = 0;
  for (const a of file.analysis) {
    const type = a.type.toUpperCase();
    const name = a.description.slice(0, 250);
    if (PROJECT_TYPES.has(type)) {
      if (!projects.has(name)) {
        projects.set(name, (await createProject(tx, { input: { clientAccountId, name } } as never)).id);
        projectsCreated++;
      }
      dims.set(`${a.type}/${a.id}`, { type: 'project', id: projects.get(name)! });
    } else if (DEPARTMENT_TYPES.has(type)) {
      if (!departments.has(name)) {
        departments.set(name, (await createDepartment(tx, { input: { clientAccountId, name } } as never)).id);
        departmentsCreated++;
      }
      dims.set(`${a.type}/${a.id}`, { type: 'department', id: departments.get(name)! });
    } else unmapped.add(a.type);
  }
  if (issues.length) throw ValidationError.of(issues);

  // the opening balances of the file's first day: one opening-balance entry (a party's balance on its account as a line of its own),
  // unless the file continues the account's books (checked equal to them by checkHead: already posted)
  const openingLines: Record<string, unknown>[] = [];
  for (const a of continued ? [] : file.accounts) {
    if (isZero(a.opening)) continue;
    let rest = new Decimal(a.opening);
    for (const p of file.parties) {
      for (const b of p.balances) {
        if (b.accountId !== a.id || isZero(b.opening)) continue;
        rest = rest.minus(b.opening);
        openingLines.push(openingLine(file.start, a.id, b.opening, [{ type: 'businesspartner', id: partyId.get(`${p.kind}:${p.id}`)! }]));
      }
    }
    if (!rest.isZero()) openingLines.push(openingLine(file.start, a.id, rest.toFixed(2), []));
  }

  // posted in batches of the bulk posting (every rule of a single create), all in this transaction
  const failures: FieldIssue[] = [];
  let openingEntryId: number | null = null;
  let posted = 0;
  let processed = 0;
  const postEntries = async (chunk: { entry: Record<string, unknown>; transaction: SaftTransaction | null }[]) => {
    if (!chunk.length) return;
    const { data } = await createJournalEntries(tx, { input: { clientAccountId, entries: chunk.map((c) => c.entry), atomic: false } });
    const links: { saftImportId: number; journalEntryId: number; transactionId: string | null; journalId: string | null; voucherNumber: string | null }[] = [];
    for (const item of data) {
      const source = chunk[item.index]!;
      const where = source.transaction ? `Transaction ${source.transaction.transactionId} (journal ${source.transaction.journalId})` : `opening balance ${file.start}`;
      if ('error' in item) {
        for (const i of item.error.issues.length ? item.error.issues : [{ path: [], message: item.error.message }]) {
          if (failures.length < 100) failures.push({ path: [where, ...i.path], message: i.message });
        }
        continue;
      }
      posted++;
      if (!source.transaction) openingEntryId = item.id;
      const t = source.transaction;
      links.push({
        saftImportId: row.id,
        journalEntryId: item.id,
        transactionId: t ? t.transactionId.slice(0, 70) : null,
        journalId: t ? t.journalId.slice(0, 18) : null,
        voucherNumber: t ? `${t.voucherType ? `${t.voucherType} ` : ''}${t.transactionId}`.slice(0, 150) : null,
      });
    }
    if (links.length && !failures.length) await tx.db.saftImportEntry.createMany({ data: links });
    processed += chunk.filter((c) => c.transaction).length;
    live.set(row.id, { processed, total: row.total });
  };
  if (openingLines.length) await postEntries([{ entry: { description: `Inngående balanse ${file.start.slice(0, 4)} (SAF-T)`, isOpeningBalance: true, lines: openingLines }, transaction: null }]);

  return {
    // every transaction: a posted entry with its lines, dimensions and tax codes
    post: async (batch) => {
      for (let from = 0; from < batch.length; from += MAX_BATCH_ENTRIES) {
        const entries: { entry: Record<string, unknown>; transaction: SaftTransaction }[] = [];
        for (const { journal, t: node } of batch.slice(from, from + MAX_BATCH_ENTRIES)) {
          const t = transactionOf(journal, node);
          const lines: Record<string, unknown>[] = [];
          for (const [k, l] of t.lines.entries()) lines.push(await lineOf(t, l, k, file, taxCode, dims, unmapped, party));
          entries.push({ entry: { description: t.description.slice(0, 1000), lines }, transaction: t });
        }
        await postEntries(entries);
      }
    },
    finish: (lines, warnings) => {
      if (failures.length) throw ValidationError.of(failures);
      const summary = {
        dry_run: row.dryRun,
        company: { registration_number: file.registrationNumber, name: file.companyName },
        period: { start: file.start, end: file.end },
        accounts: { in_file: file.accounts.length, created: accountsCreated },
        business_partners: { in_file: file.parties.length, created: partnersCreated, matched: partnersMatched },
        projects_created: projectsCreated,
        departments_created: departmentsCreated,
        opening_balance_entry_id: row.dryRun ? null : openingEntryId,
        opening_balance_lines: openingLines.length,
        opening_balances_in_books: continued,
        journal_entries: posted - (openingEntryId ? 1 : 0),
        lines,
        analysis_types_not_mapped: [...unmapped],
        warnings,
      };
      if (row.dryRun) throw new DryRun(summary);
      return summary;
    },
  };
}

function openingLine(date: string, account: string, signed: string, dimensions: { type: string; id: number }[]) {
  const negative = signed.startsWith('-');
  return { postingDate: new Date(`${date}T00:00:00.000Z`), accountCode: account, debit: negative ? '0' : signed, credit: negative ? abs(signed) : '0', dimensions };
}

async function lineOf(
  t: SaftTransaction,
  l: SaftLine,
  k: number,
  file: SaftHead,
  taxCode: Map<string, string>,
  dims: Map<string, { type: 'project' | 'department'; id: number }>,
  unmapped: Set<string>,
  party: (kind: 'customer' | 'supplier', id: string) => Promise<number>,
): Promise<Record<string, unknown>> {
  const dimensions: { type: string; id: number }[] = [];
  if (l.customerId) dimensions.push({ type: 'businesspartner', id: await party('customer', l.customerId) });
  else if (l.supplierId) dimensions.push({ type: 'businesspartner', id: await party('supplier', l.supplierId) });
  for (const a of l.analysis) {
    const d = dims.get(`${a.type}/${a.id}`);
    if (d && !dimensions.some((x) => x.type === d.type)) dimensions.push(d);
    else if (!d) unmapped.add(a.type);
  }
  const amount = l.amount.amount;
  const foreign = l.amount.currencyCode && l.amount.currencyCode !== file.currency;
  const line: Record<string, unknown> = {
    lineId: k + 1,
    postingDate: new Date(`${l.valueDate ?? t.transactionDate}T00:00:00.000Z`),
    accountCode: l.accountId,
    description: l.description?.slice(0, 1000) ?? null,
    debit: l.debit ? amount : '0',
    credit: l.debit ? '0' : amount,
    quantity: l.quantity ?? null,
    dimensions,
  };
  if (foreign) {
    line.currencyCode = l.amount.currencyCode;
    if (l.amount.currencyAmount !== undefined) line[l.debit ? 'debitFc' : 'creditFc'] = abs(l.amount.currencyAmount);
    if (l.amount.exchangeRate !== undefined) line.exchangeRate = l.amount.exchangeRate;
  }
  if (l.tax?.code !== undefined) {
    const ours = taxCode.get(l.tax.code);
    if (ours === undefined) throw ValidationError.field(`Transaction ${t.transactionId} line ${l.recordId}`, `tax code ${l.tax.code} (StandardTaxCode ${file.taxCodes.get(l.tax.code)}) has no tax code of the client account with that standard code`);
    line.taxCode = ours;
    line.taxBaseAmount = l.tax.base ?? null;
    // on the line's own side a positive tax amount, on the other a negative one (the export's convention)
    line.taxAmount = l.tax.debit === l.debit ? abs(l.tax.amount) : `-${abs(l.tax.amount)}`;
  }
  return line;
}
