import { STATUS_CODES } from 'node:http';
import { getNamedType, getNullableType, isListType, Kind, type GraphQLInputObjectType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { PACKAGE_VERSION } from '../version.ts';
import { toSnake } from '../shared/naming.ts';
import type { CompiledOperation } from '../../rest-adapter/compile.ts';
import { compiledOperations, operations } from '../../rest-adapter/index.ts';
import { parameterSchema, requestBodySchema, responseSchema, SchemaComponents, type JsonSchema } from './json-schema.ts';
import { operationPaths, restPath, withDefaults, withParameter, type MultipartOptions, type Operation } from '../../rest-adapter/operation.ts';
import { FILE_URL_PATH } from '../modules/files/file-serving.route.ts';
import { FILE_VARIANTS } from '../modules/files/file-urls.ts';
import { SERVABLE_TYPES } from '../modules/files/files.rules.ts';

/**
 * The OpenAPI 3.1 description of /api/v2, derived from the operation table: one path item per entry,
 * its parameters and request body from the GraphQL variables, its success response from the
 * selection set (json-schema.ts), its errors in the entry's error shape. Built once per app.
 */

type Ref = { $ref: string };

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
  style?: 'form' | 'simple';
  explode?: boolean;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, Ref>;
  content?: Record<string, { schema: JsonSchema }>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters?: (OpenApiParameter | Ref)[];
  requestBody?: { required: boolean; description?: string; content: Record<string, { schema: JsonSchema; encoding?: Record<string, { contentType: string }> }> };
  responses: Record<string, OpenApiResponse | Ref>;
  security: Record<string, string[]>[];
  description?: string;
  /** a public operation's own server (the base URL: its path key starts with /public/v2) */
  servers?: { url: string }[];
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    parameters: Record<string, OpenApiParameter>;
    headers: Record<string, { description: string; schema: JsonSchema }>;
    securitySchemes: Record<string, unknown>;
  };
}

/** express `/items/:id` as an OpenAPI path template `/items/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

/**
 * The key of an operation in `paths`: its template relative to `servers` (/api/v2), or for a public
 * operation the whole path from the base URL (`/public/v2/invitations/{token}`), which the operation's
 * own `servers` entry (the base URL) makes absolute.
 */
export const openApiKey = (op: Pick<Operation, 'path' | 'public'>): string => openApiPath(op.public ? restPath(op) : op.path);

const DESCRIPTION = `The documented \`/api/v2\` paths, and the public \`/public/v2\` ones. Each operation runs one GraphQL
document on the schema served at \`/graphql\`, so REST, GraphQL and the MCP tools share validation, tenancy and scopes.

## Authentication
Every \`/api/v2\` operation needs \`Authorization: Bearer <token>\`: a session token from \`POST /v2/oauth/login\`
(\`{"email", "password"}\`) or an OAuth 2.0 access token (authorization code with PKCE, or client
credentials; metadata at \`/.well-known/oauth-authorization-server\`). Reads need the \`read\` scope,
writes (POST, PUT, PATCH, DELETE) \`write\`. The \`/public/v2\` operations (an invitation by its
token, accepting it) need no token; they are not counted by the per-user rate limit.

## Wire conventions
- Field and parameter names are snake_case; unknown body fields are a 400.
- Decimals (prices, quantities, rates, amounts) are JSON strings with their column's scale
  (\`"149.000000"\`). A request may send a JSON number instead only when it has at most 15
  significant digits; send a string otherwise.
- Dates are \`YYYY-MM-DD\`, timestamps ISO 8601 in UTC (\`2026-01-31T09:30:00.000Z\`).
- An array parameter in a query string is one value with its items separated by comma, semicolon
  or space (\`collection_type=CART,ORDER\`); giving a parameter twice is a 400. Enum values are
  case-insensitive there, and the literal \`null\` means null for every type but strings.
- \`with=rel,rel.sub\` embeds related records; each operation lists the relations it knows, naming
  a nested one includes its parent, and an unknown one is a 400.
- Lists answer \`{"data": [...], "meta": {"page", "pages", "per_page", "records"}}\`: \`page\` starts
  at 1, \`per_page\` is capped at the operation's maximum, \`pages\` is 0 when nothing matches.
- PUT changes only the fields sent; read-only fields echoed back from a GET (\`id\`, \`created_at\`,
  embedded relations …) are ignored.

## Errors
Errors are \`{"error": "<text>", "status": <integer>}\`, or on some operations (reports, voucher
delete) \`{"error": {"code", "message", "request_id"}}\`; each operation's responses name their shape.
A 400 names every offending field (\`item_no: is required; price: …\`). An unknown path answers 404,
a known path with another method 405 with \`Allow\`, both \`{error, status}\`. Every response carries
\`x-request-id\`, a UUID the server makes (an envelope's \`request_id\`); quote it when reporting a
problem. A request's own \`X-Request-Id\` is logged beside it and echoed in \`X-Client-Request-Id\`.

## Rate limits
Requests are limited per user, counted over \`/api/v2\`, \`/graphql\` and \`/mcp\` together, whatever
the token (600 per minute unless the operator sets another limit). Every response says where the
caller stands: \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` (seconds until the
window ends) and \`RateLimit-Policy\` (\`600;w=60\`). Over the limit an operation answers 429 in its
error shape with \`Retry-After\` (seconds).

## Trying it out
On \`/api/v2/docs\`, *Authorize* with a session token from \`POST /v2/oauth/login\` (bearer), or with
OAuth 2.0 as a client registered (\`POST /v2/oauth/register\`) with the redirect URI
\`<base URL>/api/v2/docs/assets/oauth2-redirect.html\`.

## Idempotent writes
Writes accept an \`Idempotency-Key\` header (1–255 printable characters). Repeating a request with
the same key within 24 hours answers the first response again, with \`Idempotent-Replayed: true\`,
without writing twice. While the first request is still running a repeat gets 409; a key reused for
a different request gets 422.`;

