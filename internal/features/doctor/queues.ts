// Queue files: one whose lines cannot be read, and items whose reference names no task (removed, or never there).

import { classifiedError, FailureError } from '../../base/errors.js'
import { queueFile, queueSlugs, readQueue } from '../../domain/queue/queues.js'
import { linkOnPath } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'
import type { DoctorDocT } from './json.js'

type Finding = DoctorDocT['findings'][number]

export async function queueFindings(store: Store): Promise<Finding[]> {
  const out: Finding[] = []
  for (const slug of queueSlugs(store)) {
    const rel = store.rel(queueFile(store, slug))
    try {
      const q = await readQueue(store, slug)
      for (const i of q.items.filter((x) => x.dangling !== null)) {
        const waiting = i.turn === 'waiting'
        out.push({
          code: 'dangling-queue-entry',
          severity: waiting ? 'error' : 'warning',
          subject: `${q.path}:${i.line}`,
          message: `queue ${slug} item ${i.n} ("${i.written}", ${i.turn}) names no task: ${i.dangling}`,
          hint: waiting
            ? `delete line ${i.line} of ${q.path} by hand, or close its turn with dacli queue advance ${slug} --fail <reason> once it is the head`
            : `delete line ${i.line} of ${q.path} by hand if its record is not wanted`,
        })
      }
    } catch (e) {
      if (classifiedError(e) === null) throw e
      // A symbolic link is reported as such (symlink-in-workspace); this is a file whose lines cannot be read.
      if (linkOnPath(queueFile(store, slug)) !== null || !(e instanceof FailureError)) continue
      out.push({
        code: 'unparseable-object',
        severity: 'error',
        subject: rel,
        message: `queue ${slug} cannot be read: ${e.message}`,
        hint: `fix the line by hand, or remove the queue with dacli queue rm ${slug} --force`,
      })
    }
  }
  return out
}
