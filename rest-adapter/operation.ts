import type { Writable } from 'node:stream';
import type { RequestHandler } from 'express';
import type { ErrorShape } from '../src/http/error-renderer.ts';
import type { RequestContext } from '../src/shared/context.ts';
import { methodNeedsWrite } from '../src/http/authentication.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One documented operation: a REST entry (method + path) with one static GraphQL document. The
 * REST route, the MCP tool and the OpenAPI description are all derived from it:
 *
 * - each variable `$fooBar` of the document is read from the path parameter, query parameter or body
 *   field `foo_bar` and parsed by its GraphQL type; a variable of an input-object type on a write
 *   takes the whole JSON body (keys snake_case, converted recursively); `names` is needed only where
 *   the spec's wire name is not the snake_case of the variable;
 * - `$with_*` variables are declared from `with`: `with=entries.item` sets `$with_entries` and
 *   `$with_entries_item` (the document only uses them in `@include(if: …)`);
 * - the response body is the value of the operation's single top-level field;
 * - a POST, PUT, PATCH or DELETE needs the `write` scope (`needsWrite`: REST, MCP and OpenAPI alike)
 *   and its document is a mutation, a GET's a query, so GraphQL agrees (compile.ts checks it).
 */
export interface Operation {
  method: HttpMethod;
  /** express path relative to /api/v2, e.g. /items/:id */
  path: string;
  /**
   * Other paths the same operation is served at, with the same path parameters (spec 002: worker
   * tasks exist under both /contributor/tasks and /worker/tasks). One entry, so one MCP tool; each
   * path is a route and an OpenAPI path of its own.
   */
  aliases?: readonly string[];
  /** a GraphQL document with exactly one operation, named verb-first (ListItems, CreateItem): the MCP tool is its snake_case */
  document: string;
  /** what the operation does, in the spec's words (MCP tool and OpenAPI summary) */
  summary: string;
  /** success status: 200 unless given; 204 answers with no body (the document's result is discarded) */
  status?: number;
  /** error body shape: {error, status} unless given */
  errorShape?: Extract<ErrorShape, 'simple' | 'envelope'>;
  /**
   * relations `with` may embed; `default` applies when the request has no `with`; `always` are
   * embedded whatever `with` names (bank transactions' details: "always included on GET");
   * `parameter` names the query parameter where the spec does not call it `with` (documents:
   * `with_relations`)
   */
  with?: { allowed: readonly string[]; default?: readonly string[]; always?: readonly string[]; parameter?: string };
  /**
   * variable → wire name, only where it is not the variable's snake_case (e.g. itemIds: 'item_id').
   * A field of the body's input object may be bound to a path parameter (`'input.itemCollectionId':
   * 'id'`): the path gives it, and a body that repeats it must agree.
   */
  names?: Readonly<Record<string, string>>;
  /**
   * The wire name of the client account parameter where the spec answers a missing or malformed one
   * with 403 instead of 400 ("403 (missing or invalid client_account_id, or no access)"): a query
   * parameter, or a field of the body (a write with no body at all is still a 400, "missing body").
   */
  tenantParameter?: string;
  /**
   * `{}` as the body: always (`'always'`, e.g. deleting a draft answers 200 `{}`), or when the
   * operation's result is null (`'whenNull'`: cancelling a draft removes it and answers `{}`).
   */
  emptyBody?: 'always' | 'whenNull';
  /**
   * A POST that updates the record at its path, as a PUT does (spec 001: "PUT or POST
   * /departments/{id}"): read-only fields echoed back from a GET are ignored, as for PUT and PATCH.
   */
  updates?: boolean;
  /**
   * Wire names of variables a write reads from the query string instead of the JSON body (spec 002:
   * POST /tax-returns/{year}/fetch-prefilled "Query: client_account_id"; validate's from_date, to_date).
   */
  queryParameters?: readonly string[];
  /**
   * The request must have a body even though every field of it is optional: no body is a 400, `{}`
   * is accepted (spec 001: "POST /bank-transactions/{id}/statements … 400 no body").
   */
  bodyRequired?: boolean;
  /**
   * The body (or a query parameter) names records by id, so a missing one is a 404 although the path
   * has no id (spec 001: POST /vouchers/merge "404 voucher not found"; spec 002: GET
   * /integrations/providerb/status?bank_account_id); paths with an id answer 404 anyway.
   */
  bodyNamesRecords?: boolean;
  /**
   * Keys of the result (of each element, when it is a list) left out when null, for fields the spec
   * says "appear only when" something is given or are "omitted when empty" (spec 002 Bank: status,
   * integration_config, onboarding_information). GraphQL keeps them as null.
   */
  omitWhenNull?: readonly string[];
  /**
   * Keys of the result (of each element, when it is a list) whose Decimal strings the wire shows as
   * JSON numbers, digit for digit (spec 000: "Decimal amounts are returned as strings (except where a
   * report row shows a JSON number)": spec 001's balance sheet `balance (number)`). GraphQL keeps the
   * string; the OpenAPI document says number; src/shared/json-text.ts writes the literal.
   */
  numbers?: readonly string[];
  /** answers in other media types by Accept (reports: Excel, HTML, PDF; the SAF-T export) */
  representations?: Representations;
  /**
   * The MCP toolset of the operation where it is not the path's first segment (the bulk posting,
   * POST /journal-entries/batch, is `bulk-posting`: its input schema is large, and the default tool
   * list keeps journal-entries small).
   */
  toolset?: string;
  /** the operation also takes a multipart/form-data body with one file (uploads: POST /files) */
  multipart?: MultipartOptions;
  /**
   * A body parser of the operation's own (a body other than JSON, e.g. a camt.053 file as XML), run
   * on its route only, before the JSON parser (rest-adapter/multipart.ts, operationBodies); it leaves
   * a request it does not take to the next parser.
   */
  bodyParser?: RequestHandler;
  /**
   * A public resource (spec 000: "public (unauthenticated) resources at {base_url}/public/v2/..."):
   * served under /public/v2 instead of /api/v2 (`path` is relative to it), without a token, and its
   * document may only use public fields (`publicField`, src/builder.ts). As an MCP tool it is like
   * any other (the tool endpoint always has a token).
   */
  public?: boolean;
  /**
   * The operation removes or replaces records instead of only adding or changing them (MCP
   * `destructiveHint`; in a chat preview such a change needs approval). Default: a DELETE is.
   */
  destructive?: boolean;
  /**
   * Slots of its user's share in admission control (src/http/admission.ts) a request of this
   * operation holds while it runs, for work known to be heavy whatever it answers (an upload,
   * a PDF rendered by its resolver); default 1. A file answer's weight is `representations.weight`.
   */
  weight?: number;
  /**
   * Error statuses the operation answers besides the ones every operation may (src/openapi/openapi.ts
   * `errorStatuses`), each with what it means here: the change feed's 410 for an expired cursor.
   */
  errors?: Readonly<Partial<Record<410, string>>>;
}