type Shape = NonNullable<Operation['errorShape']>;

const ERROR_SCHEMAS: Record<Shape, [string, JsonSchema]> = {
  simple: [
    'Error',
    {
      type: 'object',
      description: 'An error: its text and the HTTP status again.',
      properties: { error: { type: 'string', description: 'what went wrong; field paths snake_case (`item_no: is required`)' }, status: { type: 'integer' } },
      required: ['error', 'status'],
      additionalProperties: false,
    },
  ],
  envelope: [
    'ErrorEnvelope',
    {
      type: 'object',
      description: 'An error with a machine-readable code and the request id.',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string', description: 'e.g. common.validation_error, common.not_found' },
            message: { type: 'string' },
            request_id: { type: 'string', format: 'uuid', description: 'the x-request-id of the response: a UUID the server made' },
          },
          required: ['code', 'message', 'request_id'],
          additionalProperties: false,
        },
      },
      required: ['error'],
      additionalProperties: false,
    },
  ],
};

/** The error statuses an operation can answer, with the name and text of their reusable response. */
const ERRORS: Record<number, [string, string]> = {
  400: ['BadRequest', 'Invalid input: malformed JSON, a parameter or field of the wrong type or missing, an unknown field, an unknown relation in `with`.'],
  401: ['Unauthorized', 'No valid bearer token (missing, expired, revoked or issued for another resource), or a token with no scope.'],
  403: [
    'Forbidden',
    'The token lacks the scope the operation needs (`WWW-Authenticate: Bearer error="insufficient_scope"`), or the record belongs to a client account the caller may not access.',
  ],
  404: ['NotFound', 'No record with that id.'],
  408: [
    'RequestTimeout',
    'The request body was not received completely within REQUEST_BODY_TIMEOUT_MS (default 10 s) of the request being admitted; nothing was done, and the connection is closed (`Connection: close`).',
  ],
  409: ['Conflict', 'A request with the same Idempotency-Key is still running, or the write clashes with an existing record.'],
  413: ['ContentTooLarge', 'The request body is larger than 1 MB (a JSON body), or an uploaded file larger than the operation takes (POST /files: 25 MB).'],
  406: ['NotAcceptable', 'The Accept header names no media type the operation offers (the report formats are listed in its 200 response).'],
  422: ['UnprocessableContent', 'The Idempotency-Key was already used for a different request.'],
  410: ['Gone', 'What the request points at is gone for good (the operation says what).'],
  429: ['TooManyRequests', 'Over the per-user rate limit of the API (`/api/v2`, `/graphql` and `/mcp` count together); `Retry-After` says in how many seconds to try again.'],
  500: ['InternalServerError', 'An unexpected error; the body says nothing of its cause (quote x-request-id when reporting it).'],
  503: [
    'ServiceUnavailable',
    "The server is at capacity: the request could not be started in time (REQUEST_QUEUE_TIMEOUT_MS): the server's slots (REQUEST_CONCURRENCY), or the caller's share of them (REQUEST_CONCURRENCY_PER_USER; a file rendered, an export or an upload holds several), were taken, and it was not worked on. Retry after `Retry-After` seconds.",
  ],
};

