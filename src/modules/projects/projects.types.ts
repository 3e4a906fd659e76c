import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { projectRules as rules } from './projects.rules.ts';
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
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.updatedById) }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    clientAccount: t.relation('clientAccount'),
  }),
});

const ProjectPage = pageType('ProjectPage', Project);

// Field rules (lengths, the unique name) are the arguments' schemas in projects.rules.ts and the service.

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    name: t.string({ required: true, description: 'Unique within the client account' }),
    description: t.string({ description: 'At most 1000 characters; empty clears it' }),
  }),
});

const UpdateProjectInput = builder.inputType('UpdateProjectInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    name: t.string({ description: 'Unique within the client account' }),
    description: t.string({ description: 'At most 1000 characters; empty clears it' }),
    isActive: t.boolean({ description: 'true reactivates; false deactivates, as deactivateProject (balances checked)' }),
  }),
});

builder.queryFields((t) => ({

  projects: t.field({
    type: ProjectPage,
    extensions: pageCost(PROJECT_PAGE_LIMITS),
    description: 'Projects of a client account by sequence number (page-based; per_page 50 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all projects' }),
      name: t.arg.string({ description: 'Part of the name, case-insensitive' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listProjects(ctx, args, nodesQuery(ctx, info)),
  }),
  project: t.prismaField({
    nullable: true,
    type: 'Project',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getProject(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createProject: t.prismaField({
    type: 'Project',
    description: 'Creates an active project with the next sequence number of its client account.',
    args: { input: t.arg({ type: CreateProjectInput, required: true }) },
    resolve: (query, _root, args, ctx) => createProject(ctx, args, query),
  }),
  updateProject: t.prismaField({
    type: 'Project',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateProjectInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateProject(ctx, args, query),
  }),
  deactivateProject: t.prismaField({
    type: 'Project',
    description:
      'Deactivates the project (REST DELETE /projects/{id}); the record is kept. Refused while an account with a mandatory project dimension has a non-zero balance for it.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => deactivateProject(ctx, args, query),
  }),
}));
