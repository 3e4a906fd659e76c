import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileLimits } from '../modules/files/file-limits.ts';
import { ServiceUnavailableError } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { FileProblem, type Outcome } from './file-problem.ts';
import type { TaskInput, TaskName, TaskOutput } from './tasks.ts';

export { FileProblem };

/**
 * Heavy work off the request and job threads: reading uploaded documents (PDF parsing, page counts,
 * page extraction, merge and split, text extraction, the checks of file-limits.ts) and rendering
 * files (report PDFs and spreadsheets) run in a pool of worker threads (piscina), each with a memory
 * limit (`resourceLimits`) and every task with a time limit. A worker that exceeds either is
 * terminated, the pool starts a fresh one, and the task fails with HeavyWorkError naming the limit:
 * one file can cost one task, never the process. The main thread never parses an untrusted document.
 *
 * Tasks are the functions of tasks.ts, called by name with structured-cloneable input; a problem the
 * task finds with its input (FileProblem: unreadable, beyond a limit) comes back as a FileProblem here.
 */

export interface HeavyWorkOptions {
  /** worker threads at most (WORKER_THREADS) */
  threads: number;
  /** each worker's JavaScript heap, in MB (WORKER_MAX_MEMORY_MB) */
  maxMemoryMb: number;
  /** how long one task may run (WORKER_TASK_TIMEOUT_MS) */
  timeoutMs: number;
  /** the limits on uploaded files, given to every task */
  limits: FileLimits;
}

export const DEFAULT_WORKER_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));

/** A task stopped by the pool: the worker ran out of memory or time, or the pool is saturated. */
export class HeavyWorkError extends Error {
  constructor(
    readonly reason: 'memory' | 'time',
    message: string,
  ) {
    super(message);
  }
}

export interface HeavyWork {
  run<N extends TaskName>(task: N, input: TaskInput<N>): Promise<TaskOutput<N>>;
  /** waits for running tasks and stops the workers */
  close(): Promise<void>;
}

/**
 * The worker's module: in the bundle (npm start) dist/heavy-worker.mjs beside dist/server.mjs; from
 * the sources (tests, npm run dev, the CLI through tsx) the TypeScript entry, loaded through tsx.
 */
function workerEntry(): { filename: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return { filename: join(dirname(here), 'heavy.worker.ts'), execArgv: ['--import', 'tsx'] };
  return { filename: join(dirname(here), 'heavy-worker.mjs'), execArgv: [] };
}

const pools = new Map<string, HeavyWork>();

/** The pool of these options: one per process and options (the app and the job runner of one process share it). */
export function heavyWork(options: HeavyWorkOptions, logger?: Logger): HeavyWork {
  const key = JSON.stringify(options);
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = createPool(options, logger)));
  return pool;
}

function createPool(options: HeavyWorkOptions, logger?: Logger): HeavyWork {
  // piscina is loaded with the first task: most requests never need it
  let piscina: Promise<import('piscina').Piscina> | undefined;
  const start = () =>
    (piscina ??= import('piscina').then(({ Piscina }) => {
      const { filename, execArgv } = workerEntry();
      const pool = new Piscina({
        filename,
        execArgv,
        minThreads: 0,
        maxThreads: options.threads,
        // a worker idle for a minute is stopped (its memory returned); the next task starts one (~0.1 s)
        idleTimeout: 60_000,
        // tasks waiting for a worker at most; more are answered 503 (the pool is saturated)
        maxQueue: options.threads * 16,
        resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb, maxYoungGenerationSizeMb: Math.min(32, Math.max(4, options.maxMemoryMb / 8)), stackSizeMb: 4 },
        // a worker that keeps the process alive at exit would hold up a shutdown
        closeTimeout: 5_000,
      });
      // a worker that fails outside a task (it could not start): its task has failed already; an
      // unhandled 'error' would end the process
      pool.on('error', (err: unknown) => logger?.error({ err }, 'a heavy-work worker failed'));
      return pool;
    }));
  return {
    async run(task, input) {
      const pool = await start();
      const signal = AbortSignal.timeout(options.timeoutMs);
      let outcome: Outcome<unknown>;
      try {
        outcome = await pool.run({ task, input, limits: options.limits }, { signal });
      } catch (e) {
        throw translate(e, options, signal);
      }
      if (!outcome.ok) throw new FileProblem(outcome.problem.message, outcome.problem.limit, outcome.problem.partIndex);
      return outcome.value as never;
    },
    async close() {
      if (!piscina) return;
      const pool = await piscina;
      piscina = undefined;
      await pool.close({ force: true });
    },
  };
}

/** The pool's failures in words: memory, time, a full queue. */
function translate(e: unknown, options: HeavyWorkOptions, signal: AbortSignal): unknown {
  const code = (e as { code?: string }).code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new HeavyWorkError('memory', `it needed more than the ${options.maxMemoryMb} MB of memory a worker may use (WORKER_MAX_MEMORY_MB)`);
  }
  if (signal.aborted) return new HeavyWorkError('time', `it took longer than the ${options.timeoutMs / 1000} s a task may take (WORKER_TASK_TIMEOUT_MS)`);
  if (e instanceof Error && /queue is at limit/i.test(e.message)) {
    return new ServiceUnavailableError('The server is busy reading and rendering files; retry after 5 s', 5);
  }
  return e;
}
