import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The import graph of the source tree, read from the files themselves (static imports, re-exports,
// `import type` included, and dynamic `import()`), for the structure test: which part of the tree
// imports which, by relative specifier resolved to a file.

export const ROOT = resolve(import.meta.dirname, '../..');

/** Every TypeScript source file under the given folders of the repository (generated code left out). */
export function sourceFiles(...folders: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === 'node_modules' || name === 'generated') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(relative(ROOT, path));
    }
  };
  for (const folder of folders) walk(join(ROOT, folder));
  return out.sort();
}

/** An import or re-export statement (its clause in group 1), an import() or a side-effect import, with its specifier. */
const SPECIFIER = /(?:\b(?:import|export)\s+([^'";]*?)\s*from\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** A clause that brings in types only (`import type …`, `import { type A, type B }`): erased at run time. */
const typeOnly = (clause: string | undefined): boolean => {
  if (!clause) return false;
  if (/^type\b/.test(clause)) return true;
  const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1].split(',').map((n) => n.trim()).filter(Boolean);
  return !!names?.length && names.every((n) => n.startsWith('type '));
};

/**
 * The repository-relative files a source file imports (relative specifiers only); with `runtime`,
 * only the imports that load the file when the program runs (type-only imports left out).
 */
export function importsOf(file: string, options: { runtime?: boolean } = {}): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].filter((m) => !(options.runtime && typeOnly(m[1]))).map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[2])));
}

/**
 * The part of the tree a file belongs to: `src/modules/<module>` for a domain module, `src/<part>`
 * for the other parts of src, `rest-adapter` for the adapter and its routes.
 */
export function partOf(file: string): string {
  const modules = /^src\/modules\/([^/]+)\//.exec(file);
  if (modules) return `src/modules/${modules[1]}`;
  const part = /^src\/([^/]+)\//.exec(file);
  if (part) return `src/${part[1]}`;
  if (file.startsWith('rest-adapter/')) return 'rest-adapter';
  return file;
}

/** The strongly connected components with more than one node (Tarjan): the cycles of a graph. */
export function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}
