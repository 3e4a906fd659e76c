/**
 * What a heavy-work task (src/workers/tasks.ts) reports about its input, on both sides of the thread
 * boundary: kept free of imports, since the worker loads it as well as the server.
 */

/** What a file cannot be used for, in words that follow its field's name ("is a PDF of 20000 pages; …"). */
export class FileProblem extends Error {
  constructor(
    message: string,
    /** the configured limit it is beyond, when that is the problem (MAX_PDF_PAGES …) */
    readonly limit?: string,
    /** merge: the index of the part with the problem */
    readonly partIndex?: number,
  ) {
    super(message);
  }
}

/** What a worker sends back: the task's output, or the problem it found with its input. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: { message: string; limit?: string; partIndex?: number } };
