import type { Git } from '../../adapters/git/index.js'
import { shortOid } from '../../adapters/git/objects.js'
import { cmd } from '../../base/commands.js'
import { timerDelay } from '../../base/duration.js'
import { ConflictError, classifiedError, UsageError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import type { Context } from '../../clikit/context.js'
import { bool, duration } from '../../clikit/flags.js'
import type { Out } from '../../clikit/io.js'
import { openDecisions } from '../../domain/questions/conflicts.js'
import { branchRef, RECORD_LOCK, recordBranch, recordLocked } from '../../domain/record/record.js'
import { checkRemote } from '../../store/workspace.js'
import { renderChanges } from './changes.js'
import type { FileChangedT, RecordSyncDocT } from './json.js'
import { pullRemote } from './pull.js'

/** Pull-record-push rounds before a sync that keeps losing the push race gives up (exit 5). */
export const SYNC_ATTEMPTS = 5

const CONFLICT_COPY = /\.conflict-[0-9a-f]{7}$/

/** Whether an error is git refusing a push because the remote moved (another clone pushed first). */
const lostRace = (e: unknown) => classifiedError(e)?.kind === 'conflict'

/** Whether an error is the remote having no record branch yet (the first sync creates it). */
const noRemoteBranch = (e: unknown) =>
  classifiedError(e)?.kind === 'not_found' && e instanceof Error && /has no .* branch yet/.test(e.message)

/** One sync: pull (merging and raising decisions), record, push; again when another clone's push won first. */
async function syncOnce(ctx: Context, remote: string): Promise<RecordSyncDocT> {
  let files = new Map<string, FileChangedT>()
  let pulled: RecordSyncDocT['pulled'] = 'nothing-to-pull'
  /** The record as the first pull found this clone (its local changes recorded first). */
  let since: string | null | undefined
  const changes = async (commit: string | null) => {
    if (since === null || since === undefined || commit === null) return files
    files = await changedSince(await ctx.git(), since, commit)
    return files
  }
  for (let attempt = 1; ; attempt++) {
    let theirs: string | null = null
    try {
      const r = await pullRemote(ctx, remote)
      if (since === undefined) since = r.step.local
      theirs = r.theirs
      pulled = attempt === 1 || r.step.outcome !== 'up-to-date' ? r.step.outcome : pulled
      for (const f of r.step.changed) files.set(f.path, f)
      if (r.step.outcome === 'materialized') return done(ctx, remote, pulled, 'up-to-date', r.step.tip, attempt, files)
    } catch (e) {
      if (!noRemoteBranch(e)) throw e
    }
    const store = await ctx.store()
    const who = await ctx.identity()
    const git = await ctx.git()
    const tip = await store.withLock(RECORD_LOCK, async () => {
      // What the pull raised (questions, blocked tasks) and anything written meanwhile goes out with the push.
      await recordLocked(store, git, who, {
        message: 'dacli: record (sync)',
        command: `record sync ${remote}`,
        now: ctx.now(),
      })
      return git.resolve(branchRef(store))
    })
    if (tip === null) return done(ctx, remote, pulled, 'not-pushed', null, attempt, files)
    // The remote has exactly this record (as just fetched): nothing to push.
    if (tip === theirs) return done(ctx, remote, pulled, 'up-to-date', tip, attempt, await changes(tip))
    const copies = [...(await git.listFiles((await git.readCommit(tip)).tree)).keys()].filter((p) =>
      CONFLICT_COPY.test(p),
    )
    if (copies.length > 0) return done(ctx, remote, pulled, 'not-pushed', tip, attempt, await changes(tip), copies)
    try {
      const pushed = await git.push(remote, recordBranch(store), store.remoteDeadline)
      return done(ctx, remote, pulled, pushed.outcome, tip, attempt, await changes(tip))
    } catch (e) {
      if (!lostRace(e)) throw e
      if (attempt >= SYNC_ATTEMPTS) {
        throw new ConflictError(
          `another clone pushed first ${count(attempt, 'time')} in a row; nothing is lost — sync again`,
          { cause: e, details: { remote, attempts: attempt }, next: [cmd(`record sync ${remote}`)] },
        )
      }
    }
  }
}

/**
 * What a sync changed in `.dacli/` here: the record as the first pull found this clone against the record the sync
 * ends at — the merged files, and what the merge raised and recorded after them (questions, tasks they blocked and
 * so moved, keys). The pull's own list named a task at the folder the merge left it in, before a question moved it.
 */
async function changedSince(git: Git, from: string, to: string): Promise<Map<string, FileChangedT>> {
  const out = new Map<string, FileChangedT>()
  if (from === to) return out
  const [a, b] = [
    await git.listFiles((await git.readCommit(from)).tree),
    await git.listFiles((await git.readCommit(to)).tree),
  ]
  for (const [p, f] of b) {
    const was = a.get(p)
    if (was === undefined) out.set(p, { path: p, change: 'added' })
    else if (was.oid !== f.oid || was.mode !== f.mode) out.set(p, { path: p, change: 'modified' })
  }
  for (const p of a.keys()) if (!b.has(p)) out.set(p, { path: p, change: 'deleted' })
  return out
}

async function done(
  ctx: Context,
  remote: string,
  pulled: RecordSyncDocT['pulled'],
  pushed: RecordSyncDocT['pushed'],
  commit: string | null,
  attempts: number,
  files: Map<string, FileChangedT>,
  conflicts: string[] = [],
): Promise<RecordSyncDocT> {
  const store = await ctx.store()
  const decisions = await openDecisions(store)
  return {
    schema: 'record-sync/v1',
    remote,
    branch: recordBranch(store),
    outcome: conflicts.length > 0 ? 'conflicts' : decisions.length > 0 ? 'decisions' : 'converged',
    pulled,
    pushed,
    commit,
    attempts,
    files_changed: [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    decisions,
    conflicts,
  }
}

function render(out: Out, d: RecordSyncDocT): void {
  const tip = d.commit === null ? 'nothing recorded' : shortOid(d.commit)
  out.line(
    `${d.outcome} with ${d.remote} at ${tip}: pulled ${d.pulled}, ${d.pushed === 'not-pushed' ? 'not pushed' : d.pushed}${d.attempts > 1 ? ` (${d.attempts} attempts)` : ''}`,
  )
  renderChanges(out, d.files_changed)
  for (const q of d.decisions) {
    out.line(
      `  decide ${q.field} of ${q.ref ?? q.task ?? '?'}: dacli answer ${q.question} ours|theirs|<value>  (ours ${JSON.stringify(q.ours)}, kept ${JSON.stringify(q.theirs)})`,
    )
  }
  for (const c of d.conflicts) out.line(`  conflict copy ${c}: keep what is right in the file, delete the copy`)
}

/** Exit 5 with the document in the details: something waits on a person. */
function waiting(d: RecordSyncDocT): ConflictError {
  const what =
    d.outcome === 'conflicts'
      ? `${count(d.conflicts.length, 'conflict copy', 'conflict copies')} to resolve before the record is pushed`
      : `${count(d.decisions.length, 'decision')} to make (open questions on their tasks)`
  return new ConflictError(`synced with ${d.remote}, but ${what}`, {
    details: { ...d },
    next:
      d.outcome === 'conflicts'
        ? [
            'compare each file with its .conflict-… copy, keep what is right, delete the copy',
            `dacli record sync ${d.remote}`,
          ]
        : [
            'dacli threads --open',
            `dacli answer ${d.decisions[0]?.question ?? '<qid>'} ours|theirs|<value>`,
            `dacli record sync ${d.remote}`,
          ],
  })
}

/**
 * The claims remote's claims (claims.remote in config.yml) fetched again after a sync: another clone's claim is a ref
 * on that remote, not a change to the record, and `next`, `task show` and `doctor` judge claims by the last fetch, so
 * a clone kept in sync (`--watch`) sees a claim made elsewhere within a round. A remote that cannot be reached is a
 * warning: the record is synced all the same.
 */
async function refreshClaims(ctx: Context): Promise<void> {
  const store = await ctx.store()
  const remote = store.config.claims_remote
  if (remote === null) return
  try {
    const { openClaims } = await import('../../domain/claims/remote.js')
    await openClaims(store, ctx.env, remote).fetchAll(ctx.now())
  } catch (e) {
    ctx.notes.warn(`the claims on ${remote} were not fetched this round: ${e instanceof Error ? e.message : String(e)}`)
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve()
    const t = setTimeout(done, timerDelay(ms))
    function done() {
      clearTimeout(t)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })

export const sync = defineCommand({
  path: 'record sync',
  summary: 'Pull, merge, record and push the record branch in one step; --watch keeps the clone converged',
  description:
    'Runs `record pull` (fetch REMOTE, default origin; merge field by field; a field changed differently on both sides keeps the remote’s value and becomes a question on its task), records what is new (the questions too), and pushes. When another clone pushed first, it pulls and pushes again, at most 5 times. Exit 0 when this clone and the remote hold the same record and no merge-conflict question is open; exit 5 with the open decisions (answer them: dacli answer <qid> ours|theirs|<value>, then sync again), or with conflict copies left beside non-task files or of a task file that does not parse (nothing is pushed until they are resolved). A remote without a record branch gets this clone’s. With claims.remote in config.yml, each sync also fetches the claims there (what next, task show and doctor judge claims by). With --watch INTERVAL it syncs again every INTERVAL until Ctrl-C or SIGTERM, then exits 0; a round that fails is reported on stderr and the next round tries again; --jsonl prints one record-sync/v1 line per round.',
  args: [optionalArg('remote', 'the git remote to sync with (a name or URL; default origin)')],
  flags: {
    watch: duration('sync again every INTERVAL until stopped (Ctrl-C or SIGTERM: exit 0)', { valueName: 'INTERVAL' }),
    jsonl: bool('with --watch: one record-sync/v1 JSON object per round'),
  },
  json: 'record-sync/v1',
  streams: 'record-sync/v1',
  mutates: true,
  examples: ['dacli record sync', 'dacli record sync origin --json', 'dacli record sync --watch 5s --jsonl'],
  async run(ctx, input) {
    const remote = checkRemote(input.args.remote ?? 'origin', '<remote>')
    const every = input.flags.watch
    if (input.flags.jsonl === true && every === undefined) throw new UsageError('--jsonl streams the rounds of --watch')
    if (every === undefined) {
      const d = await syncOnce(ctx, remote)
      await refreshClaims(ctx)
      if (d.outcome !== 'converged') throw waiting(d)
      return { data: d, human: (out: Out) => render(out, d) }
    }
    if (every < 100) throw new UsageError('--watch needs an interval of at least 100ms', { details: { watch: every } })
    const stop = ctx.interrupt()
    if (stop === null) {
      throw new UsageError('record sync --watch runs until interrupted, and nothing can interrupt it here', {
        next: [cmd(`record sync ${remote}`)],
      })
    }
    if (!ctx.json) ctx.notes.note(`syncing with ${remote} every ${every} ms (Ctrl-C to stop)`)
    let last: RecordSyncDocT | null = null
    while (!stop.aborted) {
      try {
        const d = await syncOnce(ctx, remote)
        await refreshClaims(ctx)
        const changed = last === null || d.commit !== last.commit || d.decisions.length !== last.decisions.length
        last = d
        if (changed || input.flags.jsonl === true) ctx.emit(d, (out) => render(out, d))
      } catch (e) {
        ctx.notes.note(`sync with ${remote} failed this round: ${e instanceof Error ? e.message : String(e)}`)
      }
      await sleep(every, stop)
    }
    if (last === null) throw new ConflictError(`stopped before a sync with ${remote} finished`)
    const d = last
    // Under --jsonl every line of stdout is a round's object: the last round was printed already, and a closing
    // human line would be the one line a JSONL reader cannot parse.
    const jsonl = input.flags.jsonl === true
    return { data: d, human: (out: Out) => (jsonl ? undefined : render(out, d)) }
  },
})
