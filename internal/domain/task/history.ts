// A task's history as `task log` shows it (task-history/v1): its ## Log lines merged with the commits that
// changed it on the record branch and, where the code's history tracks the workspace, on HEAD. Commits are
// matched by the task's id (domain/record/history.ts follows it through moves and renumberings). A document builder
// over the store and its git history, kept beside the record like taskdoc.ts; it is loaded with import() by
// `task log` alone, so its git code stays off every other command's path. The wire shape is the task slice's
// json.ts, which checks the built type against its schema at compile time.

import * as path from 'node:path'
import type { Git } from '../../adapters/git/index.js'
import { isoSeconds } from '../../base/time.js'
import type { TaskRecord } from '../../format/model.js'
import { isTaskFilePath, taskIdInText } from '../../format/rawtask.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import { HISTORY_CACHE, History, type Touch } from '../record/history.js'
import { branchRef, workspacePrefix } from '../record/record.js'

/** HEAD is the code's history and may be long: examine at most this many of its commits. */
export const HEAD_SCAN_LIMIT = 5_000

/** One entry of a task's history: a ## Log line, or a commit (record branch or HEAD) that changed the task. */
export interface HistoryEntry {
  at: string
  source: 'log' | 'record' | 'head'
  actor: string | null
  verb: string | null
  details: string | null
  commit: string | null
  author: string | null
  command: string | null
  message: string | null
  path: string | null
  change: Touch['change'] | null
}

const commitEntry = (source: 'record' | 'head', t: Touch): HistoryEntry => ({
  at: isoSeconds(t.at),
  source,
  actor: t.agent,
  verb: null,
  details: null,
  commit: t.commit,
  author: t.author,
  command: t.command,
  message: t.message,
  path: t.path,
  change: t.change,
})

/** The task-history/v1 document of `t`; `git` is null outside a git repository (the ## Log lines only). */
export async function taskHistory(store: Store, git: Git | null, t: TaskRecord) {
  const entries: HistoryEntry[] = t.log.map((l) => ({
    at: l.at,
    source: 'log' as const,
    actor: l.actor,
    verb: l.verb,
    details: l.details === '' ? null : l.details,
    commit: null,
    author: null,
    command: null,
    message: null,
    path: null,
    change: null,
  }))
  const scanned: { record: number | null; head: number | null } = { record: null, head: null }
  let truncated = false
  if (git !== null) {
    const scope = [...workspacePrefix(git, store.dir), 'projects'].join('/')
    const key = store.cacheTrust().key()
    const kept = key === null ? null : { file: path.join(store.dir, 'cache', HISTORY_CACHE), key }
    const history = new History(git, scope, kept, {
      isFollowed: isTaskFilePath,
      identityOf: taskIdInText,
    })
    const seen = new Set<string>()
    const recordTip = await git.resolve(branchRef(store))
    if (recordTip !== null) {
      const r = await history.touches(recordTip, t.id)
      scanned.record = r.scanned
      for (const x of r.touches) {
        seen.add(x.commit)
        entries.push(commitEntry('record', x))
      }
    }
    const head = await git.mainHead()
    // "Where present": only when the code's history tracks the workspace at all.
    if (head !== null && (await git.subtree((await git.readCommit(head)).tree, scope)) !== null) {
      const r = await history.touches(head, t.id, HEAD_SCAN_LIMIT)
      scanned.head = r.scanned
      truncated = r.truncated
      for (const x of r.touches) if (!seen.has(x.commit)) entries.push(commitEntry('head', x))
    }
    history.save()
  }
  // Oldest first; at the same second a log line precedes the commit that recorded it.
  const order = { log: 0, head: 1, record: 2 } as const
  entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : order[a.source] - order[b.source]))
  return {
    schema: 'task-history/v1' as const,
    task: { id: t.id, ref: qualifiedRef(t), title: t.title, status: t.status, path: t.path },
    git: git !== null,
    branch: store.config.record_branch,
    entries,
    commits_scanned: scanned,
    truncated,
  }
}
