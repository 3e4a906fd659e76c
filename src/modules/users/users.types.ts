import { builder } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';

export interface PublicUser {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

/** A user as others see it (no password, no sessions). */
export const UserRef = builder.objectRef<PublicUser>('User').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    email: t.exposeString('email'),
    firstName: t.exposeString('firstName', { nullable: true }),
    lastName: t.exposeString('lastName', { nullable: true }),
  }),
});

/**
 * For created_by / updated_by: audit columns carry no relation, so users come from the per-request
 * loader (one query per request tick however many records are listed).
 */
export const loadUser = (ctx: RequestContext, id: number | null): Promise<PublicUser | null> | null =>
  id == null ? null : ctx.loaders.userById.load(id);