/**
 * The weight of heavy work in admission control: file renders (reports as XLSX, PDF or HTML, PDF
 * forms and previews), the SAF-T export and uploads hold this many slots of their user's share (at
 * most the whole share: on PGlite's default of 2 a user renders one file at a time, on PostgreSQL's
 * 8 two), so a user's burst of them leaves the database and the event loop to the others.
 */
export const HEAVY_WEIGHT = 4;

/**
 * The admission weight of a request of `op`: its own weight, or its files' when it answers a file
 * or has no JSON answer at all (its MCP tool then runs the same rendering).
 */
export function operationWeight(op: Pick<Operation, 'weight' | 'representations'>, answersFile: boolean): number {
  const files = op.representations && (answersFile || op.representations.json === false) ? op.representations.weight : undefined;
  return Math.max(op.weight ?? 1, files ?? 1);
}

/** Where operations are served: /api/v2 with a bearer token, /public/v2 without one. */
export const API_PREFIX = '/api/v2';
export const PUBLIC_PREFIX = '/public/v2';

/** The path an operation is served at on the wire, its prefix included (`/api/v2/items/:id`). */
export const restPath = (op: Pick<Operation, 'path' | 'public'>): string => `${op.public ? PUBLIC_PREFIX : API_PREFIX}${op.path}`;

/**
 * How a multipart/form-data request becomes the operation's body (rest-adapter/multipart.ts): the
 * text fields are the body's fields (each parsed by its variable's type, as a query parameter is),
 * the one file's bytes go to `contentField` (a FileContent variable, which as JSON is base64: the
 * MCP tool and a small JSON request send it so) and its name to `fileNameField` unless the form
 * names it. A file over `maxBytes` is a 413; the OpenAPI document describes both bodies.
 */
export interface MultipartOptions {
  /** the form field carrying the file */
  fileField: string;
  /** the body field (wire name) of the file's bytes */
  contentField: string;
  /** the body field (wire name) of the file's name */
  fileNameField: string;
  maxBytes: number;
  /**
   * The file goes to a temporary file (the OS's temporary directory) instead of memory, and the
   * variable gets a SpooledUpload (its path and size; src/shared/scalars.ts), removed when the
   * response has been sent: for files too large to hold (the SAF-T import's).
   */
  toDisk?: boolean;
}

