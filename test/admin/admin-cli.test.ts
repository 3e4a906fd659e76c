import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { baseEnv, cli, cwd, json, SLOW, START, type CliResult } from '../support/cli.ts';
import { freePort } from '../support/free-port.ts';
import { targets } from '../support/harness.ts';
import pg from 'pg';

/** A random valid organization number (mod-11), printed with spaces: "923 609 016". */
function orgNumber(): { spaced: string; digits: string } {
  const w = [3, 2, 7, 6, 5, 4, 3, 2];
  for (;;) {
    const body = String(randomInt(80_000_000, 99_999_999));
    const rest = w.reduce((acc, x, i) => acc + x * Number(body[i]), 0) % 11;
    const check = rest === 0 ? 0 : 11 - rest;
    if (check === 10) continue;
    const digits = body + check;
    return { digits, spaced: `${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}` };
  }
}

const tmpDirs: string[] = [];
const tmp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tmpDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
});

// A real server on its own embedded database, started with the file so it boots while the other
// cases run; the case that needs it comes last. (afterAll hooks run in reverse: stopped before rm.)
const serverDataDir = tmp('regnskap-cli-server-');
/** CI runs one suite per database (TEST_TARGETS): the cases about the embedded database run in its suite */
const withPglite = targets().includes('pglite');
let server: ChildProcess | undefined;
let serverReady: Promise<void>;

