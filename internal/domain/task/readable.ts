// Unreadable is not gone: a task that is not there reads as null, one that cannot be read (a file that is not
// UTF-8, not YAML, a link, a FIFO) is exit 1 naming it — never taken for deleted.

import { classifiedError, FailureError } from '../../base/errors.js'
import type { TaskRecord } from '../../format/model.js'
import type { Store } from '../../store/store.js'

/** The task `ref`, null when it does not exist; exit 1 naming it when it exists but cannot be read. */
export async function readTaskOrGone(store: Store, ref: string): Promise<TaskRecord | null> {
  try {
    return await store.readTask(ref)
  } catch (e) {
    if (classifiedError(e)?.kind === 'not_found') return null
    throw new FailureError(`the task ${ref} cannot be read: ${(e as Error).message}; it is not treated as gone`, {
      cause: e,
      details: { task: ref },
      next: ['fix the file by hand (doctor names it), then run again'],
    })
  }
}
