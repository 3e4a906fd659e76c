import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Prisma } from '../../db/database.ts';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';

/**
 * oidc-provider's persistence (its `adapter` option) on Prisma: one row per stored object in
 * oauth_objects, on PGlite and PostgreSQL alike.
 *
 * Rows outlive their expiry by EXPIRED_GRACE_MS: the library loads codes and refresh tokens ignoring
 * expiry so it can answer "Authorization code expired" instead of "Invalid authorization code";
 * `pruneOauthObjects` deletes them afterwards (the periodic cleanup job).
 */
export const EXPIRED_GRACE_MS = 24 * 3600 * 1000;

/** Our own notes on a row the library does not carry (see OauthObject.annotations). */
export interface OauthAnnotations {
  /** AuthorizationCode: the `resource` values the authorize request itself sent (not the default) */
  resources?: string[];
}

/** Called on every upsert: annotations for a new row (from the request that creates it), if any. */
export type Annotator = (kind: string, payload: AdapterPayload) => OauthAnnotations | undefined;

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);
/** Rows past their expiry plus the grace period are gone for everyone, even before cleanup deletes them. */
const pastGrace = (row: { expiresAt: Date | null }) => !!row.expiresAt && row.expiresAt.getTime() + EXPIRED_GRACE_MS <= Date.now();

export function prismaAdapterFactory(prisma: Prisma, annotate: Annotator = () => undefined): (kind: string) => Adapter {
  return (kind: string): Adapter => {
    const where = (id: string) => ({ kind_id: { kind, id } });
    const toPayload = (row: { payload: PrismaNS.JsonValue; consumedAt: Date | null }): AdapterPayload => ({
      ...(row.payload as AdapterPayload),
      ...(row.consumedAt ? { consumed: epoch(row.consumedAt) } : {}),
    });

    return {
      async upsert(id, payload, expiresIn) {
        const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
        const owner = kind === 'Client' && typeof payload.owner_user_id === 'number' ? payload.owner_user_id : null;
        const annotations = annotate(kind, payload);
        const columns = {
          payload: payload as PrismaNS.InputJsonValue,
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          expiresAt,
        };
        await prisma.oauthObject.upsert({
          where: where(id),
          create: { kind, id, ...columns, ownerUserId: owner, ...(annotations ? { annotations: annotations as PrismaNS.InputJsonValue } : {}) },
          update: columns,
        });
      },
      async find(id) {
        const row = await prisma.oauthObject.findUnique({ where: where(id) });
        return row && !pastGrace(row) ? toPayload(row) : undefined;
      },
      async findByUid(uid) {
        const row = await prisma.oauthObject.findFirst({ where: { kind, uid } });
        return row && !pastGrace(row) ? toPayload(row) : undefined;
      },
      async findByUserCode() {
        return undefined; // the device flow is not enabled
      },
      async consume(id) {
        await prisma.oauthObject.updateMany({ where: { kind, id }, data: { consumedAt: new Date() } });
      },
      async destroy(id) {
        await prisma.oauthObject.deleteMany({ where: { kind, id } });
      },
      async revokeByGrantId(grantId) {
        await prisma.oauthObject.deleteMany({ where: { kind, grantId } });
      },
    };
  };
}

/** Reads one stored object with our annotations (the token shim looks at codes and grants). */
export async function findOauthObject(prisma: Prisma, kind: string, id: string) {
  const row = await prisma.oauthObject.findUnique({ where: { kind_id: { kind, id } } });
  if (!row || pastGrace(row)) return null;
  return {
    payload: row.payload as AdapterPayload,
    annotations: (row.annotations ?? {}) as OauthAnnotations,
    consumed: !!row.consumedAt,
    expired: !!row.expiresAt && row.expiresAt.getTime() <= Date.now(),
  };
}

/** Deletes rows past their expiry plus the grace period; returns how many. */
export async function pruneOauthObjects(prisma: Prisma): Promise<number> {
  const { count } = await prisma.oauthObject.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - EXPIRED_GRACE_MS) } } });
  return count;
}
