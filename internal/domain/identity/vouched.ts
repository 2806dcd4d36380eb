// Events as readers show them: someone's words (a question quoted in an agent's brief, a thread, a finding) and work
// waiting (a pending proposal counted by status). An event is shown only when its author provably wrote it — its
// signature is its `created_by`'s, over its content, and that identity is sound (eventProblem, the rule sync and
// doctor apply) — else anyone who can write the work tree could put words in a person's mouth, or instructions in
// an agent's brief under `a-root`'s name. A refused event is left out and said (`forged-event`, as lists skip any
// file they cannot use). Only the events a reader shows are checked: a signature costs ~0.1 ms, and a workspace's
// settled history can hold thousands.

import type { Broken } from '../../format/model.js'
import { type EventRecord, listEvents } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import { rootKeysOf, scanAgents } from './identity.js'
import { eventProblem, signedByPublishedRoot } from './trust.js'

/** Every event, less those `shown` selects whose author cannot be shown to have written them (in `broken`). */
export async function vouchedEvents(
  store: Store,
  shown: (e: EventRecord) => boolean,
): Promise<{ events: EventRecord[]; broken: Broken[] }> {
  const listed = await listEvents(store)
  const check = listed.events.filter(shown)
  if (check.length === 0) return listed
  const { agents } = await scanAgents(store.dir, store.root)
  const keys = rootKeysOf(store, agents)
  const forged = new Set<EventRecord>()
  const broken = [...listed.broken]
  for (const e of check) {
    const why = eventProblem(e, agents, keys)
    // Root's words signed with another clone's published key, not vouched for here yet (no `trust accept`), are shown:
    // a merge's decision raised in one clone must reach every clone. Doctor names the key (untrusted-key).
    if (why === null || signedByPublishedRoot(e, keys)) continue
    forged.add(e)
    broken.push({ path: e.path, reason: `event ${e.id} is refused: ${why}`, code: 'forged-event' })
  }
  return forged.size === 0 ? listed : { events: listed.events.filter((e) => !forged.has(e)), broken }
}
