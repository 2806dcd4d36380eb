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
    const block = { issue: mapping.issue, repo: mapping.repo, synced_at: stamp(edit.now) }
    // A new block in flow style, as `github pull` writes an adopted task's (and as every map of a task is written);
    // one already there takes the values in place, in the style a person (or an older dacli) wrote it.
    if (edit.before.github === null) edit.setFlow('github', block)
    else edit.setBlock('github', block)
    if (logLine !== null) edit.log('edited', logLine)
    return true
  })
  return r.task
}
