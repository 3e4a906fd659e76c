import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { AutonomyLevel } from '../items/items.types.ts';
import { departmentRules as rules } from './departments.rules.ts';
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
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.updatedById) }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    clientAccount: t.relation('clientAccount'),
  }),
});

const DepartmentPage = pageType('DepartmentPage', Department);

// Field rules (lengths, enums) are the arguments' schemas in departments.rules.ts.

const CreateDepartmentInput = builder.inputType('CreateDepartmentInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    name: t.string({ required: true }),
    autonomyLevel: t.field({ type: AutonomyLevel, description: 'Optional marker of operational independence' }),
  }),
});

const UpdateDepartmentInput = builder.inputType('UpdateDepartmentInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    name: t.string(),
    isActive: t.boolean({ description: 'true reactivates; false deactivates, as deactivateDepartment (balances checked)' }),
    autonomyLevel: t.field({ type: AutonomyLevel, description: 'null clears it' }),
  }),
});

builder.queryFields((t) => ({

  departments: t.field({
    type: DepartmentPage,
    extensions: pageCost(DEPARTMENT_PAGE_LIMITS),
    description: 'Departments of a client account by sequence number (page-based; per_page 50 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all departments' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listDepartments(ctx, args, nodesQuery(ctx, info)),
  }),
  department: t.prismaField({
    nullable: true,
    type: 'Department',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getDepartment(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createDepartment: t.prismaField({
    type: 'Department',
    description: 'Creates an active department with the next sequence number of its client account.',
    args: { input: t.arg({ type: CreateDepartmentInput, required: true }) },
    resolve: (query, _root, args, ctx) => createDepartment(ctx, args, query),
  }),
  updateDepartment: t.prismaField({
    type: 'Department',
    description: 'Updates a department (REST PUT or POST /departments/{id}); isActive false is checked as deactivateDepartment.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateDepartmentInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateDepartment(ctx, args, query),
  }),
  deactivateDepartment: t.prismaField({
    type: 'Department',
    description:
      'Deactivates the department (REST DELETE /departments/{id}); the record is kept. Refused while an account with a mandatory department dimension has a non-zero balance for it.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => deactivateDepartment(ctx, args, query),
  }),
}));
