import { addAuditFields } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { accountRecordFields } from '../../shared/account-record-fields.ts';
import { createProject, deactivateProject, getProject, listProjects, PROJECT_PAGE_LIMITS, updateProject } from './projects.service.ts';

/** Projects (spec 001 "Project"): a posting dimension of journal lines, numbered per client account. */
export const Project = builder.prismaObject('Project', {
  ...tenantScoped,
  description: 'A project of a client account: a dimension journal lines can be posted to.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    sequenceNumber: t.exposeInt('sequenceNumber', { description: '1, 2, 3 … per client account, assigned on creation' }),
    name: t.exposeString('name', { description: 'Unique within the client account, at most 250 characters' }),
    description: t.exposeString('description', { nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    clientAccount: t.relation('clientAccount'),
  }),
});
addAuditFields(Project);

// Field rules (lengths, the unique name) are the arguments' schemas in projects.rules.ts and the service.

accountRecordFields(Project, {
  service: { list: listProjects, get: getProject, create: createProject, update: updateProject, deactivate: deactivateProject },
  pageLimits: PROJECT_PAGE_LIMITS,
  list: {
    description: 'Projects of a client account by sequence number (page-based; per_page 50 by default, at most 100).',
    args: (t) => ({ name: t.arg.string({ description: 'Part of the name, case-insensitive' }) }),
  },
  input: {
    both: (t) => ({ description: t.string({ description: 'At most 1000 characters; empty clears it' }) }),
    create: (t) => ({ name: t.string({ required: true, description: 'Unique within the client account' }) }),
    update: (t) => ({ name: t.string({ description: 'Unique within the client account' }) }),
  },
  descriptions: {
    create: 'Creates an active project with the next sequence number of its client account.',
    deactivate:
      'Deactivates the project (REST DELETE /projects/{id}); the record is kept. Refused while an account with a mandatory project dimension has a non-zero balance for it.',
  },
});
