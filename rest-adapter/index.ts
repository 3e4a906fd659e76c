import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  coerceInputValue,
  execute,
  isNonNullType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ValidationError, type FieldIssue } from '../src/shared/errors.ts';
import type { RequestContext } from '../src/shared/context.ts';
import { toSnake } from '../src/shared/naming.ts';
import { withVariable, type RouteDefinition } from './define-route.ts';
import { sendError, toWireError } from './errors.ts';
import { QueryReader } from './params.ts';
import { itemRoutes } from './routes/items.ts';
import { unitRoutes } from './routes/units.ts';
import { itemCollectionRoutes } from './routes/item-collections.ts';

/** Every documented REST path, one entry each. */
export const routes: readonly RouteDefinition[] = [...itemRoutes, ...unitRoutes, ...itemCollectionRoutes];

interface CompiledRoute {
  route: RouteDefinition;
  document: DocumentNode;
  variableTypes: Map<string, GraphQLInputType>;
}

/** Parses and validates a route's document against the schema; throws with the route named. */
export function compileRoute(schema: GraphQLSchema, route: RouteDefinition): CompiledRoute {
  const where = `${route.method} ${route.path}`;
  const parsed = parse(route.document);
  // Shared fragments (e.g. UnitFields) may be pulled in by several others: keep one of each name.
  const seen = new Set<string>();
  const document: DocumentNode = {
    ...parsed,
    definitions: parsed.definitions.filter((d) => {
      if (d.kind !== Kind.FRAGMENT_DEFINITION) return true;
      if (seen.has(d.name.value)) return false;
      seen.add(d.name.value);
      return true;
    }),
  };
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`REST route ${where}: ${errors.map((e) => e.message).join('; ')}`);
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (ops.length !== 1) throw new Error(`REST route ${where}: the document must have exactly one operation`);
  const variableTypes = new Map<string, GraphQLInputType>();
  for (const v of ops[0].variableDefinitions ?? []) {
    variableTypes.set(v.variable.name.value, typeFromAST(schema, v.type as never) as GraphQLInputType);
  }
  for (const relation of route.with?.allowed ?? []) {
    if (!variableTypes.has(withVariable(relation))) throw new Error(`REST route ${where}: no variable $${withVariable(relation)} for with=${relation}`);
  }
  return { route, document, variableTypes };
}

function withVariables(route: RouteDefinition, query: QueryReader): Record<string, boolean> {
  if (!route.with) {
    if (query.has('with')) throw ValidationError.field('with', 'this endpoint has no relations to include');
    return {};
  }
  const requested = query.has('with') ? (query.list('with') ?? []) : [...(route.with.default ?? [])];
  const out: Record<string, boolean> = {};
  for (const relation of requested) {
    const r = relation.toLowerCase();
    if (!route.with.allowed.includes(r)) {
      throw ValidationError.field('with', `unknown relation '${relation}'; allowed: ${route.with.allowed.join(', ')}`);
    }
    // `entries.item` includes `entries` as well
    const parts = r.split('.');
    for (let i = 1; i <= parts.length; i++) out[withVariable(parts.slice(0, i).join('.'))] = true;
  }
  return out;
}

/** Coerces variables like `execute` would, but collects every problem with its field path. */
function coerceVariables(compiled: CompiledRoute, values: Record<string, unknown>): void {
  const issues: FieldIssue[] = [];
  for (const [name, type] of compiled.variableTypes) {
    const value = values[name];
    if (value === undefined) {
      if (isNonNullType(type)) issues.push({ path: [name], message: 'is required' });
      continue;
    }
    coerceInputValue(value, type, (path, invalid, error) => {
      // path starts with the variable's own fields ("input" is implicit for bodies)
      const fieldPath = path.map(String);
      const missing = /was not provided/.test(error.message);
      const unknown = /is not defined by type/.exec(error.message);
      const field = unknown ? /Field "([^"]+)"/.exec(error.message)?.[1] : missing ? /Field "([^"]+)"/.exec(error.message)?.[1] : undefined;
      if (unknown && field) issues.push({ path: [...fieldPath, field], message: 'is not a known field' });
      else if (missing && field) issues.push({ path: [...fieldPath, field], message: 'is required' });
      else {
        const why = (error.originalError?.message ?? error.message).replace(/; .*$/, '');
        issues.push({ path: fieldPath.length ? fieldPath : [name], message: `${why} (got ${JSON.stringify(invalid)})` });
      }
    });
  }
  if (issues.length) {
    throw new ValidationError(issues.map((i) => `${i.path.map(toSnake).join('.')}: ${i.message}`).join('; '), issues);
  }
}

/** express.Router serving the route table under /api/v2 (the bearer middleware runs before it). */
export function createRestRouter(schema: GraphQLSchema, table: readonly RouteDefinition[] = routes): Router {
  const router = express.Router();
  const compiled = table.map((r) => compileRoute(schema, r));
  const methodsByPath = new Map<string, string[]>();
  for (const c of compiled) {
    const { route } = c;
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
    const shape = route.errorShape ?? 'simple';
    router[route.method.toLowerCase() as 'get'](route.path, async (req: Request, res: Response) => {
      const ctx = (req as Request & { ctx: RequestContext }).ctx;
      try {
        const query = new QueryReader(req.query as Record<string, unknown>);
        // undefined means "not given", as in a JSON request: leave it out so variable defaults apply
        const given = Object.entries(route.variables({ params: req.params as Record<string, string>, query, body: req.body }));
        const variables = { ...Object.fromEntries(given.filter(([, v]) => v !== undefined)), ...withVariables(route, query) };
        coerceVariables(c, variables);
        const result = await execute({ schema, document: c.document, variableValues: variables, contextValue: ctx });
        if (result.errors?.length) {
          const err = toWireError(result.errors[0]);
          if (err.status >= 500) ctx.logger.error({ err: result.errors[0].originalError ?? result.errors[0] }, 'REST route failed');
          return sendError(res, err, shape, ctx.requestId);
        }
        res.status(route.status ?? 200).json((result.data as Record<string, unknown>)[route.result]);
      } catch (e) {
        const err = toWireError(e);
        if (err.status >= 500) ctx.logger.error({ err: e }, 'REST route failed');
        sendError(res, err, shape, ctx.requestId);
      }
    });
  }
  // A known path with another method: 405 with Allow, in the simple shape.
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req: Request, res: Response) => {
      res.setHeader('Allow', methods.join(', '));
      res.status(405).json({ error: `Method ${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${methods.join(', ')}`, status: 405 });
    });
  }
  router.use((req: Request, res: Response, _next: NextFunction) => {
    res.status(404).json({ error: `No such endpoint: ${req.method} ${req.baseUrl}${req.path}`, status: 404 });
  });
  return router;
}

