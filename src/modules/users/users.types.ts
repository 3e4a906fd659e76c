import type { ObjectRef } from '@pothos/core';
import { builder } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';
import { changePassword, updateProfile } from './users.service.ts';

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
    fullName: t.string({
      description: 'First and last name, or the e-mail address when the user has given no name',
      resolve: (u) => [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email,
    }),
  }),
});

/**
 * For created_by / updated_by: audit columns carry no relation, so users come from the per-request
 * loader (one query per request tick however many records are listed).
 */
export const loadUser = (ctx: RequestContext, id: number | null): Promise<PublicUser | null> | null =>
  id == null ? null : ctx.loaders.userById.load(id);

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The audit columns of a record that keeps who wrote it. */
interface Audited {
  createdAt: Date;
  createdById: number | null;
  updatedAt: Date;
  updatedById: number | null;
}

/**
 * Adds the audit fields to the object type of such a record: when it was created and last updated,
 * and by whom (the id, and the user from the per-request loader).
 */
export function addAuditFields<T extends Audited>(ref: ObjectRef<Types, T>) {
  builder.objectFields(ref, (t) => ({
    createdAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.int({ nullable: true, resolve: (r) => r.createdById }),
    updatedAt: t.field({ type: 'DateTime', resolve: (r) => r.updatedAt }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.updatedById) }),
    updatedById: t.int({ nullable: true, resolve: (r) => r.updatedById }),
  }));
}

const UpdateMeInput = builder.inputType('UpdateMeInput', {
  description: 'Your own profile; omitted fields keep their value, null clears a name.',
  fields: (t) => ({ firstName: t.string(), lastName: t.string() }),
});

const ChangePasswordInput = builder.inputType('ChangePasswordInput', {
  fields: (t) => ({ currentPassword: t.string({ required: true }), newPassword: t.string({ required: true }) }),
});

builder.mutationFields((t) => ({
  updateMe: t.field({
    type: UserRef,
    description: "Changes the caller's own first and last name.",
    args: { input: t.arg({ type: UpdateMeInput, required: true }) },
    resolve: (_r, args, ctx) => updateProfile(ctx, args),
  }),
  changePassword: t.boolean({
    description: "Changes the caller's password (the current one is required) and ends the user's other sessions.",
    args: { input: t.arg({ type: ChangePasswordInput, required: true }) },
    resolve: (_r, args, ctx) => changePassword(ctx, args),
  }),
}));
