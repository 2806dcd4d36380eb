// Wire shapes of the watch slice.

import { z } from 'zod'

const KINDS =
  'task.created, task.changed, task.moved, task.deleted (a file gone from every folder, outside dacli), task.unreadable (a file still there that a hand edit made unreadable; repaired, it is task.changed), claim.taken, claim.released, note.added, event.added, question.asked, question.answered (and event.applied, event.dismissed, risk.added, project.created, project.changed, project.removed, agent.spawned, agent.retired); an open vocabulary: readers must tolerate kinds added later'

const WatchEventBody = {
  cursor: z.string().describe('resume after this change with --since <cursor>'),
  at: z.string().describe('when the change was written (RFC 3339 UTC)'),
  kind: z.string().describe(KINDS),
  ref: z.string().nullable().describe('the object, as people write it (a task ref, p/note-slug, an event id)'),
  actor: z.string().nullable().describe('the identity that made the change'),
  summary: z.string().describe('one line saying what changed'),
  id: z.string().nullable().describe('the object’s id (t-…, n-…, q-…, an event ULID, p-…, a-…)'),
  project: z.string().nullable(),
  from: z.string().nullable().describe('a task that moved: the folder it left'),
  to: z.string().nullable().describe('a task that moved: the folder it went to'),
  source: z
    .enum(['dacli', 'external'])
    .describe(
      'dacli: written by a dacli command (from the change journal, with its actor); external: found in the files with no journal line explaining it (a hand edit, mv, rm, git checkout or pull, record pull); actor is then null',
    ),
}

export const WatchEventDoc = z.strictObject({ schema: z.literal('watch-event/v1'), ...WatchEventBody })

export const WatchEventListDoc = z.strictObject({
  schema: z.literal('watch-event-list/v1'),
  since: z.string().describe('the cursor the watch started from'),
  cursor: z.string().describe('the cursor to resume from next time (after the last change read, filtered or not)'),
  project: z.string().nullable(),
  events: z.array(z.strictObject(WatchEventBody)).describe('in the order they were written'),
  ended: z
    .enum(['timeout', 'interrupted'])
    .describe('interrupted: stopped before its --timeout (Ctrl-C, or an MCP call cancelled or its server closing)'),
})

export const documents = { 'watch-event/v1': WatchEventDoc, 'watch-event-list/v1': WatchEventListDoc }
export type WatchEventDocT = z.infer<typeof WatchEventDoc>
export type WatchEventListDocT = z.infer<typeof WatchEventListDoc>