/**
 * The success content: JSON, and the files the operation offers by Accept (their bytes; what each is in
 * its description). An operation without JSON (json: false) offers its files only.
 */
function responseContent(c: CompiledOperation, root: GraphQLObjectType, components: SchemaComponents): Record<string, { schema: JsonSchema }> {
  const reps = c.op.representations;
  const content: Record<string, { schema: JsonSchema }> = {};
  if (reps?.json !== false) content['application/json'] = { schema: responseSchema(c, root, components) };
  for (const type of Object.keys(reps?.files ?? {})) {
    const description = reps?.describe?.[type];
    content[type] = { schema: { type: 'string', ...(type.startsWith('text/') ? {} : { contentMediaType: type }), ...(description ? { description } : {}) } };
  }
  return content;
}

/** The error statuses a client can meet on one operation. */
function errorStatuses(c: CompiledOperation, hasBody: boolean): number[] {
  // no token, no per-user rate limit, no Idempotency-Key: a public operation's own errors, the body's, the server's
  if (c.op.public) return [400, ...(c.op.path.includes(':') ? [404] : []), ...(hasBody ? [408, 413] : []), 500, 503];
  return [
    400,
    401,
    403,
    ...(c.op.path.includes(':') || c.op.bodyNamesRecords ? [404] : []),
    ...(hasBody ? [408] : []),
    ...(c.needsWrite ? [409] : []),
    ...(hasBody ? [413] : []),
    ...(c.op.representations ? [406] : []),
    ...(c.needsWrite ? [422] : []),
    ...Object.keys(c.op.errors ?? {}).map(Number),
    429,
    500,
    503,
  ];
}

/** Descriptions (and defaults) of the root field's arguments, by the variable passed to each. */
function argumentsByVariable(c: CompiledOperation, root: GraphQLObjectType): Map<string, { description?: string; default?: unknown }> {
  const out = new Map<string, { description?: string; default?: unknown }>();
  const field = c.operation.selectionSet.selections[0];
  if (field.kind !== Kind.FIELD) return out;
  const def = root.getFields()[field.name.value];
  for (const arg of field.arguments ?? []) {
    if (arg.value.kind !== Kind.VARIABLE) continue;
    const a = def?.args.find((x) => x.name === arg.name.value);
    const primitive = ['number', 'boolean'].includes(typeof a?.defaultValue);
    out.set(arg.value.name.value, { description: a?.description ?? undefined, default: primitive ? a!.defaultValue : undefined });
  }
  return out;
}

const LIST_HINT = 'Items separated by comma (or semicolon, or space).';

/** Descriptions of the list parameters every paged operation has, where the schema gives none. */
const KNOWN_PARAMETERS: Record<string, string> = {
  page: 'Page number, from 1 (default 1)',
  per_page: "Records per page (capped at the operation's maximum)",
};

const sentence = (s: string) => (/[.!?)]$/.test(s) ? s : `${s}.`);

