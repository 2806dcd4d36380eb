// `task log`: a task’s history, its ## Log merged with the git commits (record branch, HEAD) that changed it.

import * as path from 'node:path'
import { isoSeconds } from '../../base/time.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { History, type Touch } from '../../gitx/history.js'
import { shortOid } from '../../gitx/objects.js'
import { branchRef, workspacePrefix } from '../../gitx/record.js'
import { isTaskFilePath, taskIdInText } from '../../store/rawtask.js'
import { qualifiedRef } from '../../store/refs.js'
import type { HistoryEntryT, TaskHistoryDocT } from './json.js'

/** HEAD is the code's history and may be long: examine at most this many of its commits. */
const HEAD_SCAN_LIMIT = 5_000

const commitEntry = (source: 'record' | 'head', t: Touch): HistoryEntryT => ({
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

export const log = defineCommand({
  path: 'task log',
  summary: "Show a task's history: its ## Log merged with the record-branch (and HEAD) commits that changed it",
  description:
    'Commits are matched by the task’s id, not by its path, so moves between status folders and renumberings are followed. Record-branch commits name the acting identity and command (Dacli-Agent / Dacli-Command trailers); HEAD commits appear when the workspace is committed with the code (at most 5000 HEAD commits are examined; `truncated` says when that limit cut the walk). Outside git only the ## Log lines are shown.',
  args: [arg('ref', 'a task reference: 7, 007, 007-slug, slug, t-<ULID>, each optionally as <project>/<ref>')],
  flags: {},
  json: 'task-history/v1',
  mutates: false,
  examples: ['dacli task log ledger/2', 'dacli task log 2 --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const t = await store.readTask(input.args.ref)
    const branch = store.config.record_branch
    const entries: HistoryEntryT[] = t.log.map((l) => ({
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
    const scanned: TaskHistoryDocT['commits_scanned'] = { record: null, head: null }
    let truncated = false
    if (store.git !== null) {
      const git = await ctx.git()
      const scope = [...workspacePrefix(git, store.dir), 'projects'].join('/')
      const history = new History(git, scope, path.join(store.dir, 'cache', 'history.json'), {
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
    const data: TaskHistoryDocT = {
      schema: 'task-history/v1',
      task: { id: t.id, ref: qualifiedRef(t), title: t.title, status: t.status, path: t.path },
      git: store.git !== null,
      branch,
      entries,
      commits_scanned: scanned,
      truncated,
    }
    return {
      data,
      human(out) {
        out.line(`${out.style('bold', data.task.ref)}  ${data.task.title}`)
        for (const e of entries) {
          const what =
            e.source === 'log'
              ? `${e.actor ?? ''} ${e.verb ?? ''}${e.details ? ` ${e.details}` : ''}`
              : `${shortOid(e.commit ?? '')} ${e.actor ?? e.author ?? ''}  ${e.message ?? ''}${e.change === 'moved' || e.change === 'added' ? `  → ${e.path}` : ''}`
          out.line(`  ${out.style('dim', e.at)}  ${e.source.padEnd(6)}  ${what}`)
        }
        if (!data.git) out.line(out.style('dim', '  (not in a git repository: log lines only)'))
        if (truncated) out.line(out.style('dim', `  … HEAD history examined up to ${HEAD_SCAN_LIMIT} commits`))
      },
    }
  },
})
