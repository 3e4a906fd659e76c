import type { HttpResult, TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

/** A company with its own business partner (is_self) and shareholders to trade between. */
export interface Company {
  t: Tenant;
  self: number;
  partner(name: string): Promise<number>;
  post(path: string, body: Record<string, unknown>, token?: string): Promise<HttpResult>;
  get(pathAndQuery: string, token?: string): Promise<HttpResult>;
}

export async function company(app: TestApp): Promise<Company> {
  const t = await app.seed.tenant();
  const self = (await app.seed.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: t.account.id, isSelf: true }, select: { id: true } })).id;
  return {
    t,
    self,
    partner: async (name) => (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name, isShareholder: true }, select: { id: true } })).id,
    post: (path, body, token = t.user.token) => app.http('POST', `/api/v2/equity/transactions/${path}`, { token, body: { client_account_id: t.account.id, ...body } }),
    get: (pathAndQuery, token = t.user.token) => app.http('GET', `/api/v2/equity/${pathAndQuery}`, { token }),
  };
}

/** Today in Norway, as the service defaults transaction_date. */
export const osloTodayText = (): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
