import type { ArgBuilder, InputFieldMap } from '@pothos/core';
import type { PrismaModelTypes, PrismaObjectRef } from '@pothos/plugin-prisma';
import { builder } from '../builder.ts';
import type { RequestContext } from './context.ts';
import { cursorArgs, nodesQuery, pageType } from './page-type.ts';
import type { Page, PageLimits } from './pagination.ts';
import { pageCost } from './query-limits.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
/** The selection-derived Prisma query a field hands its service. */
type Query = { include?: object; select?: object };

/**
 * The service functions the fields call, each with the selection-derived Prisma query (tenancy and
 * validation are theirs: `dimensionRecords` for the dimension records).
 */
export interface AccountRecordService<T> {
  list(ctx: RequestContext, args: { clientAccountId: number }, query: Query): Promise<Page<T>>;
  get(ctx: RequestContext, args: { id: number }, query: Query): Promise<T>;
  create(ctx: RequestContext, args: { input: { clientAccountId: number } }, query: Query): Promise<T>;
  update(ctx: RequestContext, args: { id: number; input: object }, query: Query): Promise<T>;
  /** given: a `deactivate<Name>(id)` mutation too */
  deactivate?(ctx: RequestContext, args: { id: number }, query: Query): Promise<T>;
}

type InputFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => InputFieldMap;

export interface AccountRecordSpec<T> {
  service: AccountRecordService<T>;
  pageLimits: PageLimits;
  /** false: the records have no isActive flag (no list filter, nothing to deactivate) */
  isActive?: false;
  /** the list's description, and the filters it takes beside clientAccountId, isActive and the window */
  list: { description: string; args?: (t: { arg: ArgBuilder<Types> }) => InputFieldMap };
  /**
   * the record's own input fields: those of both inputs, those of create, those of update (with
   * clientAccountId, and isActive on update, added here), and update's description if not the usual
   */
  input: { both?: InputFields; create?: InputFields; update?: InputFields; updateDescription?: string };
  /** the mutations' descriptions, where they have one */
  descriptions?: { create?: string; update?: string; deactivate?: string };
}

const UPDATE_DESCRIPTION = 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.';

/**
 * The GraphQL fields of a record a client account keeps as a plain list (the dimension records
 * projects, departments, tags and assets; voucher collections), written once: for the object type
 * `Project`, the list `projects(clientAccountId, isActive = true, …, page, perPage, first/after/
 * last/before): ProjectConnection`, the nullable lookup `project(id)`, `createProject(input:
 * CreateProjectInput!)`, `updateProject(id, input: UpdateProjectInput!)` and, when the service can,
 * `deactivateProject(id)`. Every field passes the selection's Prisma query to the service, so
 * relations below load batched; tenancy is the service's and the object type's (`tenantScoped`).
 */
export function accountRecordFields<M extends PrismaModelTypes, T extends object>(type: PrismaObjectRef<Types, M, T>, spec: AccountRecordSpec<T>) {
  const { service } = spec;
  const name = type.name;
  const one = name[0].toLowerCase() + name.slice(1);
  const many = `${one}s`;
  const active = spec.isActive !== false;
  const ref = type as unknown as PrismaObjectRef<Types, PrismaModelTypes>;
  const Page = pageType(`${name}Page`, type);

  const CreateInput = builder.inputType(`Create${name}Input`, {
    fields: (t) => ({ clientAccountId: t.int({ required: true }), ...spec.input.create?.(t), ...spec.input.both?.(t) }),
  });
  const UpdateInput = builder.inputType(`Update${name}Input`, {
    description: spec.input.updateDescription ?? UPDATE_DESCRIPTION,
    fields: (t) => ({
      clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
      ...(active && {
        isActive: t.boolean({
          description: service.deactivate
            ? `true reactivates; false deactivates, as deactivate${name} (balances checked)`
            : `false deactivates the ${one}, true reactivates it`,
        }),
      }),
      ...spec.input.update?.(t),
      ...spec.input.both?.(t),
    }),
  });

  builder.queryFields((t) => ({
    [many]: t.field({
      type: Page,
      extensions: pageCost(spec.pageLimits),
      description: spec.list.description,
      args: {
        clientAccountId: t.arg.int({ required: true }),
        ...(active && { isActive: t.arg.boolean({ defaultValue: true, description: `true by default; null lists all ${many}` }) }),
        ...spec.list.args?.(t),
        ...cursorArgs(t),
        page: t.arg.int(),
        perPage: t.arg.int(),
      },
      resolve: (_root, args, ctx, info) => service.list(ctx, args as { clientAccountId: number }, nodesQuery(ctx, info)),
    }),
    [one]: t.prismaField({
      nullable: true,
      type: ref,
      args: { id: t.arg.int({ required: true }) },
      resolve: (query, _root, args, ctx) => service.get(ctx, args, query as Query),
    }),
  }));

  builder.mutationFields((t) => ({
    [`create${name}`]: t.prismaField({
      type: ref,
      description: spec.descriptions?.create,
      args: { input: t.arg({ type: CreateInput, required: true }) },
      resolve: (query, _root, args, ctx) => service.create(ctx, args as { input: { clientAccountId: number } }, query as Query),
    }),
    [`update${name}`]: t.prismaField({
      type: ref,
      description: spec.descriptions?.update,
      args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
      resolve: (query, _root, args, ctx) => service.update(ctx, args, query as Query),
    }),
    ...(service.deactivate && {
      [`deactivate${name}`]: t.prismaField({
        type: ref,
        description: spec.descriptions?.deactivate,
        args: { id: t.arg.int({ required: true }) },
        resolve: (query, _root, args, ctx) => service.deactivate!(ctx, args, query as Query),
      }),
    }),
  }));
}
