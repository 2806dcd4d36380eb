// What finished work leaves behind: merged task branches (here and on origin), finished worktrees, claim refs of
// done tasks, conflict copies already resolved, dead temp and lock files. Applying takes the plan id the preview
// printed and writes the restore artifact (a JSON file under `.dacli/cleanup/<id>/`, files moved beside it) before
// anything is removed; `--restore` puts every ref, worktree and file back.

import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  deleteLocalRef,
  deleteRemoteRef,
  hasRemote,
  remoteRefs,
  restoreRemoteRef,
  setLocalRef,
} from '../../adapters/git/branches.js'
import { commitsNotOn } from '../../adapters/git/landing.js'
import { addWorktree, changesIn, removeWorktree, revParse } from '../../adapters/git/worktree.js'
import { isBranchName } from '../../base/branchname.js'
import { NotFoundError, UsageError } from '../../base/errors.js'
import type { Identity, TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { conflictCopies } from '../../store/conflicts.js'
import { findTemps, linkOnPath, readBytes, readText } from '../../store/fsio.js'
import { listLocks } from '../../store/lock.js'
import { folderStatus, listTombstones } from '../../store/tombstones.js'
import type { GithubContext } from '../github/context.js'
import { forgetWorktree, real, rememberWorktree, worktreeName } from '../worktree/worktrees.js'
import { CANDIDATE_KINDS } from './kinds.js'
import {
  CLAIMS_PREFIX,
  isTaskWorktree,
  ownerOfBranch,
  ownerOfWorktree,
  planId,
  readWorld,
  refuseOtherPlan,
  TASK_BRANCH_PREFIX,
  type World,
} from './world.js'

/** The `skipped` source of origin's task branches: a cleanup that could not read them is exit 1. */
export const REMOTE_BRANCHES = 'remote_branches'

export type CandidateKind = (typeof CANDIDATE_KINDS)[number]

export interface Candidate {
  kind: CandidateKind
  /** The ref, the worktree or file path (relative to the repository root). */
  subject: string
  /** The commit it points at (refs, worktrees), or null. */
  sha: string | null
  /** The remote a remote ref lives on, or null. */
  remote: string | null
  /** The worktree's branch, or null. */
  branch: string | null
  reason: string
}

export interface CleanupPlan {
  world: World
  candidates: Candidate[]
  plan_id: string
  /** The remotes this clone names that did not answer (their part is in `world.skipped`): the command exits 1. */
  unreachable: string[]
}

export async function planCleanup(ctx: GithubContext, project: string | null): Promise<CleanupPlan> {
  const w = await readWorld(ctx, project, { github: false })
  const { store, git, trunk } = w
  const env = store.env
  const out: Candidate[] = []
  const inScope = (p: string) => w.project === null || p === w.project
  const unreachable: string[] = [...w.unreachable]
  if (git !== null && trunk !== null) {
    const landed = async (sha: string) => (await commitsNotOn(git, env, trunk.commit, sha)).length === 0
    // A removed task is finished work: its tombstone still names its worktree and branch, judged as a done task's.
    const tombs = (await listTombstones(store)).tombstones.map((x) => x.task)
    const owners = [...w.all, ...tombs.filter((t) => t.worktree !== null || t.branch !== null)]
    const finished = (t: TaskRecord) =>
      folderStatus(t.path) === 'removed' ? `${qualifiedRef(t)} was removed` : `${qualifiedRef(t)} is done`
    for (const wt of w.worktrees) {
      if (wt.main || !isTaskWorktree(store, wt) || wt.head === null) continue
      const t = ownerOfWorktree(store, owners, wt)
      if (t === null || t.status !== 'done' || !inScope(t.project)) continue
      // Ignored files too: `git worktree remove` deletes them and the artifact could not give them back.
      const changes = fs.existsSync(wt.path) ? await changesIn(git, env, wt.path, { ignored: true }) : null
      if (changes === null || changes.length > 0 || !(await landed(wt.head))) continue
      out.push({
        kind: 'finished_worktree',
        subject: store.rel(wt.path),
        sha: wt.head,
        remote: null,
        branch: wt.branch,
        reason: `${finished(t)}, its work is on ${trunk.name} and the worktree has no changes`,
      })
    }
    const merged = async (name: string, sha: string) => {
      const t = ownerOfBranch(owners, name)
      if (t === null || t.status !== 'done' || !inScope(t.project)) return null
      if ((await revParse(git, env, sha)) === null || !(await landed(sha))) return null
      return `${finished(t)} and every commit of ${name} is on ${trunk.name}`
    }
    // A branch checked out in a worktree that stays (the main one, one kept for its changes) is not deleted: that
    // worktree's HEAD would name a branch that is gone, as `git branch -d` refuses to do.
    const leaving = new Set(out.map((c) => c.subject))
    const checkedOut = new Set(
      w.worktrees
        .filter((x) => x.branch !== null && !x.prunable && !leaving.has(store.rel(x.path)))
        .map((x) => x.branch),
    )
    for (const b of w.branches) {
      const name = b.ref.slice('refs/heads/'.length)
      if (checkedOut.has(name)) continue
      const why = await merged(name, b.sha)
      if (why !== null)
        out.push({ kind: 'merged_branch', subject: b.ref, sha: b.sha, remote: null, branch: null, reason: why })
    }
    const remote = await remoteRefs(git, env, 'origin', TASK_BRANCH_PREFIX, store.remoteDeadline)
    // A clone without an origin has no remote task branches; one whose origin does not answer is not "nothing".
    if (remote === null && (await hasRemote(git, env, 'origin'))) {
      unreachable.push('origin')
      w.skipped.push({
        source: REMOTE_BRANCHES,
        reason: 'the remote "origin" could not be read: its task branches are not listed',
      })
    }
    for (const b of remote ?? []) {
      const why = await merged(b.ref.slice('refs/heads/'.length), b.sha)
      if (why !== null) {
        out.push({
          kind: 'merged_remote_branch',
          subject: b.ref,
          sha: b.sha,
          remote: 'origin',
          branch: null,
          reason: why,
        })
      }
    }
  }
  const byId = new Map(w.all.map((t) => [t.id, t]))
  for (const c of w.remoteClaims ?? []) {
    const t = byId.get(c.ref.slice(CLAIMS_PREFIX.length))
    if (t === undefined || t.status !== 'done' || !inScope(t.project)) continue
    out.push({
      kind: 'stale_claim_ref',
      subject: c.ref,
      sha: c.sha,
      remote: w.claimsRemote,
      branch: null,
      reason: `${qualifiedRef(t)} is done; its claim ref stayed on ${w.claimsRemote}`,
    })
  }
  if (w.project === null) {
    for (const c of conflictCopies(store.dir)) {
      if (!fs.existsSync(c.original) || !sameBytes(c.copy, c.original)) continue
      out.push(
        fileCandidate(store.rel(c.copy), 'conflict_leftover', `the same bytes as ${store.rel(c.original)}: resolved`),
      )
    }
    for (const t of findTemps(store.system, store.dir)) {
      if (t.dead) out.push(fileCandidate(store.rel(t.path), 'temp_file', 'a temp file whose writer is gone'))
    }
    for (const l of listLocks(store.system, path.join(store.dir, 'locks'))) {
      if (l.dead) out.push(fileCandidate(store.rel(l.file), 'dead_lock', 'a lock whose holder is gone'))
    }
  }
  out.sort((a, b) =>
    a.kind === b.kind
      ? a.subject < b.subject
        ? -1
        : 1
      : CANDIDATE_KINDS.indexOf(a.kind) - CANDIDATE_KINDS.indexOf(b.kind),
  )
  return { world: w, candidates: out, plan_id: planId('cp', out), unreachable: [...new Set(unreachable)] }
}

const fileCandidate = (subject: string, kind: CandidateKind, reason: string): Candidate => ({
  kind,
  subject,
  sha: null,
  remote: null,
  branch: null,
  reason,
})

function sameBytes(a: string, b: string): boolean {
  try {
    return readBytes(a).equals(readBytes(b)) // a FIFO on either side is refused, never waited on
  } catch {
    return false
  }
}

export interface Artifact {
  schema: 'dacli-cleanup-artifact/v1'
  id: string
  plan_id: string
  created: string
  candidates: Candidate[]
  restored_at: string | null
}

const artifactDir = (w: World, id: string) => path.join(w.store.dir, 'cleanup', id)

export interface Outcome {
  candidate: Candidate
  outcome: 'removed' | 'restored' | 'failed' | 'skipped'
  detail: string
}

/**
 * Apply the reviewed plan: the artifact first, then the files moved beside it, then each removal (worktrees before
 * their branches).
 */
export async function applyCleanup(
  ctx: GithubContext,
  project: string | null,
  reviewed: string,
  who: Identity,
): Promise<{ plan: CleanupPlan; artifact: string; outcomes: Outcome[] }> {
  const plan = await planCleanup(ctx, project)
  refuseOtherPlan(plan.plan_id, reviewed, {
    preview: `cleanup${project === null ? '' : ` --project ${project}`}`,
    what: 'the repository',
    nothing: 'nothing removed',
  })
  const w = plan.world
  const id = `${plan.plan_id}-${ctx
    .now()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')}`
  const dir = artifactDir(w, id)
  fs.mkdirSync(path.join(dir, 'files'), { recursive: true })
  const art: Artifact = {
    schema: 'dacli-cleanup-artifact/v1',
    id,
    plan_id: plan.plan_id,
    created: ctx
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z'),
    candidates: plan.candidates,
    restored_at: null,
  }
  writeArtifact(dir, art)
  const outcomes: Outcome[] = []
  const env = w.store.env
  // Files first: removing a worktree makes its task forget it, under the task's lock and with a write in the task's
  // folder, and a process's first lock sweeps the dead locks, a write its folder's dead temp files — the very files
  // this plan moves into the artifact. Moved first, none is deleted on the way. Reported in the plan's order.
  const filesFirst = [...plan.candidates].sort((a, b) => Number(!isFile(a)) - Number(!isFile(b)))
  // The branches of worktrees that could not be removed: still checked out there, so not deleted.
  const stayed = new Set<string>()
  for (const c of filesFirst) {
    const ok = (detail: string) => outcomes.push({ candidate: c, outcome: 'removed', detail })
    const fail = (detail: string) => outcomes.push({ candidate: c, outcome: 'failed', detail })
    try {
      const git = w.git
      if (c.kind === 'finished_worktree' && git !== null) {
        const abs = path.join(w.store.root, c.subject)
        const found = w.worktrees.find((x) => real(x.path) === real(abs))
        const t = found === undefined ? null : ownerOfWorktree(w.store, w.all, found)
        await removeWorktree(git, env, abs, false)
        // The task forgets it, as `worktree prune` has it: a `worktree:` naming a deleted folder sends agents nowhere.
        // The worktree is gone whatever happens next: a task that cannot be rewritten now is said, not a failure.
        let forgot: boolean | string
        try {
          forgot = t === null || (await forgetWorktree(w.store, env, await w.store.readTask(t.id), who))
        } catch (e) {
          forgot = (e as Error).message
        }
        if (forgot === true) ok('worktree removed')
        else if (forgot === false && t !== null)
          ok(`worktree removed; ${qualifiedRef(t)} still names it (only its owner may change the task)`)
        else ok(`worktree removed; its task still names it (${String(forgot)})`)
      } else if (c.kind === 'merged_branch' && git !== null && c.sha !== null) {
        if (stayed.has(c.subject)) fail('its worktree was not removed; left alone')
        else if (await deleteLocalRef(git, env, c.subject, c.sha)) ok('branch deleted')
        else fail('the branch moved; left alone')
      } else if (
        (c.kind === 'merged_remote_branch' || c.kind === 'stale_claim_ref') &&
        git !== null &&
        c.sha !== null
      ) {
        if (await deleteRemoteRef(git, env, c.remote ?? 'origin', c.subject, c.sha, w.store.remoteDeadline))
          ok(`deleted on ${c.remote}`)
        else fail(`${c.subject} moved on ${c.remote}; left alone`)
      } else if (isFile(c)) {
        const to = path.join(dir, 'files', c.subject)
        fs.mkdirSync(path.dirname(to), { recursive: true })
        fs.renameSync(path.join(w.store.root, c.subject), to)
        ok(`moved into ${w.store.rel(dir)}`)
      }
    } catch (e) {
      if (c.kind === 'finished_worktree' && c.branch !== null) stayed.add(`refs/heads/${c.branch}`)
      fail((e as Error).message)
    }
  }
  const at = (o: Outcome) => plan.candidates.indexOf(o.candidate)
  return { plan, artifact: w.store.rel(dir), outcomes: outcomes.sort((a, b) => at(a) - at(b)) }
}

/** A candidate that is a file under `.dacli/` (moved into the artifact), not a ref or a worktree. */
const isFile = (c: Candidate) => c.sha === null && c.kind !== 'finished_worktree'

function writeArtifact(dir: string, a: Artifact): void {
  const file = path.join(dir, 'restore.json')
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(a, null, 2)}\n`)
  fs.renameSync(`${file}.tmp`, file)
}

const isCandidate = (c: unknown): c is Candidate =>
  typeof c === 'object' &&
  c !== null &&
  'kind' in c &&
  'subject' in c &&
  'sha' in c &&
  'remote' in c &&
  'branch' in c &&
  'reason' in c &&
  CANDIDATE_KINDS.some((k) => k === c.kind) &&
  typeof c.subject === 'string' &&
  [c.sha, c.remote, c.branch].every((v) => v === null || typeof v === 'string') &&
  typeof c.reason === 'string'

/** An artifact file's text, checked: not JSON or not an artifact's shape is a usage error naming the file. */
function readArtifact(rel: string, text: string): Artifact {
  let art: unknown
  try {
    art = JSON.parse(text)
  } catch (e) {
    throw new UsageError(`${rel} is not valid JSON (${(e as Error).message}): not a cleanup artifact`, {
      details: { artifact: rel },
    })
  }
  if (
    typeof art !== 'object' ||
    art === null ||
    !('schema' in art) ||
    art.schema !== 'dacli-cleanup-artifact/v1' ||
    !('candidates' in art) ||
    !Array.isArray(art.candidates) ||
    !art.candidates.every(isCandidate) ||
    !('id' in art) ||
    typeof art.id !== 'string'
  )
    throw new UsageError(`${rel} is not a cleanup artifact`, { details: { artifact: rel } })
  return art as Artifact
}

/** Find an artifact by its id, its folder, or the path of its JSON file. */
function findArtifact(w: World, given: string): { dir: string; art: Artifact } {
  const candidates = [
    artifactDir(w, given),
    path.resolve(w.store.root, given),
    path.resolve(w.store.root, path.dirname(given)),
  ]
  const cleanupRoot = path.join(w.store.dir, 'cleanup')
  for (const dir of candidates) {
    const file = path.join(dir, 'restore.json')
    if (!dir.startsWith(`${cleanupRoot}${path.sep}`) || !fs.existsSync(file)) continue
    let text: string
    try {
      if (linkOnPath(file, w.store.dir) !== null) throw new Error('reached through a symbolic link')
      text = readText(file) // a FIFO or device is refused, never waited on
    } catch (e) {
      throw new UsageError(`${w.store.rel(file)} cannot be read (${(e as Error).message}): not a cleanup artifact`, {
        details: { artifact: w.store.rel(file) },
      })
    }
    return { dir, art: readArtifact(w.store.rel(file), text) }
  }
  throw new NotFoundError(`no cleanup artifact "${given}" under ${w.store.rel(cleanupRoot)}`, {
    details: { artifact: given },
    next: [`ls ${w.store.rel(cleanupRoot)}`],
  })
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/**
 * Why a candidate is not one this workspace's cleanup could have written (an artifact edited by hand or brought
 * by another clone), or null: a file outside `.dacli/` or reached through a link, a worktree outside
 * `.dacli/worktrees/`, a ref outside the task branches and claim refs, a remote other than the one its kind uses.
 */
function misplaced(w: World, c: Candidate): string | null {
  const inside = (top: string, abs: string) => abs.startsWith(`${top}${path.sep}`)
  if (c.kind === 'finished_worktree') {
    const abs = path.resolve(w.store.root, c.subject)
    if (!inside(path.join(w.store.dir, 'worktrees'), abs)) return 'a worktree outside .dacli/worktrees/'
    // The branch goes to `git worktree add` as a word of its own: `--lock` would be read as an option.
    if (c.branch !== null && !isBranchName(c.branch)) return 'not a branch name'
    if (c.branch === null && c.sha === null) return 'neither a branch nor a commit id'
    return c.sha === null || SHA.test(c.sha) ? null : 'not a commit id'
  }
  if (c.kind === 'merged_branch' || c.kind === 'merged_remote_branch' || c.kind === 'stale_claim_ref') {
    const prefix = c.kind === 'stale_claim_ref' ? CLAIMS_PREFIX : TASK_BRANCH_PREFIX
    if (!c.subject.startsWith(prefix) || c.subject.includes('..')) return `a ref outside ${prefix}`
    if (c.sha === null || !SHA.test(c.sha)) return 'not a commit id'
    const remote = c.kind === 'merged_branch' ? null : c.kind === 'stale_claim_ref' ? w.claimsRemote : 'origin'
    return c.remote === remote ? null : `a remote other than ${remote ?? 'none'}`
  }
  const abs = path.resolve(w.store.root, c.subject)
  if (c.sha !== null || path.isAbsolute(c.subject) || !inside(w.store.dir, abs)) return 'a file outside .dacli/'
  return linkOnPath(abs, w.store.dir) === null ? null : 'a path through a link'
}

/** Put back what an artifact removed: refs first (a worktree needs its branch), then worktrees, then files. */
export async function restoreCleanup(
  ctx: GithubContext,
  given: string,
  who: Identity,
): Promise<{ artifact: string; outcomes: Outcome[] }> {
  const w = await readWorld(ctx, null, { github: false })
  const { dir, art } = findArtifact(w, given)
  for (const c of art.candidates) {
    const why = misplaced(w, c)
    if (why !== null) {
      throw new UsageError(
        `${w.store.rel(path.join(dir, 'restore.json'))} names ${c.subject} (${c.kind}): ${why}; nothing restored`,
        { details: { artifact: w.store.rel(dir), subject: c.subject, kind: c.kind } },
      )
    }
  }
  const env = w.store.env
  const git = w.git
  const outcomes: Outcome[] = []
  const order = (c: Candidate) => (c.kind === 'finished_worktree' ? 1 : c.sha === null ? 2 : 0)
  for (const c of [...art.candidates].sort((a, b) => order(a) - order(b))) {
    const done = (outcome: Outcome['outcome'], detail: string) => outcomes.push({ candidate: c, outcome, detail })
    try {
      if (c.kind === 'merged_branch' && git !== null && c.sha !== null) {
        const now = await revParse(git, env, c.subject)
        if (now === c.sha) done('skipped', 'already there')
        else if (await setLocalRef(git, env, c.subject, c.sha))
          done('restored', `${c.subject} at ${c.sha.slice(0, 12)}`)
        else done('failed', `${c.subject} exists at another commit; left alone`)
      } else if (
        (c.kind === 'merged_remote_branch' || c.kind === 'stale_claim_ref') &&
        git !== null &&
        c.sha !== null
      ) {
        const there = (await remoteRefs(git, env, c.remote ?? 'origin', c.subject, w.store.remoteDeadline))?.find(
          (r) => r.ref === c.subject,
        )
        if (there?.sha === c.sha) done('skipped', 'already there')
        else if (await restoreRemoteRef(git, env, c.remote ?? 'origin', c.subject, c.sha, w.store.remoteDeadline))
          done('restored', `on ${c.remote}`)
        else done('failed', `could not put ${c.subject} back on ${c.remote}`)
      } else if (c.kind === 'finished_worktree' && git !== null) {
        const abs = path.join(w.store.root, c.subject)
        // Its branch must be where the worktree was: one moved to another commit (and so not restored above) would
        // put the worktree on work that is not its own.
        const tip = c.branch === null ? null : await revParse(git, env, `refs/heads/${c.branch}`)
        if (fs.existsSync(abs)) done('skipped', 'already there')
        else if (tip !== null && c.sha !== null && tip !== c.sha)
          done('failed', `${c.branch} is at another commit, not ${c.sha.slice(0, 12)}; worktree not restored`)
        else {
          await addWorktree(git, env, { path: abs, branch: c.branch ?? (c.sha as string), base: null })
          // Its task names it again (the apply made it forget), so `task show` and `worktree list` find it.
          const t = w.all.find((x) => worktreeName(x) === path.basename(abs)) ?? null
          const told =
            t === null ||
            c.branch === null ||
            (await rememberWorktree(w.store, await w.store.readTask(t.id), who, { path: c.subject, branch: c.branch }))
          const note = told || t === null ? '' : ` (only its owner may name it in ${qualifiedRef(t)})`
          done('restored', `worktree on ${c.branch ?? c.sha}${note}`)
        }
      } else if (c.sha === null) {
        const from = path.join(dir, 'files', c.subject)
        const to = path.join(w.store.root, c.subject)
        if (fs.existsSync(to)) done('skipped', 'already there')
        else if (!fs.existsSync(from)) done('failed', 'not in the artifact')
        else {
          fs.mkdirSync(path.dirname(to), { recursive: true })
          fs.renameSync(from, to)
          done('restored', 'moved back')
        }
      }
    } catch (e) {
      done('failed', (e as Error).message)
    }
  }
  writeArtifact(dir, {
    ...art,
    restored_at: ctx
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z'),
  })
  return { artifact: w.store.rel(dir), outcomes }
}

export { CANDIDATE_KINDS }
