// The `github:` frontmatter block: set in place (a project's link, a task's
// mapping), so the block's other keys and any comments survive, and the one
// way a task is mapped to its issue (by pull's link and by push's write-back).

import { stamp, type TaskRecord } from '../../format/model.js'
import type { Store } from '../../store/store.js'
import type { TaskFileRef } from '../../store/taskindex.js'

/** Write `github: {issue, repo, synced_at}` into a task, with a log line when the mapping is new. */
export async function writeMapping(
  store: Store,
  file: TaskFileRef & { id: string },
  actor: string,
  mapping: { issue: number; repo: string },
  logLine: string | null,
): Promise<TaskRecord> {
  const r = await store.editTask(file, actor, (edit) => {
    edit.setBlock('github', { issue: mapping.issue, repo: mapping.repo, synced_at: stamp(edit.now) })
    if (logLine !== null) edit.log('edited', logLine)
    return true
  })
  return r.task
}