/** A file an operation answers instead of its JSON result. */
export interface RenderedFile {
  /** 200 unless given (a queued export answers 202) */
  status?: number;
  contentType: string;
  /** the download's name: Content-Disposition attachment (inline for HTML) */
  fileName?: string;
  /** the bytes, or a writer that streams them (never the whole file in memory) */
  body: Buffer | string | ((out: Writable) => Promise<void>);
  /** headers the file needs besides its type (an HTML page's own Content-Security-Policy) */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Renders an operation in one media type: from its JSON `result`, or from the service the operation's
 * field calls, with the `args` that field was called with (after the GraphQL document has checked them
 * and the caller's access); `query` holds the query parameters as sent, snake_case.
 */
export type Rendering = (args: {
  ctx: RequestContext;
  result: unknown;
  args: Readonly<Record<string, unknown>>;
  query: Readonly<Record<string, string | undefined>>;
}) => Promise<RenderedFile | { status: number; json: unknown }>;

/**
 * Media types besides JSON, chosen by the Accept header (spec 001 "Reports"): every one is drawn from
 * the operation's result, so the formats cannot disagree. A media type nobody offers is 406.
 */
export interface Representations {
  /** media type → its rendering; in the order preferred for a wildcard Accept (after JSON) */
  files: Readonly<Record<string, Rendering>>;
  /** false: no JSON answer (the first file type is the default) */
  json?: boolean;
  /** query parameters only the files read (and their defaults there): a JSON answer ignores them */
  fileParameters?: Readonly<Record<string, string | undefined>>;
  /** what each file type is, for the OpenAPI description */
  describe?: Readonly<Record<string, string>>;
  /** other success statuses a rendering answers with a JSON body (the SAF-T ZIP's 202 {message}) */
  responses?: Readonly<Record<number, { description: string; schema: Record<string, unknown> }>>;
  /** slots of its user's share a request answered with a file holds (admission control; `operationWeight`); default 1 */
  weight?: number;
}

/**
 * Whether an operation needs the `write` scope, by its method (spec 000, Authentication 6: "A token
 * without write cannot perform POST, PUT, PATCH or DELETE"): its REST route refuses a token without
 * it (403 insufficient_scope), its MCP tool is not readOnlyHint (tools/list leaves it out for such a
 * token, a call is refused), its OpenAPI security names `write`. A public entry's REST route takes
 * no token at all (spec 000: "Endpoints marked public in this specification require no token"); its
 * MCP tool still needs write.
 */
/**
 * An operation that answers a PDF itself, no JSON, while its GraphQL field carries the file base64
 * (`{file_name, content_base64}`): the bytes decoded and sent as an attachment. `describe` says what
 * the PDF is, for the OpenAPI document.
 */
export function base64Pdf(describe: string): Representations {
  return {
    json: false,
    weight: HEAVY_WEIGHT,
    files: {
      'application/pdf': async ({ result }) => {
        const r = result as { file_name: string; content_base64: string };
        return { contentType: 'application/pdf', fileName: r.file_name, body: Buffer.from(r.content_base64, 'base64') };
      },
    },
    describe: { 'application/pdf': describe },
  };
}

export const needsWrite = (op: Pick<Operation, 'method'>): boolean => methodNeedsWrite(op.method);

/** Whether an operation is destructive (its MCP tool's destructiveHint): as the entry says, else every DELETE. */
export const isDestructive = (op: Pick<Operation, 'method' | 'destructive'>): boolean => op.destructive ?? op.method === 'DELETE';

export const defineOperations = (operations: Operation[]): Operation[] => operations;

/** Every path an operation is served at: its own, then its aliases. */
export const operationPaths = (op: Pick<Operation, 'path' | 'aliases'>): string[] => [op.path, ...(op.aliases ?? [])];

/** The variable a `with` relation turns into: entries.item -> with_entries_item */
/** The query parameter (and MCP argument) an operation's relations are named in: `with` unless the spec says otherwise. */
export const withParameter = (op: Pick<Operation, 'with'>): string => op.with?.parameter ?? 'with';

/** The relations embedded when the request names none: the defaults and those always embedded. */
export const withDefaults = (op: Pick<Operation, 'with'>): string[] => [...new Set([...(op.with?.default ?? []), ...(op.with?.always ?? [])])];

export const withVariable = (relation: string): string => `with_${relation.replace(/\./g, '_')}`;
