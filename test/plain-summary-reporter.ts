import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the closing line CI recognises: `N passed, N failed, N skipped`, alone on a line. Before it,
 * one `FAILED: <file> > <test>: <first line of the error>` line per failure (and per unhandled error),
 * so that the end of a long log, which is what CI shows, names what failed; `.ci/run` repeats these
 * lines of both runs at its very end.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const lines: string[] = [];
    for (const m of testModules) {
      const tests = [...m.children.allTests()];
      if (m.state() === 'failed' && tests.length === 0) {
        failed++; // a file that failed to load
        lines.push(`FAILED: ${m.moduleId}: ${firstLine(m.errors()[0])}`);
      }
      for (const t of tests) {
        const result = t.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') {
          failed++;
          lines.push(`FAILED: ${m.relativeModuleId} > ${t.fullName}: ${firstLine(result.errors?.[0])}`);
        } else skipped++;
      }
    }
    for (const e of unhandledErrors) lines.push(`FAILED: unhandled error: ${firstLine(e)}`);
    process.stdout.write(`\n${lines.map((l) => `${l}\n`).join('')}\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function firstLine(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String(error.message).split('\n')[0].slice(0, 300);
  return String(error).split('\n')[0].slice(0, 300);
}