beforeAll(() => {
  if (!withPglite) return;
  serverReady = (async () => {
    const port = await freePort();
    // detached: its own process group, so afterAll stops it and anything it starts
    const child = spawn(START[0], [START[1]], {
      cwd,
      env: { ...baseEnv(), DATA_DIR: serverDataDir, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    server = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), SLOW);
      const onData = (d: Buffer) => {
        output += d;
        if (output.includes('GraphiQL')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}:\n${output}`));
      });
    });
  })();
  serverReady.catch(() => undefined); // reported by the case that awaits it
});

afterAll(async () => {
  if (!server?.pid || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server!.once('exit', resolve));
  process.kill(-server.pid, 'SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (server.exitCode === null && server.signalCode === null) process.kill(-server.pid, 'SIGKILL');
});

// no database is opened: once per run, in the run that has the embedded database
describe.runIf(withPglite).concurrent('admin CLI usage errors (exit 2, nothing on stdout, no database opened)', () => {
  // DATA_DIR is a path that cannot be created: a command that got as far as opening it would fail with 1.
  const env = { ...baseEnv(), DATA_DIR: '/proc/no-such-dir' };

  it.each([
    ['no command', []],
    ['help', ['help']],
  ])('%s prints the usage with every command on stderr', async (_case, args) => {
    const res = await cli(args, env);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    for (const command of ['create-user', 'create-client-account', 'grant-role', 'link-provider', 'create-business-partner', 'create-bank-account', 'confirm-bank-agreement', 'seed-demo', 'jobs']) {
      expect(res.stderr).toContain(command);
    }
  });

  it.each([
    ['an unknown command', ['drop-everything'], /Unknown command 'drop-everything'/],
    ['an unknown flag', ['create-user', '--email', 'a@b.no', '--password', 'x', '--admin', 'true'], /Unknown flag --admin for create-user/],
    ['a missing required flag', ['create-user', '--email', 'a@b.no'], /missing required flag --password/],
    ['a flag without a value', ['create-business-partner', '--client-account-id', '1', '--name'], /--name needs a value/],
    ['a non-integer id', ['link-provider', '--provider-account-id', '1.5', '--client-account-id', '2'], /--provider-account-id must be a positive integer/],
    ['a bad boolean', ['create-client-account', '--name', 'X AS', '--vat-liable', 'yes'], /--vat-liable must be true or false/],
    ['an unknown role', ['grant-role', '--email', 'a@b.no', '--client-account-id', '1', '--role', 'ADMIN'], /--role must be one of AA, CA, BK, EM/],
  ])('%s', async (_case, args, message) => {
    const res = await cli(args, env);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  });
});

const postgresUrl = inject('postgresUrl');
// the run's databases (TEST_TARGETS): CI runs one suite per database, and each runs its own CLI cases
const cliTargets = (['pglite', 'postgres'] as const).map((target) => ({ target, skip: !targets().includes(target) }));


/**
 * The cases of a target run concurrently with the other target's (and the server test's); within a
 * target each step (a CLI run) is started once and awaited by the cases that build on it. The
 * embedded database admits one process at a time, so PGlite runs are queued.
 */
describe.concurrent.each(cliTargets)('admin CLI commands ($target)', ({ target, skip }) => {
  const env: NodeJS.ProcessEnv =
    target === 'pglite'
      ? { ...baseEnv(), DATA_DIR: tmp('regnskap-cli-') } // one data dir for all cases: initdb takes seconds
      : { ...baseEnv(), DATABASE_URL: postgresUrl ?? '' };
  let queue: Promise<unknown> = Promise.resolve();
  const runWith = (extra: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> => {
    if (target !== 'pglite') return cli(args, { ...env, ...extra });
    const next = queue.then(() => cli(args, { ...env, ...extra }));
    queue = next.catch(() => undefined);
    return next;
  };
  const run = (...args: string[]) => runWith({}, args);
  const once = <T>(fn: () => Promise<T>) => {
    let p: Promise<T> | undefined;
    return () => (p ??= fn());
  };
  const email = `cli-${randomBytes(4).toString('hex')}@test.example`;
  const org = orgNumber();
  const user = once(async () => run('create-user', '--email', email, '--password', 'hemmelig-passord', '--first-name', 'Kari', '--last-name', 'Nordmann'));
  const firm = once(async () => run('create-client-account', '--name', `CLI Regnskap ${randomBytes(3).toString('hex')} AS`, '--industry-code', '69.201', '--vat-liable', 'true'));
  const company = once(async () => run('create-client-account', '--name', 'CLI Kunde AS', '--org-number', org.spaced, '--accounting-currency', 'NOK'));
  const companyId = async () => String(JSON.parse((await company()).stdout).id);

  it.skipIf(skip)('create-user prints the user (no password hash); works on a fresh database', async () => {
    const out = json(await user());
    expect(out).toEqual({ id: expect.any(Number), email, first_name: 'Kari', last_name: 'Nordmann', created_at: expect.any(String) });
    expect(JSON.stringify(out)).not.toMatch(/hash|argon|hemmelig/);
  }, SLOW);

  it.skipIf(skip)('create-client-account creates the account with the default chart of accounts, tax codes and the company as a partner', async () => {
    expect(json(await firm())).toMatchObject({ id: expect.any(Number), industry_code: '69.201', is_provider: true, vat_liable: true, accounting_currency: 'NOK' });
    const out = json(await company());
    expect(out).toMatchObject({
      id: expect.any(Number),
      display_name: 'CLI Kunde AS',
      organization_number: org.digits,
      is_provider: false,
      vat_liable: false,
      accounting_currency: 'NOK',
      self_business_partner_id: expect.any(Number),
    });
    expect(out.ledger_accounts).toBeGreaterThan(100);
    expect(out.tax_codes).toBeGreaterThan(10);
  }, SLOW);

  it.skipIf(skip)('grant-role gives CA on a company; AA is refused on a non-provider account (exit 1, message on stderr)', async () => {
    const [userId, id] = [json(await user()).id, await companyId()];
    const ca = json(await run('grant-role', '--email', email, '--client-account-id', id, '--role', 'CA'));
    expect(ca).toEqual({ id: expect.any(Number), user_id: userId, email, client_account_id: Number(id), role: 'CA', role_id: 3 });
    const aa = await run('grant-role', '--email', email, '--client-account-id', id, '--role', 'AA');
    expect(aa.code).toBe(1);
    expect(aa.stdout).toBe('');
    expect(aa.stderr).toMatch(/AA can only be held on a provider account/);
  }, SLOW);

  it.skipIf(skip)('link-provider links the firm to the company', async () => {
    const [firmId, id] = [json(await firm()).id, await companyId()];
    const out = json(await run('link-provider', '--provider-account-id', String(firmId), '--client-account-id', id));
    expect(out).toEqual({ id: expect.any(Number), provider_account_id: firmId, client_account_id: Number(id) });
  }, SLOW);

  it.skipIf(skip)('create-business-partner creates a partner (digits of the organization number stored)', async () => {
    const id = await companyId();
    const out = json(await run('create-business-partner', '--client-account-id', id, '--name', 'Bønnegrossisten AS', '--org-number', '974 760 673'));
    expect(out).toMatchObject({ id: expect.any(Number), client_account_id: Number(id), name: 'Bønnegrossisten AS', organization_number: '974760673', is_active: true });
  }, SLOW);

  it.skipIf(skip)('create-bank-account registers an own account on 1920; a bad mod-11 number is refused (exit 1)', async () => {
    const id = await companyId();
    const out = json(await run('create-bank-account', '--client-account-id', id, '--account-number', '1503.20.12342', '--bic', 'DNBANOKK'));
    expect(out).toMatchObject({
      id: expect.any(Number),
      client_account_id: Number(id),
      business_partner_id: null,
      account_number: '15032012342',
      bic: 'DNBANOKK',
      currency_code: 'NOK',
      ledger_account_id: expect.any(Number),
      ledger_account_code: '1920',
    });
    const bad = await run('create-bank-account', '--client-account-id', id, '--account-number', '1503.20.12343');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/accountNumber: must be an 11-digit Norwegian bank account number with a valid mod-11 check digit/);
  }, SLOW);

  it.skipIf(skip)('confirm-bank-agreement records the bank\'s confirmation only of an enabled bank integration (exit 1 otherwise); an unsupported bank is refused', async () => {
    const id = await companyId();
    const notEnabled = await run('confirm-bank-agreement', '--client-account-id', id, '--bic', 'DNBANOKKXXX');
    expect(notEnabled.code).toBe(1);
    expect(notEnabled.stderr).toMatch(/DNB Bank ASA integration is not enabled/);
    const unsupported = await run('confirm-bank-agreement', '--client-account-id', id, '--bic', 'DEUTDEFF');
    expect(unsupported.code).toBe(1);
    expect(unsupported.stderr).toMatch(/DEUTDEFF/);
  }, SLOW);

  it.skipIf(skip)('seed-demo prints the demo login, the firm and company ids and the URLs from BASE_URL', async () => {
    const out = json(await runWith({ BASE_URL: 'http://regnskap.test:8080/' }, ['seed-demo']));
    expect(out).toEqual({
      created: expect.any(Boolean),
      login: { email: 'demo@example.no', password: 'demo-password' },
      user_id: expect.any(Number),
      firm_id: expect.any(Number),
      company_id: expect.any(Number),
      urls: {
        graphiql: 'http://regnskap.test:8080/graphql',
        rest: 'http://regnskap.test:8080/api/v2',
        login: 'http://regnskap.test:8080/v2/oauth/login',
      },
    });
  }, SLOW);

  /** Runs SQL on the target's database while no CLI holds it (the tamperer of the verify-ledger case). */
  const sql = (statement: string) => {
    const next = queue.then(async () => {
      if (target === 'pglite') {
        const { PGlite } = await import('@electric-sql/pglite');
        const engine = await PGlite.create(join(env.DATA_DIR!, 'pglite'));
        try {
          await engine.query(statement);
        } finally {
          await engine.close();
        }
      } else {
        const client = new pg.Client({ connectionString: postgresUrl ?? undefined });
        await client.connect();
        try {
          await client.query(statement);
        } finally {
          await client.end();
        }
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };

  it.skipIf(skip)('"verify-ledger --client-account-id ID recomputes the chain and names the first broken link": the demo ledger verifies; an amount edited with SQL does not (exit 1)', async () => {
    const demo = json(await runWith({}, ['seed-demo']));
    const ok = await run('verify-ledger', '--client-account-id', String(demo.company_id));
    expect(ok.code).toBe(0);
    const good = json(ok);
    expect(good).toMatchObject({ client_account_id: demo.company_id, ok: true, first_broken: null, broken_count: 0 });
    expect(good.entries).toBeGreaterThanOrEqual(19);
    await sql(`UPDATE journal_entry_lines SET debit = debit + 1 WHERE id = (SELECT l.id FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id WHERE e.client_account_id = ${demo.company_id} AND e.sequence_number = 2 AND l.debit > 0 ORDER BY l.line_id LIMIT 1)`);
    const bad = await run('verify-ledger', '--client-account-id', String(demo.company_id));
    expect(bad.code).toBe(1);
    const out = JSON.parse(bad.stdout);
    expect(out).toMatchObject({ ok: false, first_broken: { sequence_number: 2, reason: expect.stringContaining('does not match its hash') }, broken_count: 1 });
    await sql(`UPDATE journal_entry_lines SET debit = debit - 1 WHERE id = (SELECT l.id FROM journal_entry_lines l JOIN journal_entries e ON e.id = l.journal_entry_id WHERE e.client_account_id = ${demo.company_id} AND e.sequence_number = 2 AND l.debit > 0 ORDER BY l.line_id LIMIT 1)`);
    expect((await run('verify-ledger', '--client-account-id', String(demo.company_id))).code).toBe(0);
    const missing = await run('verify-ledger', '--client-account-id', '99999999');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Client account 99999999 not found/);
  }, SLOW * 2);
});

// the embedded database's lock: in the run that has PGlite
describe.runIf(withPglite)('admin CLI and a running server', () => {
  it("refuses to open a running server's embedded database: exit 1, telling the user to stop the server or set DATABASE_URL", async () => {
    await serverReady;
    const res = await cli(['create-user', '--email', 'blocked@test.example', '--password', 'hemmelig-passord'], { ...baseEnv(), DATA_DIR: serverDataDir });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/stop/i);
    expect(res.stderr).toMatch(/DATABASE_URL/);
    expect(server!.exitCode).toBeNull(); // the server is unharmed
  }, SLOW);
});
