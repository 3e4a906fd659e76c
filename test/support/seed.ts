import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Prisma } from '../../src/db/database.ts';
import type { Role } from '../../src/generated/prisma/enums.ts';
import { createClientAccount, grantRole, linkProvider } from '../../src/modules/client-accounts/client-accounts.service.ts';
import { createRequestContext, systemContext, type RequestContext } from '../../src/shared/context.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { isValidOrganizationNumber } from '../../src/shared/norwegian-ids.ts';

/**
 * Test data factories. Every test makes its own tenant, so tests never see each other's rows and
 * need no cleanup. Users get session tokens written directly (no password hashing per test).
 */
const uniq = () => randomBytes(5).toString('hex');

export interface TestUser {
  id: number;
  email: string;
  /** session token with read and write */
  token: string;
  /** session token with read only */
  readToken: string;
}

export interface Tenant {
  account: { id: number; displayName: string };
  user: TestUser;
  /** id of the tax code with this code in the tenant's account */
  taxCode(code: string): Promise<number>;
  /** id of the ledger account with this code */
  ledgerAccount(code: string): Promise<number>;
}

export function createSeed(prisma: Prisma) {
  /** the context the admin CLI calls the services with: tests create accounts and grant roles through it */
  const system = systemContext(prisma);

  async function token(userId: number, scope: string): Promise<string> {
    const t = `rs_${randomBytes(24).toString('base64url')}`;
    await prisma.session.create({
      data: { tokenHash: createHash('sha256').update(t).digest('hex'), userId, scope, expiresAt: new Date(Date.now() + 3600_000) },
    });
    return t;
  }

  async function user(opts: { email?: string } = {}): Promise<TestUser> {
    const email = opts.email ?? `user-${uniq()}@test.example`;
    const u = await prisma.user.create({ data: { email, passwordHash: '!test-user-without-password', firstName: 'Test', lastName: 'User' } });
    return { id: u.id, email, token: await token(u.id, 'read write'), readToken: await token(u.id, 'read') };
  }

  async function clientAccount(opts: { name?: string; industryCode?: string; organizationNumber?: string } = {}) {
    return createClientAccount(system, {
      input: { displayName: opts.name ?? `Test ${uniq()} AS`, industryCode: opts.industryCode ?? null, organizationNumber: opts.organizationNumber ?? null },
    });
  }

  /** A client account with a user holding `role` on it (CA by default). */
  async function tenant(opts: { role?: Role; industryCode?: string } = {}): Promise<Tenant> {
    const account = await clientAccount({ industryCode: opts.industryCode });
    const u = await user();
    await grantRole(system, { input: { email: u.email, clientAccountId: account.id, role: opts.role ?? 'CA' } });
    return {
      account,
      user: u,
      taxCode: async (code) =>
        (await prisma.taxCode.findUniqueOrThrow({ where: { clientAccountId_code: { clientAccountId: account.id, code } } })).id,
      ledgerAccount: async (code) =>
        (await prisma.account.findUniqueOrThrow({ where: { clientAccountId_code: { clientAccountId: account.id, code } } })).id,
    };
  }

  async function unitId(rec20: string): Promise<number> {
    return (await prisma.unit.findUniqueOrThrow({ where: { unEceRec20Code: rec20 } })).id;
  }

  /** A request context acting as the user with read and write, as the bearer middleware builds one: for calling services directly. */
  function contextOf(u: { id: number }): RequestContext {
    return createRequestContext({
      db: prisma,
      actor: { userId: u.id, scopes: new Set(['read', 'write']), clientId: null, tokenKind: 'session', sessionId: null },
      requestId: `test-${uniq()}`,
      logger: createLogger('silent'),
    });
  }

  /** grantRole by user id (the service takes the email, as GraphQL and the CLI do) */
  async function grantRoleTo(a: { userId: number; clientAccountId: number; role: Role }) {
    const { email } = await prisma.user.findUniqueOrThrow({ where: { id: a.userId }, select: { email: true } });
    return grantRole(system, { input: { email, clientAccountId: a.clientAccountId, role: a.role } });
  }

  return {
    prisma,
    system,
    contextOf,
    token,
    user,
    clientAccount,
    tenant,
    unitId,
    grantRole: grantRoleTo,
    linkProvider: (providerAccountId: number, clientAccountId: number) => linkProvider(system, { input: { providerAccountId, clientAccountId } }),
  };
}

export type Seed = ReturnType<typeof createSeed>;

/** A random valid organisation number (mod 11), unique enough for a shared test database. */
export function randomOrganizationNumber(): string {
  for (;;) {
    const body = String(randomInt(80_000_000, 99_999_999));
    for (let d = 0; d <= 9; d++) if (isValidOrganizationNumber(`${body}${d}`)) return `${body}${d}`;
  }
}
