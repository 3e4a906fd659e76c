import { createRequire } from 'node:module';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../shared/errors.ts';
import { docsSecurityPolicy } from '../http/security-headers.ts';
import { buildOpenApiDocument } from './openapi.ts';

/**
 * The public description of /api/v2 (mounted before the bearer middleware):
 *   GET /api/v2/openapi.json          the OpenAPI 3.1 document, built once per app
 *   GET /api/v2/docs                  Swagger UI
 *   GET /api/v2/docs/init.js          its initializer (a file, so the page has no inline script)
 *   GET /api/v2/docs/assets/<file>    swagger-ui-dist's files, served by the app: works offline
 * The page and its files have the docs page's Content-Security-Policy (security-headers.ts): among
 * the files is oauth2-redirect.html, a page of its own (Swagger UI's OAuth redirect target).
 */

/** Paths under /api/v2 that this router answers (they are no operations of the table). */
export const DOCS_PATH = /^\/(openapi\.json|docs(\/(init\.js|assets\/[\w.-]+))?)\/?$/;

// swagger-ui-dist's index.js would load the 1.7 MB browser bundle into Node: take only its path.
const getAbsoluteFSPath = createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string;

/** The files of swagger-ui-dist the page uses (nothing else of the package is served). */
const ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui.css.map',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.map',
  'oauth2-redirect.html',
  'oauth2-redirect.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

// URLs are relative to /api/v2/docs, so the page works behind a proxy that adds a path prefix.
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Accounting API – REST /api/v2</title>
    <link rel="stylesheet" href="docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="docs/assets/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/assets/swagger-ui-bundle.js"></script>
    <script src="docs/init.js"></script>
  </body>
</html>
`;

const INIT = `window.addEventListener('load', function () {
  var here = window.location.href;
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', here).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    oauth2RedirectUrl: new URL('docs/assets/oauth2-redirect.html', here).href,
  });
  window.ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true, scopes: ['read', 'write'] });
});
`;

export function docsRoutes(schema: GraphQLSchema, options: { baseUrl: string }): Router {
  const router = express.Router();
  // built on the first request rather than at start-up (about 0.15 s of it): the same bytes either way
  let document: string | undefined;
  const dir = getAbsoluteFSPath();
  const csp = docsSecurityPolicy(options.baseUrl);

  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json').send((document ??= JSON.stringify(buildOpenApiDocument(schema, options))));
  });
  router.get('/docs', csp, (req: Request, res: Response) => {
    if (req.path.endsWith('/')) return res.redirect(301, '../docs'); // the page's relative URLs need /docs
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', csp, (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/javascript').send(INIT);
  });
  router.use(
    '/docs/assets',
    (req: Request, _res: Response, next: NextFunction) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next('router'); // on to /api/v2's own 401/404/405
      if (!ASSETS.has(req.path.slice(1))) return next(new AppError(`No such file: ${req.originalUrl.split('?')[0]}`, 404, 'common.not_found'));
      next();
    },
    csp,
    express.static(dir, { index: false, fallthrough: false, maxAge: '1h' }),
  );
  return router;
}
