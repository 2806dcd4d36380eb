import * as fs from 'node:fs'
import * as path from 'node:path'
import { checkBranchName, headRef, tempTag } from '../../adapters/git/refs.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, classifiedError, RefusedError } from '../../base/errors.js'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import type { Context } from '../../clikit/context.js'
import { listAgentFiles, rootKeysOf } from '../../domain/identity/identity.js'
import type { RaisedDecision } from '../../domain/questions/conflicts.js'
import { raiseDecisions } from '../../domain/questions/conflicts.js'
import { RECORD_LOCK } from '../../domain/record/record.js'
import type { Identity } from '../../format/model.js'
import { ROOT_ID } from '../../format/model.js'
import { remoteDeadline, type Store } from '../../store/store.js'
import { checkRemote, DEFAULT_RECORD_BRANCH } from '../../store/workspace.js'
import { isPristine } from './apply.js'
import { PULL_ATTEMPTS, type PullStep, pullOnce, pullResult } from './pullstep.js'

/** The workspace, or null on a fresh clone (no `.dacli/` yet); other failures propagate. */
async function storeOrNull(open: () => Promise<Store>): Promise<Store | null> {
  try {
    return await open()
  } catch (e) {
    if (classifiedError(e)?.kind === 'not_found') return null
    throw e
  }
}

export const pull = defineCommand({
  path: 'record pull',
  summary: "Fetch a remote's record branch and merge it into the workspace (a fresh clone gets .dacli/ from it)",
  description:
    'Runs the system git to fetch the record branch from REMOTE (default origin). Changes not yet recorded are recorded first. With no .dacli/ here (a fresh clone) the workspace is created from the record branch. A record that has diverged is merged file by file and, inside a task, field by field (frontmatter keys three-way, log lines unioned in time order, acceptance boxes per criterion, the status folder as one more field): only the same field changed differently on both sides is a conflict — the task keeps the remote’s value and a question on the task (threads, answer ours|theirs|<value>) holds it out of next; the pull then exits 5 naming the decisions. Events never collide; another file changed on both sides that does not merge field by field keeps ours, with theirs next to it as <file>.conflict-<commit> (a task file that does not parse on some side keeps ours too, the copy in its project’s tasks/ folder); a sequence number taken on both sides renumbers the later-created task (logged, old number kept in aliases). Files are written under the same per-task (and project, glossary, agent, sequence) locks every other writer takes and are re-read under them: if a command changed one since the pull recorded, the pull records and merges again, so a concurrent claim is never overwritten. A workspace exactly as `dacli init` left it (nothing recorded, no projects) is replaced by the remote’s, keeping its id and name. Nothing else in the repository is touched.',
  args: [optionalArg('remote', 'the git remote to pull from (a name or URL; default origin)')],
  flags: {},
  json: 'record-pull/v1',
  mutates: true,
  // A fresh clone has no workspace yet; with one, the grant is checked below.
  standalone: true,
  examples: ['dacli record pull', 'dacli record pull upstream --json'],
  async run(ctx, input) {
    const remote = checkRemote(input.args.remote ?? 'origin', '<remote>')
    const r = await pullRemote(ctx, remote)
    return pullResult(r.step, { remote, branch: r.branch, theirs: r.theirs }, r.replacing, r.decisions)
  },
})

export interface Pulled {
  step: PullStep
  decisions: RaisedDecision[]
  /** The empty workspace `init` made that the pull replaced, or null. */
  replacing: Store | null
  branch: string
  theirs: string
}

/** `record pull` without its document: fetch, record, merge, write, and raise the decisions (record sync runs it too). */
export async function pullRemote(ctx: Context, remote: string): Promise<Pulled> {
  const git = await ctx.git()
  const store = await storeOrNull(ctx.store)
  let who: Identity = { id: ROOT_ID, grant: 'rw', role: 'root', parent: null }
  if (store !== null) {
    who = await ctx.identity()
    if (who.grant !== 'rw') {
      throw new RefusedError('grant', `record pull needs a read-write grant (${who.id} has ${who.grant})`, {
        details: { identity: who.id, grant: who.grant, required: 'rw' },
        next: ['ask an identity with a read-write grant to pull'],
      })
    }
  }
  const branch = checkBranchName(store?.config.record_branch ?? DEFAULT_RECORD_BRANCH)
  const ref = headRef(branch)
  const now = ctx.now()
  const theirs = await git.fetch(remote, branch, store?.remoteDeadline ?? remoteDeadline(ctx.system))
  const lock = store === null ? null : await store.lock(RECORD_LOCK)
  let aside: string | null = null
  try {
    // A workspace `init` made a moment ago (the old advice for a fresh clone) is replaced, not merged.
    // The workspace being replaced, or null.
    const replacing =
      store !== null && store.dir === path.join(git.repo.mainWorkTree, '.dacli') && (await isPristine(store, git, ref))
        ? store
        : null
    if (replacing !== null) {
      aside = `${replacing.dir}.replaced-${tempTag()}`
      fs.renameSync(replacing.dir, aside)
    }
    for (let attempt = 1; ; attempt++) {
      const step = await pullOnce(git, replacing !== null ? null : store, who, {
        remote,
        ref,
        theirs,
        now,
        env: ctx.env,
      })
      if ('moved' in step) {
        if (attempt < PULL_ATTEMPTS) continue
        throw new ConflictError(
          `the workspace kept changing while the pull was merging (${step.moved.slice(0, 5).join(', ')}); nothing was merged — run it again`,
          { details: { paths: step.moved }, next: [cmd(`record pull ${remote}`)] },
        )
      }
      // A signed retirement the pull wrote is remembered now (anchor.ts), so an edit restoring the agent file's
      // earlier bytes cannot revive the identity in this clone.
      const pulled = store ?? (await storeOrNull(ctx.store))
      if (pulled !== null) rootKeysOf(pulled, await listAgentFiles(pulled.dir, pulled.root))
      // A field both sides changed differently: the task kept theirs; each becomes a decision (a question).
      const decisions =
        store !== null && replacing === null && step.merged !== null && step.merged.decisions.length > 0
          ? await raiseDecisions(store, who, step.merged.decisions, remote)
          : []
      return { step, decisions, replacing, branch, theirs }
    }
  } catch (e) {
    if (aside !== null && store !== null && !fs.existsSync(store.dir)) {
      fs.renameSync(aside, store.dir)
      aside = null
    }
    throw e
  } finally {
    if (aside !== null) fs.rmSync(aside, { recursive: true, force: true })
    lock?.release()
  }
}
