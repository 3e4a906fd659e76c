import type { FileLimits } from '../modules/files/file-limits.ts';
import { FileProblem, type Outcome } from './file-problem.ts';
import { tasks, type TaskName } from './tasks.ts';

/**
 * The heavy-work pool's worker (piscina calls the default export with each task): runs the named task
 * and answers its output, or the FileProblem it found as data (an Error's class does not cross the
 * thread boundary). Anything else it throws reaches the server as an error of the task.
 */
export default async function runTask({ task, input, limits }: { task: TaskName; input: unknown; limits: FileLimits }): Promise<Outcome<unknown>> {
  try {
    return { ok: true, value: await (tasks[task] as (input: unknown, limits: FileLimits) => Promise<unknown>)(input, limits) };
  } catch (e) {
    if (e instanceof FileProblem) return { ok: false, problem: { message: e.message, limit: e.limit, partIndex: e.partIndex } };
    throw e;
  }
}
