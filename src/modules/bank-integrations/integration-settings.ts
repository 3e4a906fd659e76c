import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, type RequestContext } from '../../shared/context.ts';

/**
 * Per-account enablement of external integrations (spec 002: "Integrations are enabled or disabled
 * per client account"), one row per client account and integration key (`einvoice`, `providerb`,
 * `bank:<BIC>`). Any module with an integration reuses these; callers check tenancy first.
 */
export interface IntegrationSettingRow {
  clientAccountId: number;
  integration: string;
  isActive: boolean;
  config: PrismaNS.JsonValue;
  state: PrismaNS.JsonValue;
  connectedAt: Date | null;
}

const SELECT = { clientAccountId: true, integration: true, isActive: true, config: true, state: true, connectedAt: true } as const;

/** One account's setting for an integration, or null (never enabled: inactive, no config). */
export function integrationSetting(ctx: RequestContext, clientAccountId: number, integration: string): Promise<IntegrationSettingRow | null> {
  return ctx.db.integrationSetting.findUnique({ where: { clientAccountId_integration: { clientAccountId, integration } }, select: SELECT });
}

/** The settings of some accounts for one integration, or of one account for integrations with a key prefix (`bank:`). */
export function integrationSettings(
  ctx: RequestContext,
  where: { clientAccountIds?: readonly number[] | null; integration?: string; prefix?: string },
): Promise<IntegrationSettingRow[]> {
  return ctx.db.integrationSetting.findMany({
    where: {
      ...(where.clientAccountIds ? { clientAccountId: { in: [...where.clientAccountIds] } } : {}),
      ...(where.integration ? { integration: where.integration } : {}),
      ...(where.prefix ? { integration: { startsWith: where.prefix } } : {}),
    },
    select: SELECT,
    orderBy: [{ clientAccountId: 'asc' }, { integration: 'asc' }],
  });
}

/** Creates or changes an account's setting; only the fields given change. Run it in the operation's transaction. */
export function saveIntegrationSetting(
  ctx: RequestContext,
  clientAccountId: number,
  integration: string,
  data: { isActive?: boolean; config?: PrismaNS.InputJsonValue; state?: PrismaNS.InputJsonValue; connectedAt?: Date | null },
): Promise<IntegrationSettingRow> {
  const updatedById = auditUserId(ctx);
  return ctx.db.integrationSetting.upsert({
    where: { clientAccountId_integration: { clientAccountId, integration } },
    create: { clientAccountId, integration, ...data, updatedById },
    update: { ...data, updatedById },
    select: SELECT,
  });
}

/** A JSON object of a setting (config, state) as a plain record; anything else is empty. */
export const jsonObject = (v: PrismaNS.JsonValue | undefined): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
