import { addAuditFields } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { accountRecordFields } from '../../shared/account-record-fields.ts';
import { AutonomyLevel } from '../items/items.types.ts';
import { createDepartment, deactivateDepartment, DEPARTMENT_PAGE_LIMITS, getDepartment, listDepartments, updateDepartment } from './departments.service.ts';

/** Departments (spec 001 "Department"): a posting dimension of journal lines, numbered per client account. */
export const Department = builder.prismaObject('Department', {
  ...tenantScoped,
  description: 'A department of a client account: a dimension journal lines can be posted to.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    sequenceNumber: t.exposeInt('sequenceNumber', { description: '1, 2, 3 … per client account, assigned on creation' }),
    name: t.exposeString('name', { description: 'At most 250 characters; need not be unique' }),
    isActive: t.exposeBoolean('isActive'),
    autonomyLevel: t.expose('autonomyLevel', { type: AutonomyLevel, nullable: true, description: 'Optional marker of operational independence' }),
    clientAccount: t.relation('clientAccount'),
  }),
});
addAuditFields(Department);

// Field rules (lengths, enums) are the arguments' schemas in departments.rules.ts.

accountRecordFields(Department, {
  service: { list: listDepartments, get: getDepartment, create: createDepartment, update: updateDepartment, deactivate: deactivateDepartment },
  pageLimits: DEPARTMENT_PAGE_LIMITS,
  list: { description: 'Departments of a client account by sequence number (page-based; per_page 50 by default, at most 100).' },
  input: {
    create: (t) => ({
      name: t.string({ required: true }),
      autonomyLevel: t.field({ type: AutonomyLevel, description: 'Optional marker of operational independence' }),
    }),
    update: (t) => ({ name: t.string(), autonomyLevel: t.field({ type: AutonomyLevel, description: 'null clears it' }) }),
  },
  descriptions: {
    create: 'Creates an active department with the next sequence number of its client account.',
    update: 'Updates a department (REST PUT or POST /departments/{id}); isActive false is checked as deactivateDepartment.',
    deactivate:
      'Deactivates the department (REST DELETE /departments/{id}); the record is kept. Refused while an account with a mandatory department dimension has a non-zero balance for it.',
  },
});
