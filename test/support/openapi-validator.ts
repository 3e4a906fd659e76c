import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument, OpenApiOperation, OpenApiResponse } from '../../src/openapi/openapi.ts';
import type { JsonSchema } from '../../src/openapi/json-schema.ts';

// ajv-formats is CommonJS with `exports.default`: under Node's ESM interop the default import is the module object
const addFormats = (addFormatsModule.default ?? addFormatsModule) as typeof addFormatsModule.default;

/** One HTTP answer as the harness received it. */
export interface ReceivedResponse {
  method: string;
  /** the request path with its query string, e.g. /api/v2/items?client_account_id=1 */
  path: string;
  status: number;
  contentType: string | null;
  /** the body as received */
  text: string;
}

export class ResponseMismatchError extends Error {}

/** Where the component schemas live for Ajv: the document's `#/components/schemas/X` refs point here. */
const COMPONENTS = 'https://openapi.invalid/components.json';

function absoluteRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(absoluteRefs) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/') ? `${COMPONENTS}#/$defs/${v.slice(21)}` : absoluteRefs(v)]),
  ) as T;
}

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
  methods: Record<string, OpenApiOperation>;
}

/**
 * A checker of responses against an OpenAPI document (the harness runs it on every /api/v2 answer,
 * and on every answer of a public operation's path, which its own `servers` entry places):
 * the status must be documented for the operation and the body must validate against its schema.
 * A path or method with no operation must answer an error in the `{error, status}` shape. Schemas
 * are compiled on first use, once per operation and status. Throws ResponseMismatchError.
 */
export function createResponseValidator(document: OpenApiDocument, options: { prefix?: string; ignore?: RegExp } = {}): (r: ReceivedResponse) => void {
  const prefix = options.prefix ?? new URL(document.servers[0].url).pathname.replace(/\/$/, '');
  const doc = absoluteRefs(document);
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addSchema({ $id: COMPONENTS, $defs: doc.components.schemas });
  const compiled = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: JsonSchema) => {
    let fn = compiled.get(key);
    if (!fn) compiled.set(key, (fn = ajv.compile(schema)));
    return fn;
  };

  // express matches case-insensitively and with an optional trailing slash
  const patternOf = (template: string) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i');
  // an operation with servers of its own (the public /public/v2 ones) is matched on the whole path
  const ownServer = (op: OpenApiOperation) => op.servers?.[0] && new URL(op.servers[0].url).pathname.replace(/\/$/, '');
  const split = (own: boolean) =>
    Object.entries(doc.paths)
      .map(([template, item]): [string, Record<string, OpenApiOperation>] => [
        own ? `${ownServer(Object.values(item)[0]) ?? ''}${template}` : template,
        Object.fromEntries(Object.entries(item).filter(([, op]) => (ownServer(op) !== undefined) === own)),
      ])
      .filter(([, methods]) => Object.keys(methods).length);
  // concrete paths before templated ones, as OpenAPI matches them
  const routesOf = (entries: [string, Record<string, OpenApiOperation>][]): Route[] =>
    entries.map(([template, methods]) => ({ template, methods, params: (template.match(/\{/g) ?? []).length, pattern: patternOf(template) })).sort((a, b) => a.params - b.params);
  const routes = routesOf(split(false));
  const publicRoutes = routesOf(split(true));

  const resolveResponse = (r: OpenApiResponse | { $ref: string }): OpenApiResponse => {
    if (!('$ref' in r)) return r;
    const name = r.$ref.replace('#/components/responses/', '');
    const found = doc.components.responses[name];
    if (!found) throw new ResponseMismatchError(`the document refers to a missing response ${r.$ref}`);
    return found;
  };

  return (r) => {
    const path = r.path.split('?')[0];
    const ownRoutes = publicRoutes.filter((x) => x.pattern.test(path));
    if (!ownRoutes.length && !path.startsWith(prefix + '/') && path !== prefix) return;
    const local = ownRoutes.length ? path : path.slice(prefix.length) || '/';
    const candidates = ownRoutes.length ? ownRoutes : routes;
    if (options.ignore?.test(local)) return;
    if (r.method.toUpperCase() === 'OPTIONS') return; // CORS preflights are the browser's, no operation
    const method = r.method.toLowerCase() === 'head' ? 'get' : r.method.toLowerCase();
    // a path may be documented with and without a trailing slash for different methods (GET /journal-entries, POST /journal-entries/)
    const route = candidates.find((x) => x.pattern.test(local) && x.methods[method]) ?? candidates.find((x) => x.pattern.test(local));
    const operation = route?.methods[method];
    const where = `${r.method.toUpperCase()} ${r.path}`;
    const fail = (what: string, why: string): never => {
      throw new ResponseMismatchError(`OpenAPI mismatch: ${where} (${what}) answered ${r.status}: ${why}\n  body: ${r.text.slice(0, 300)}`);
    };

    const what = operation?.operationId ?? (route ? `no ${method.toUpperCase()} operation on ${route.template}` : 'no operation');
    let key: string;
    let response: OpenApiResponse;
    if (!operation) {
      if (r.status < 400) fail(what, 'a path or method without an operation must answer an error');
      key = 'no-operation';
      response = { description: 'error', content: { 'application/json': { schema: { $ref: `${COMPONENTS}#/$defs/Error` } } } };
    } else {
      const documented = operation.responses[String(r.status)];
      if (!documented) fail(what, `status ${r.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
      key = `${operation.operationId} ${r.status}`;
      response = resolveResponse(documented);
    }
    if (r.method.toLowerCase() === 'head') return;
    // a file by Accept (a report as Excel, HTML or PDF; the SAF-T XML): its media type must be documented
    const mediaType = (r.contentType ?? '').split(';')[0].trim();
    if (mediaType && mediaType !== 'application/json' && r.status < 400) {
      if (!response.content?.[mediaType]) fail(what, `content-type ${mediaType} is not documented (documented: ${Object.keys(response.content ?? {}).join(', ')})`);
      return;
    }
    const content = response.content?.['application/json'];
    if (!content) {
      if (r.text !== '') fail(what, 'the document declares no body');
      return;
    }
    if (!/^application\/json\b/.test(r.contentType ?? '')) fail(what, `content-type ${r.contentType} where the document declares application/json`);
    let body: unknown;
    try {
      body = JSON.parse(r.text);
    } catch {
      fail(what, 'the body is not JSON');
    }
    const validate = compile(key, content.schema);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);
      fail(what, `the body does not match the schema:\n    ${errors.join('\n    ')}`);
    }
  };
}
