import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importsOf, partOf, ROOT, sourceFiles } from './import-graph.ts';

// Issue 29, "One edge, one core": the domain modules form no import cycle, no domain module imports
// an edge of the service (the REST adapter, MCP, OpenAPI, the assistant that drives the tools), and
// no lazy import() closes a cycle. Read from the source files (type imports and import() included),
// so a new cycle or a new edge import fails here with the files that make it.

const files = sourceFiles('src', 'rest-adapter');
const EDGES = /^(rest-adapter|src\/mcp|src\/openapi|src\/assistant)(\/|$)/;

/** part → parts it imports, with one file pair per edge to name in a failure */
function partGraph(include: (part: string) => boolean) {
  const graph = new Map<string, Set<string>>();
  const because = new Map<string, string>();
  for (const file of files) {
    const from = partOf(file);
    if (!include(from)) continue;
    for (const target of importsOf(file)) {
      const to = partOf(target);
      if (to === from || !include(to)) continue;
      graph.set(from, (graph.get(from) ?? new Set()).add(to));
      if (!because.has(`${from} ${to}`)) because.set(`${from} ${to}`, `${file} → ${target}`);
    }
  }
  return { graph, because };
}

describe('the import structure', () => {
  it('reads the tree: every domain module and every edge part has files', () => {
    const parts = new Set(files.map(partOf));
    for (const part of ['src/modules/journal-entries', 'src/modules/chat', 'rest-adapter', 'src/mcp', 'src/openapi', 'src/http', 'src/assistant']) expect(parts).toContain(part);
  });

  it('"no import cycle between domain modules" (src/modules/*)', () => {
    const { graph, because } = partGraph((p) => p.startsWith('src/modules/'));
    const described = cyclesOf(graph).map((cycle) =>
      cycle.flatMap((a) => cycle.filter((b) => because.has(`${a} ${b}`)).map((b) => because.get(`${a} ${b}`))).join('\n  '),
    );
    expect(described, `module cycles:\n  ${described.join('\n\n  ')}`).toEqual([]);
  });

  it('"no file under src/modules/ imports" the REST adapter, MCP, OpenAPI or the assistant', () => {
    const offending = files.filter((f) => f.startsWith('src/modules/')).flatMap((f) => importsOf(f).filter((t) => EDGES.test(t)).map((t) => `${f} → ${t}`));
    expect(offending).toEqual([]);
  });

  it('no lazy import() closes a cycle: what a file loads lazily never loads that file again (at run time: type imports are erased)', () => {
    const graph = new Map(files.map((f) => [f, importsOf(f, { runtime: true })]));
    const reaches = (from: string, to: string) => {
      const seen = new Set<string>();
      const stack = [from];
      while (stack.length) {
        const f = stack.pop()!;
        if (f === to) return true;
        if (seen.has(f)) continue;
        seen.add(f);
        stack.push(...(graph.get(f) ?? []));
      }
      return false;
    };
    const lazy = files.flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)].map((m) => [f, importsOf(f).find((t) => t.endsWith(m[1].replace(/^(\.\.?\/)+/, '')))!] as const),
    );
    expect(lazy.length).toBeGreaterThan(0);
    expect(lazy.filter(([f, t]) => t && reaches(t, f)).map(([f, t]) => `${f} ⇢ ${t}`)).toEqual([]);
  });
});