function parameters(c: CompiledOperation, root: GraphQLObjectType): (OpenApiParameter | Ref)[] {
  const args = argumentsByVariable(c, root);
  const out: OpenApiParameter[] = [];
  const seen = new Set<string>();
  const add = (p: OpenApiParameter) => {
    if (seen.has(`${p.in} ${p.name}`)) return;
    seen.add(`${p.in} ${p.name}`);
    out.push(p);
  };
  for (const v of c.variables) {
    if (v.source !== 'path') continue;
    add({ name: v.wire, in: 'path', required: true, ...(args.get(v.name)?.description ? { description: args.get(v.name)!.description } : {}), schema: parameterSchema(v.type) });
  }
  const bodyFields = c.bodyVariable ? (getNamedType(c.bodyVariable.type) as GraphQLInputObjectType).getFields() : {};
  for (const b of c.boundFields) {
    const description = bodyFields[b.field]?.description;
    add({ name: b.wire, in: 'path', required: true, ...(description ? { description } : {}), schema: parameterSchema(b.type) });
  }
  for (const v of c.variables) {
    if (v.source !== 'query') continue;
    const list = isListType(getNullableType(v.type));
    const arg = args.get(v.name);
    const schema = parameterSchema(v.type);
    if (arg?.default !== undefined) schema.default = arg.default;
    const description = [arg?.description ?? KNOWN_PARAMETERS[v.wire], list ? LIST_HINT : undefined].filter((x): x is string => !!x).map(sentence).join(' ');
    add({ name: v.wire, in: 'query', required: v.required, ...(description ? { description } : {}), schema, ...(list ? { style: 'form', explode: false } : {}) });
  }
  if (c.op.with) {
    const { allowed, always } = c.op.with;
    const byDefault = withDefaults(c.op);
    add({
      name: withParameter(c.op),
      in: 'query',
      required: false,
      description: `Related records to embed${byDefault.length ? ` (without \`${withParameter(c.op)}\`: ${byDefault.join(', ')})` : ''}${always?.length ? `; ${always.join(', ')} always embedded, whatever it names` : ''}; naming a nested relation includes its parent. ${LIST_HINT}`,
      schema: { type: 'array', items: { type: 'string', enum: [...allowed] }, ...(byDefault.length ? { default: byDefault } : {}) },
      style: 'form',
      explode: false,
    });
  }
  // path parameters first, in the order of the path
  const order = [...c.op.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const rank = (p: OpenApiParameter) => (p.in === 'path' ? order.indexOf(p.name) : order.length);
  out.sort((a, b) => rank(a) - rank(b));
  return c.needsWrite && !c.op.public ? [...out, { $ref: '#/components/parameters/IdempotencyKey' }] : out;
}

/**
 * The form an upload takes (multipart/form-data): the body's fields as text parts, the file's bytes in
 * the file field instead of the base64 field, the file name optional (the file part's own name).
 */
function multipartSchema(options: MultipartOptions, body: JsonSchema): { schema: JsonSchema; encoding: Record<string, { contentType: string }> } {
  const properties: Record<string, JsonSchema> = {
    [options.fileField]: { type: 'string', contentMediaType: 'application/octet-stream', description: `The file (at most ${options.maxBytes} bytes); what it is is sniffed from its bytes` },
  };
  for (const [name, schema] of Object.entries(body.properties as Record<string, JsonSchema>)) {
    if (name === options.contentField) continue;
    properties[name] = name === options.fileNameField ? { ...schema, description: "The file's name; the file part's filename when omitted" } : schema;
  }
  const required = [options.fileField, ...((body.required as string[] | undefined) ?? []).filter((r) => r !== options.contentField && r !== options.fileNameField)];
  return { schema: { type: 'object', properties, required, additionalProperties: false }, encoding: { [options.fileField]: { contentType: 'application/octet-stream' } } };
}

/** GET /files/{id}/{variant}: a presigned file URL (no token: the signature authorises it). */
function fileUrlOperation(errorResponse: (status: number, shape: Shape) => Ref): OpenApiOperation {
  const fileBody = (what: string) => Object.fromEntries(SERVABLE_TYPES.map((t) => [t, { schema: { type: 'string', ...(t.startsWith('text/') ? {} : { contentMediaType: t }), description: what } }]));
  const error = (description: string): OpenApiResponse => ({
    description,
    headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  return {
    operationId: 'get_file_url',
    summary: 'A presigned file URL (download_url, original_url, preview_url, thumbnail_url, page_images[].preview_url of a file): no token, the signature authorises it for one hour.',
    description: [
      '- `download`: the file as uploaded, `Content-Disposition: attachment`, its sniffed content type.',
      '- `original`: the file as uploaded, inline.',
      '- `preview?page=n`: of a PDF page n as a one-page PDF (no rasteriser is available, so pages are PDFs, not images); of an image the image.',
      '- `thumbnail`: of a PDF the first page as a one-page PDF; of an image the image itself (not scaled).',
      '',
      'Answers carry `Cache-Control: private, max-age=<seconds left>`, `X-Content-Type-Options: nosniff` and a Content-Security-Policy that loads nothing (sandboxed for types other than PDF and images).',
      'A file without pages (CSV, XML, office files) has no preview or thumbnail (404).',
    ].join('\n'),
    tags: ['files'],
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
      { name: 'variant', in: 'path', required: true, schema: { type: 'string', enum: [...FILE_VARIANTS] } },
      { name: 'page', in: 'query', required: false, description: 'preview only: the page (1-based), as signed', schema: { type: 'integer', minimum: 1 } },
      { name: 'expires', in: 'query', required: true, description: 'Unix time the URL expires, as signed', schema: { type: 'integer' } },
      { name: 'signature', in: 'query', required: true, description: 'HMAC-SHA256 of the id, variant, page and expiry', schema: { type: 'string' } },
    ],
    responses: {
      200: {
        description: 'The file, or the page',
        headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
        content: fileBody('The bytes (a PDF page as a one-page PDF)'),
      },
      403: error('The URL is altered, incomplete or signed for something else, or it has expired (the text says which): ask for the file again for fresh URLs.'),
      404: error('No such file or variant, a page beyond the last, or a preview or thumbnail of a file without pages.'),
      500: errorResponse(500, 'simple'),
      503: errorResponse(503, 'simple'),
    },
    security: [],
  };
}

/**
 * The OpenAPI 3.1 document of the table (default: the app's), with `servers` at `baseUrl/api/v2` and
 * the OAuth endpoints at `baseUrl/v2/oauth/…`.
 */
export function buildOpenApiDocument(schema: GraphQLSchema, options: { baseUrl: string }, table: readonly Operation[] = operations): OpenApiDocument {
  const base = options.baseUrl.replace(/\/+$/, '');
  const components = new SchemaComponents(new Set(['PageMeta']));
  const responses: Record<string, OpenApiResponse> = {};
  // {error, status} is also what an unknown path or a known path's other method answers (404, 405)
  const schemas: Record<string, JsonSchema> = { [ERROR_SCHEMAS.simple[0]]: ERROR_SCHEMAS.simple[1] };
  const requestId: Ref = { $ref: '#/components/headers/RequestId' };
  const rateLimitHeaders: Record<string, Ref> = Object.fromEntries(
    ['Limit', 'Remaining', 'Reset', 'Policy'].map((h) => [`RateLimit-${h}`, { $ref: `#/components/headers/RateLimit${h}` }]),
  );

  /** The reusable error response of a status in a shape (registered on first use). */
  const errorResponse = (status: number, shape: Shape, own?: string): Ref => {
    const [schemaName, errorSchema] = ERROR_SCHEMAS[shape];
    // an operation's own meaning of a status is a response of its own, named after the text's first words
    const [name, description] = own ? [`${ERRORS[status][0]}${own.split(/\W+/).slice(0, 4).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`, own] : ERRORS[status];
    const key = shape === 'simple' ? name : `${name}${schemaName}`;
    schemas[schemaName] ??= errorSchema;
    responses[key] ??= {
      description,
      headers: {
        'x-request-id': requestId,
        ...(status === 401 || status === 403 ? { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } } : {}),
        ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...rateLimitHeaders } : {}),
        ...(status === 503 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` } } },
    };
    return { $ref: `#/components/responses/${key}` };
  };

  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  for (const c of compiledOperations(schema, table)) {
    const root = (c.isMutation ? schema.getMutationType() : schema.getQueryType())!;
    const tag = c.op.path.split('/')[1];
    if (!tags.includes(tag)) tags.push(tag);
    const body = requestBodySchema(c);
    const status = c.op.status ?? 200;
    const counted = c.op.public ? {} : { ...rateLimitHeaders, ...(c.needsWrite ? { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {}) };
    const operation: OpenApiOperation = {
      operationId: c.toolName,
      summary: c.op.summary,
      tags: [tag],
      parameters: parameters(c, root),
      responses: {
        [status]: {
          description: STATUS_CODES[status] ?? 'Success',
          headers: { 'x-request-id': requestId, ...counted },
          ...(status === 204 ? {} : { content: responseContent(c, root, components) }),
        },
      },
      // spec 000: "A token without write cannot perform POST, PUT, PATCH or DELETE"
      security: c.op.public ? [] : [{ bearer: [c.needsWrite ? 'write' : 'read'] }, { oauth2: [c.needsWrite ? 'write' : 'read'] }],
      ...(c.op.public ? { servers: [{ url: base }] } : {}),
    };
    for (const [other, r] of Object.entries(c.op.representations?.responses ?? {})) {
      operation.responses[other] = { description: r.description, headers: { 'x-request-id': requestId, ...rateLimitHeaders }, content: { 'application/json': { schema: r.schema as JsonSchema } } };
    }
    if (body) {
      const described = c.bodyVariable ? getNamedType(c.bodyVariable.type).description : undefined;
      operation.requestBody = {
        required: !!c.op.bodyRequired || (Array.isArray(body.required) && body.required.length > 0),
        ...(described ? { description: described } : {}),
        content: c.op.multipart ? { 'multipart/form-data': multipartSchema(c.op.multipart, body), 'application/json': { schema: body } } : { 'application/json': { schema: body } },
      };
    }
    for (const s of errorStatuses(c, !!body)) operation.responses[s] = errorResponse(s, c.op.errorShape ?? 'simple', c.op.errors?.[s as 410]);
    // an alias path is the same operation; OpenAPI wants each operationId once
    for (const [i, path] of operationPaths(c.op).entries()) {
      (paths[openApiKey({ ...c.op, path })] ??= {})[c.op.method.toLowerCase()] = i === 0 ? operation : { ...operation, operationId: `${c.toolName}_at_${toSnake(path.split('/')[1])}` };
    }
  }

  paths[openApiPath(`${FILE_URL_PATH}`)] = { get: fileUrlOperation(errorResponse) };
  if (!tags.includes('files')) tags.push('files');

  const scopes = { read: 'Read the data of your client accounts', write: 'Create, change and delete (implies read)' };
  return {
    openapi: '3.1.0',
    info: { title: 'Accounting API', version: PACKAGE_VERSION, description: DESCRIPTION },
    servers: [{ url: `${base}/api/v2` }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...components.schemas, ...schemas },
      responses,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes the write safe to retry: a repeat with the same key within 24 hours answers the first response again (with `Idempotent-Replayed: true`) instead of writing twice; 409 while the first is still running, 422 when the key was used for a different request.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
        },
      },
      headers: {
        RequestId: {
          description:
            "The id of this request, a UUID the server makes (the v2 envelope's request_id); quote it when reporting a problem. A caller's own X-Request-Id is never this id: it is logged beside it and echoed in X-Client-Request-Id.",
          schema: { type: 'string', format: 'uuid' },
        },
        WWWAuthenticate: {
          description: 'RFC 6750 bearer challenge: `error="invalid_token"` or `error="insufficient_scope"`, and `resource_metadata` pointing at the RFC 9728 protected-resource metadata.',
          schema: { type: 'string' },
        },
        IdempotentReplayed: { description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
        RateLimitLimit: { description: "Requests the caller's rate limit allows per window.", schema: { type: 'integer', minimum: 0 } },
        RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
        RateLimitReset: { description: 'Seconds until the current window ends.', schema: { type: 'integer', minimum: 0 } },
        RateLimitPolicy: { description: 'The limit and its window in seconds: `600;w=60`.', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before the next request.', schema: { type: 'integer', minimum: 0 } },
      },
      securitySchemes: {
        // bearer first: Swagger UI's Authorize dialog lists the schemes in this order, and a token
        // from POST /v2/oauth/login (or GraphiQL) pasted there is the quickest way in
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A session token from POST /v2/oauth/login ({"email", "password"} → {access_token}), or any access token of the OAuth server.',
        },
        oauth2: {
          type: 'oauth2',
          description: `OAuth 2.0 (metadata: ${base}/.well-known/oauth-authorization-server). Authorization code with PKCE (S256 or plain) for apps acting for a user, client credentials for server-to-server integrations (clients registered with POST /v2/oauth/clients). Access tokens are JWTs valid 3600 s.`,
          flows: {
            authorizationCode: { authorizationUrl: `${base}/v2/oauth/authorize`, tokenUrl: `${base}/v2/oauth/token`, refreshUrl: `${base}/v2/oauth/token`, scopes },
            clientCredentials: { tokenUrl: `${base}/v2/oauth/token`, scopes },
          },
        },
      },
    },
  };
}
