// The refusal of a close whose branch has not landed on trunk (exit 3, policy `unlanded`), naming what is missing.

import { shortOid } from '../../adapters/git/objects.js'
import { RefusedError } from '../../base/errors.js'
import type { TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Landing } from './landing.js'

export function unlandedRefusal(t: TaskRecord, l: Omit<Landing, 'log'>): RefusedError {
  const what =
    l.head === null
      ? `its branch ${l.branch} no longer exists and no merge into ${l.trunk} names it, so its work cannot be shown to have landed`
      : `${l.missing.length} commit${l.missing.length === 1 ? '' : 's'} of ${l.branch} ${l.missing.length === 1 ? 'is' : 'are'} not on ${l.trunk}: ${l.missing
          .slice(0, 5)
          .map((c) => `${shortOid(c.sha)} ${c.subject}`)
          .join('; ')}${l.missing.length > 5 ? ` (and ${l.missing.length - 5} more)` : ''}`
  return new RefusedError('unlanded', `${qualifiedRef(t)} has not landed: ${what} — do not retry unchanged`, {
    details: {
      branch: l.branch,
      trunk: l.trunk,
      head: l.head,
      missing: l.missing.map((c) => ({ sha: c.sha, subject: c.subject })),
    },
    next: [
      `merge ${l.branch} into ${l.trunk} (or push it and get it merged), then close ${qualifiedRef(t)} again`,
      `close it deliberately with --allow-unlanded (logged as unlanded)`,
    ],
  })
}
