import { builder, tenantScoped } from '../../builder.ts';
import { loadUser, UserRef } from '../users/users.types.ts';

export const BusinessPartner = builder.prismaObject('BusinessPartner', {
  ...tenantScoped,
  description: 'A customer, supplier, employee, shareholder, or the company itself.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId'),
    name: t.exposeString('name'),
    organizationNumber: t.exposeString('organizationNumber', { nullable: true }),
    nationalIdNumber: t.exposeString('nationalIdNumber', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    isCustomer: t.exposeBoolean('isCustomer'),
    isSupplier: t.exposeBoolean('isSupplier'),
    isEmployee: t.exposeBoolean('isEmployee'),
    isShareholder: t.exposeBoolean('isShareholder'),
    isSelf: t.exposeBoolean('isSelf', { description: "The client account's own company" }),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (p, _a, ctx) => loadUser(ctx, p.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (p, _a, ctx) => loadUser(ctx, p.updatedById) }),
  }),
});
