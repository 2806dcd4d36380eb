import * as path from 'node:path'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import { authorOf, committerAt } from '../../gitx/author.js'
import type { Git, TreeFile } from '../../gitx/index.js'
import { messageWith, RECORD_LOCK, recordLocked, workspacePrefix } from '../../gitx/record.js'
import { checkBranchName } from '../../gitx/refs.js'
import { ConflictError, classifiedError, type Identity, RefusedError, ROOT_ID, type Store } from '../../store/index.js'
import { DEFAULT_RECORD_BRANCH } from '../../store/workspace.js'
import { renderChanges, shortId } from './common.js'
import type { RecordPullDocT } from './json.js'
import { Merger } from './merge.js'
import { applyChanges, materialize } from './workfiles.js'

/** The workspace, or null on a fresh clone (no `.dacli/` yet); other failures propagate. */
async function storeOrNull(open: () => Promise<Store>): Promise<Store | null> {
  try {
    return await open()
  } catch (e) {
    if (classifiedError(e)?.kind === 'not_found') return null
    throw e
  }
}

const files = (git: Git, tree: string | null): Promise<Map<string, TreeFile>> =>
  tree === null ? Promise.resolve(new Map()) : git.listFiles(tree)
const treeOf = async (git: Git, commit: string | null) => (commit === null ? null : (await git.readCommit(commit)).tree)

export const pull = defineCommand({
  path: 'record pull',
  summary: "Fetch a remote's record branch and merge it into the workspace (a fresh clone gets .dacli/ from it)",
  description:
    'Runs the system git to fetch the record branch from REMOTE (default origin). Changes not yet recorded are recorded first. With no .dacli/ here (a fresh clone) the workspace is created from the record branch. A record that has diverged is merged file by file: events never collide; a task changed on both sides is a conflict (exit 5) — our version stays and theirs is written next to it as <file>.conflict-<commit>; a sequence number taken on both sides renumbers the later-created task (logged, old number kept in aliases). Nothing else in the repository is touched.',
  args: [optionalArg('remote', 'the git remote to pull from (a name or URL; default origin)')],
  flags: {},
  json: 'record-pull/v1',
  mutates: true,
  // A fresh clone has no workspace yet; with one, the grant is checked below.
  standalone: true,
  examples: ['dacli record pull', 'dacli record pull upstream --json'],
  async run(ctx, input) {
    const remote = input.args.remote ?? 'origin'
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
    const ref = `refs/heads/${branch}`
    const now = ctx.now()
    const command = `record pull ${remote}`
    const theirs = await git.fetch(remote, branch)
    const lock = store === null ? null : await store.lock(RECORD_LOCK)
    try {
      let recorded: string | null = null
      if (store !== null) {
        if ((await git.resolve(ref)) === null) await adoptBase(git, store, ref, theirs)
        const r = await recordLocked(store, git, who, { message: 'dacli: record (before pull)', command, now })
        recorded = r.commit
      }
      const local = await git.resolve(ref)
      let outcome: RecordPullDocT['outcome']
      let tip: string
      let merged: Awaited<ReturnType<Merger['merge']>> | null = null
      if (local !== null && (local === theirs || (await git.isAncestor(theirs, local)))) {
        outcome = 'up-to-date'
        tip = local
      } else if (local === null || (await git.isAncestor(local, theirs))) {
        outcome = 'fast-forward'
        tip = theirs
      } else {
        const base = await git.mergeBase(local, theirs)
        const [b, o, t] = await Promise.all([base, local, theirs].map(async (c) => files(git, await treeOf(git, c))))
        merged = await new Merger(git, theirs.slice(0, 7), who.id, now).merge(
          b as Map<string, TreeFile>,
          o as Map<string, TreeFile>,
          t as Map<string, TreeFile>,
        )
        const tree = await git.writeFiles(merged.files)
        tip = await git.writeCommit({
          tree,
          parents: [local, theirs],
          author: authorOf(who, git.repo, ctx.env, now),
          committer: committerAt(now),
          message: messageWith(`dacli: merge the record from ${remote}`, who, command),
        })
        outcome = 'merged'
      }
      const after = await files(git, await treeOf(git, tip))
      let changed: RecordPullDocT['files_changed']
      if (store === null) {
        changed = (await materialize(git, git.repo.mainWorkTree, after)).changes
        outcome = 'materialized'
      } else {
        const root = path.join(store.dir, ...workspacePrefix(git, store.dir).map(() => '..'))
        changed = await applyChanges(git, root, await files(git, await treeOf(git, local)), after)
      }
      if (tip !== local && !(await git.updateRef(ref, tip, local))) {
        throw new ConflictError(`${ref} moved during the pull; the workspace holds the merged files — run it again`, {
          next: [`dacli record pull ${remote}`],
        })
      }
      const data: RecordPullDocT = {
        schema: 'record-pull/v1',
        remote,
        branch,
        outcome,
        commit: tip,
        previous: local,
        remote_commit: theirs,
        recorded,
        files_changed: changed,
        renumbered: merged?.renumbered ?? [],
      }
      if (merged !== null && merged.conflicts.length > 0) {
        throw new ConflictError(
          `${merged.conflicts.length} file(s) changed on both sides; ours are kept, theirs are beside them as *.conflict-${theirs.slice(0, 7)}`,
          {
            details: { conflicts: merged.conflicts, commit: tip, renumbered: data.renumbered },
            next: [
              'compare each file with its .conflict-… copy, keep what is right, delete the copy',
              'dacli record',
              `dacli record push ${remote}`,
            ],
          },
        )
      }
      return {
        data,
        human(out) {
          out.line(
            `${outcome} ${branch} from ${remote} at ${shortId(tip)} (${changed.length} file(s) changed in the workspace)`,
          )
          renderChanges(out, changed)
          for (const r of data.renumbered) {
            out.line(`renumbered ${r.project}/${r.from} → ${r.to}: the number was taken on both sides (${r.path})`)
          }
        },
      }
    } finally {
      lock?.release()
    }
  },
})

/**
 * This machine has a workspace but has never recorded (its `.dacli/` came with
 * the code, say). If the workspace is exactly one of the remote record's
 * commits, adopt that commit as the local tip so the pull fast-forwards instead
 * of merging two unrelated histories.
 */
async function adoptBase(git: Git, store: Store, ref: string, theirs: string): Promise<void> {
  const { snapshotDir, wrapIn } = await import('../../gitx/snapshot.js')
  const local = snapshotDir(store.dir, path.join(store.dir, 'cache', 'record-stat.json'))
  if (local === null) return
  const tree = wrapIn(local, workspacePrefix(git, store.dir)).oid
  let n = 0
  for await (const c of git.walk([theirs])) {
    if (c.tree === tree) {
      await git.updateRef(ref, c.id, null)
      return
    }
    if (++n >= 1_000) return
  }
}
