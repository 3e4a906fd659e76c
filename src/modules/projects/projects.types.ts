import { builder, tenantScoped } from '../../builder.ts';

/** Projects (spec 001 "Project"); the projects module adds its queries and mutations. */
export const Project = builder.prismaObject('Project', {
  ...tenantScoped,
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId'),
    sequenceNumber: t.exposeInt('sequenceNumber'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
  }),
});
