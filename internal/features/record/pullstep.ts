// One round of `record pull` (pull.ts runs it, again when a local writer moved a
// file it was about to replace): record local changes, merge the remote's tip,
// write the result under the locks of what changes, and the pull's document.

import * as path from 'node:path'
import type { Git, TreeFile } from '../../adapters/git/index.js'
import { shortOid } from '../../adapters/git/objects.js'
import { cmd } from '../../base/commands.js'
import { ConflictError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import type { Out } from '../../clikit/io.js'
import type { RaisedDecision } from '../../domain/questions/conflicts.js'
import { authorOf, committerAt } from '../../domain/record/author.js'
import { codeFiles } from '../../domain/record/base.js'
import { type Conflict, type MergeResult, Merger } from '../../domain/record/merge.js'
import { messageWith, recordLocked, workspacePrefix } from '../../domain/record/record.js'
import type { Identity } from '../../format/model.js'
import type { Store } from '../../store/store.js'
import { applyLocked } from './apply.js'
import { renderChanges } from './changes.js'
import type { RecordPullDocT } from './json.js'
import { materialize } from './workfiles.js'

const files = (git: Git, tree: string | null): Promise<Map<string, TreeFile>> =>
  tree === null ? Promise.resolve(new Map()) : git.listFiles(tree)
const treeOf = async (git: Git, commit: string | null) => (commit === null ? null : (await git.readCommit(commit)).tree)

/** Tries of record-merge-apply before a pull racing busy local writers gives up (nothing written). */
export const PULL_ATTEMPTS = 6

export interface PullStep {
  outcome: RecordPullDocT['outcome']
  tip: string
  local: string | null
  recorded: string | null
  changed: RecordPullDocT['files_changed']
  merged: MergeResult | null
}

/**
 * Record local changes, merge the remote's tip, and write the result into the workspace under the
 * locks of what changes (apply.ts). `{moved}` when a local writer changed one of those files after the
 * record: nothing was written, and the caller tries again (recording that change first).
 */
export async function pullOnce(
  git: Git,
  store: Store | null,
  who: Identity,
  o: { remote: string; ref: string; theirs: string; now: Date; env: Readonly<Record<string, string | undefined>> },
): Promise<PullStep | { moved: string[] }> {
  const { remote, ref, theirs, now } = o
  const command = `record pull ${remote}`
  let recorded: string | null = null
  if (store !== null) {
    const r = await recordLocked(store, git, who, {
      message: 'dacli: record (before pull)',
      command,
      now,
      tips: [theirs],
    })
    recorded = r.commit
  }
  const local = await git.resolve(ref)
  let outcome: RecordPullDocT['outcome']
  let tip: string
  let merged: MergeResult | null = null
  if (local !== null && (local === theirs || (await git.isAncestor(theirs, local)))) {
    outcome = 'up-to-date'
    tip = local
  } else if (local === null || (await git.isAncestor(local, theirs))) {
    outcome = 'fast-forward'
    tip = theirs
  } else {
    const base = await git.mergeBase(local, theirs)
    // Two records that share no commit (made before a first record started from a common one) merge against
    // the workspace the code branch commits: what both clones started from.
    const [b, ours, t] = await Promise.all([
      base === null && store !== null
        ? codeFiles(git, workspacePrefix(git, store.dir)).then((f) => f ?? new Map<string, TreeFile>())
        : files(git, await treeOf(git, base)),
      files(git, await treeOf(git, local)),
      files(git, await treeOf(git, theirs)),
    ])
    merged = await new Merger(git, theirs.slice(0, 7), who.id, now).merge(
      b as Map<string, TreeFile>,
      ours as Map<string, TreeFile>,
      t as Map<string, TreeFile>,
    )
    const tree = await git.writeFiles(merged.files)
    tip = await git.writeCommit({
      tree,
      parents: [local, theirs],
      author: authorOf(who, git.repo, o.env, now),
      committer: committerAt(now),
      message: messageWith(`dacli: merge the record from ${remote}`, who, command),
    })
    outcome = 'merged'
  }
  const after = await files(git, await treeOf(git, tip))
  const moveRef = async () => {
    if (tip !== local && !(await git.updateRef(ref, tip, local))) {
      throw new ConflictError(`${ref} moved during the pull; the workspace holds the merged files — run it again`, {
        next: [cmd(`record pull ${remote}`)],
      })
    }
  }
  if (store === null) {
    const changed = (await materialize(git, git.repo.mainWorkTree, after)).changes
    await moveRef()
    return { outcome: 'materialized', tip, local, recorded, changed, merged }
  }
  const root = path.join(store.dir, ...workspacePrefix(git, store.dir).map(() => '..'))
  const applied = await applyLocked(store, git, root, await files(git, await treeOf(git, local)), after, moveRef)
  if ('moved' in applied) return applied
  return { outcome, tip, local, recorded, changed: applied.files, merged }
}

export function pullResult(
  s: PullStep,
  o: { remote: string; branch: string; theirs: string },
  replaced: Store | null,
  decisions: readonly RaisedDecision[] = [],
): { data: RecordPullDocT; human: (out: Out) => void } {
  const data: RecordPullDocT = {
    schema: 'record-pull/v1',
    remote: o.remote,
    branch: o.branch,
    outcome: s.outcome,
    commit: s.tip,
    previous: s.local,
    remote_commit: o.theirs,
    recorded: s.recorded,
    files_changed: s.changed,
    renumbered: s.merged?.renumbered ?? [],
  }
  if (decisions.length > 0)
    throw decisionsError(decisions, s.merged?.conflicts ?? [], { commit: s.tip, remote: o.remote })
  if (s.merged !== null && s.merged.conflicts.length > 0) {
    throw new ConflictError(
      `${count(s.merged.conflicts.length, 'file')} changed on both sides; ours are kept, theirs are beside them as *.conflict-${o.theirs.slice(0, 7)}`,
      {
        details: { conflicts: s.merged.conflicts, commit: s.tip, renumbered: data.renumbered },
        next: [
          'compare each file with its .conflict-… copy, keep what is right, delete the copy',
          cmd('record'),
          cmd(`record push ${o.remote}`),
        ],
      },
    )
  }
  return {
    data,
    human(out) {
      if (replaced !== null)
        out.line(`replaced the empty workspace made by \`dacli init\` (id ${replaced.config.id}) with the remote's`)
      out.line(
        `${s.outcome} ${o.branch} from ${o.remote} at ${shortOid(s.tip)} (${count(s.changed.length, 'file')} changed in the workspace)`,
      )
      renderChanges(out, s.changed)
      for (const r of data.renumbered) {
        out.line(`renumbered ${r.project}/${r.from} → ${r.to}: the number was taken on both sides (${r.path})`)
      }
    },
  }
}

/** Exit 5: the merge is done and the workspace holds it, but fields changed differently on both sides wait on people. */
export function decisionsError(
  decisions: readonly RaisedDecision[],
  conflicts: readonly Conflict[],
  o: { commit: string; remote: string },
): ConflictError {
  const first = decisions[0] as RaisedDecision
  return new ConflictError(
    `${count(decisions.length, 'decision')} to make: a field changed differently on both sides (the task keeps ${o.remote}'s value until answered): ${decisions
      .slice(0, 3)
      .map((d) => `${d.field} of ${d.task} (${d.question})`)
      .join(', ')}`,
    {
      details: { decisions, conflicts, commit: o.commit },
      next: [
        cmd('threads --open'),
        cmd(`answer ${first.question} ours|theirs|<value>`),
        cmd(`record sync ${o.remote}`),
      ],
    },
  )
}
