// A server's memory of the workspace, filled at start. The first call about a project used to pay for everything
// the server had not read yet: the project's task listing, its schedule, its notes, the tool's own code compiled for
// the first time. At 10,000 tasks that was 10–25 ms a call, once per project and tool, and it set the tail of an
// agent's session (bench/results: MCP p99 after edits). So once the server is connected it makes, in the background,
// the read calls an agent's loop makes about each project — list_tasks, next_tasks, show_task and get_context of its
// first task — through the same path a client's call takes, and drops their results. Each one waits its own turn of
// the event loop, so a client's call is queued behind one of them at most. Nothing is kept that a call would not
// keep: what stays is the shared memory (store/live.ts) and the caches every read fills, all checked against the
// files on every later call.

import { type CallRuntime, callTool, serves, type Toolset } from './call.js'
import type { ToolResult } from './results.js'
import { TOOL_SCHEMA_VERSION } from './tools.js'

/**
 * The read tools of an agent's loop after list_tasks, each with its arguments for a project (`first`: the reference
 * of the project's first task, as list_tasks gave it).
 */
const READS: readonly (readonly [string, (project: string, first: string | null) => Record<string, unknown> | null])[] =
  [
    ['next_tasks', (project) => ({ project })],
    ['show_task', (_, first) => (first === null ? null : { ref: first })],
    ['get_context', (_, first) => (first === null ? null : { ref: first, budget: 2000 })],
  ]

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The first task's reference in a list_tasks result, or null. */
function firstRef(r: ToolResult): string | null {
  const tasks = r.isError === true ? undefined : r.structuredContent?.tasks
  const ref = Array.isArray(tasks) ? (tasks[0] as { ref?: unknown } | undefined)?.ref : undefined
  return typeof ref === 'string' ? ref : null
}

/**
 * Make list_tasks and the read calls of READS about every project, one per turn of the event loop, until done or
 * `stopped()`. Resolves to the number of calls made. Never throws: a project that cannot be read is reported by the
 * client's own call about it.
 */
export async function warm(set: Toolset, rt: CallRuntime, stopped: () => boolean): Promise<number> {
  let made = 0
  /** One call when the toolset serves the tool and the server is still open; null otherwise. */
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult | null> => {
    if (!serves(set, name)) return null
    await turn()
    if (stopped()) return null
    made++
    return callTool(set, rt, name, { schema_version: TOOL_SCHEMA_VERSION, ...args })
  }
  try {
    await turn()
    // Which projects there are (the store reads only config.yml and the projects folder for that).
    const projects = (await rt.services.store(rt.cwd, rt.env, rt.now)).projectSlugs()
    for (const project of projects) {
      const listed = await call('list_tasks', { project, limit: 1 })
      const first = listed === null ? null : firstRef(listed)
      for (const [name, argsOf] of READS) {
        const args = argsOf(project, first)
        if (args !== null) await call(name, args)
      }
      if (stopped()) break
    }
  } catch {
    // Not a workspace yet, or one that cannot be read: each call says why.
  }
  return made
}
