// Where the store and the world disagree: findings by class, each with its evidence, its fix, and whether the fix
// is safe to apply unattended. A plan id digests the findings and the state they were read from; applying takes
// that id, recomputes, and applies only when nothing changed (exit 5 otherwise, nothing applied).

import * as path from 'node:path'
import { deleteRemoteRef } from '../../adapters/git/branches.js'
import { commitsNotOn, mergeNaming, workedOn } from '../../adapters/git/landing.js'
import { isAncestor, revParse } from '../../adapters/git/worktree.js'
import { cmd } from '../../base/commands.js'
import type { Identity, TaskRecord } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { arbitrationOf } from '../claims/arbiter.js'
import { refuseClosingTheirs } from '../claims/arbitrate.js'
import type { GithubContext } from '../github/context.js'
import { pullMarker } from '../github/projection.js'
import { doneTask } from '../task/lifecycle.js'
import { FINDING_CLASSES } from './kinds.js'
import { branchOf, headIn, markedFor } from './pulls.js'
import {
  CLAIMS_PREFIX,
  isTaskWorktree,
  ownerOfBranch,
  ownerOfWorktree,
  planId,
  projectOfName,
  readWorld,
  refuseOtherPlan,
  type World,
} from './world.js'

export type FindingClass = (typeof FINDING_CLASSES)[number]

type Action =
  | { kind: 'close_task'; task: string; branch: string | null; into: string | null }
  | { kind: 'delete_remote_ref'; remote: string; ref: string; sha: string }

export interface Finding {
  class: FindingClass
  subject: string
  evidence: string
  fix: string
  safe: boolean
  /** What applying does (safe findings only). */
  action: Action | null
}

export interface Reconciliation {
  world: World
  findings: Finding[]
  plan_id: string
}

/** The fix of a close the claims remote refuses for now (closeRefused). */
/**
 * A branch here whose commits trunk all carries, landed without a merge (fast-forwarded or rebased onto trunk): its
 * tip, when work was committed on it (its reflog); null when none was (a branch only moved along trunk has landed
 * nothing), or git does not say.
 */
async function movedOnto(w: World, branch: string, tip: string | null): Promise<string | null> {
  if (tip === null || w.git === null) return null
  return (await workedOn(w.git, w.store.env, branch, tip)) ? tip : null
}

const afterTheClaim = (ref: string) => `when the claim is released or has expired, ${cmd(`task done ${ref}`)}`

const allChecked = (t: TaskRecord) => t.acceptance.length > 0 && t.acceptance.every((a) => a.checked)

async function gitFindings(w: World, who: Identity): Promise<Finding[]> {
  const out: Finding[] = []
  const { git, trunk, store } = w
  if (git === null) return out
  const env = store.env
  for (const t of w.tasks) {
    // Its worktree's branch, else the one `branch:` keeps after the worktree was removed (FORMAT.md).
    const branch = t.worktree?.branch ?? t.branch ?? null
    if (branch === null || trunk === null) continue
    const ref = qualifiedRef(t)
    const tip = await revParse(git, env, branch)
    if (t.status === 'done' && tip !== null) {
      const missing = await commitsNotOn(git, env, trunk.commit, tip)
      if (missing.length > 0) {
        out.push({
          class: 'done_not_landed',
          subject: ref,
          evidence: `${missing.length} commit(s) of ${branch} not on ${trunk.name}: ${missing
            .slice(0, 3)
            .map((c) => `${c.sha.slice(0, 12)} ${c.subject}`)
            .join('; ')}`,
          fix: `merge ${branch} into ${trunk.name} (${cmd(`pr open ${ref}`)}), or reopen the task`,
          safe: false,
          action: null,
        })
      }
    }
    if (t.status !== 'done') {
      // Landed as `task done` judges it: while the branch is here, none of its commits missing from trunk (a branch
      // merged once and worked on since has not landed). Then either a merge on trunk names the branch, or, with no
      // merge (a fast-forward, a rebase, a squash), work was committed on the branch (its reflog): a branch never worked on
      // is on trunk too, and has landed nothing.
      const merged =
        tip !== null && (await commitsNotOn(git, env, trunk.commit, tip)).length > 0
          ? null
          : ((await mergeNaming(git, env, trunk.commit, branch)) ?? (await movedOnto(w, branch, tip)))
      if (merged !== null) {
        const held = allChecked(t) ? await closeRefused(w, t, who) : null
        const safe = allChecked(t) && held === null
        out.push({
          class: 'landed_not_done',
          subject: ref,
          evidence: `${
            merged === tip
              ? `${trunk.name} holds the work of ${branch} (at ${merged.slice(0, 12)}; no merge: fast-forward, rebase or squash)`
              : `${trunk.name} has merge ${merged.slice(0, 12)} of ${branch}`
          }; the task is ${t.status}${held === null ? '' : `; ${held}`}`,
          fix: safe
            ? cmd(`task done ${ref} --branch ${merged} --into ${trunk.name}`)
            : held !== null
              ? afterTheClaim(ref)
              : `check its criteria, then ${cmd(`task done ${ref}`)}`,
          safe,
          action: safe ? { kind: 'close_task', task: t.id, branch: merged, into: trunk.name } : null,
        })
      }
    }
  }
  for (const b of w.branches) {
    const name = b.ref.slice('refs/heads/'.length)
    if (!taskBranchWithoutTask(w, name)) continue
    out.push({
      class: 'branch_without_task',
      subject: name,
      evidence: `branch ${name} at ${b.sha.slice(0, 12)} names no task of this workspace`,
      // cleanup never takes a branch without a task (it removes done tasks' branches only): say how to delete it.
      fix: `keep its work elsewhere, then delete it (git branch -D ${name})`,
      safe: false,
      action: null,
    })
  }
  for (const wt of w.worktrees) {
    if (wt.main || !isTaskWorktree(store, wt) || ownerOfWorktree(store, w.all, wt) !== null) continue
    if (!inScope(w, path.basename(wt.path))) continue
    out.push({
      class: 'worktree_without_task',
      subject: store.rel(wt.path),
      evidence: `worktree on ${wt.branch ?? 'a detached head'} belongs to no task`,
      fix: `git worktree remove ${store.rel(wt.path)} once its changes are kept elsewhere`,
      safe: false,
      action: null,
    })
  }
  const byId = new Map(w.all.map((t) => [t.id, t]))
  for (const t of w.tasks) {
    if (t.status === 'done' && t.claim !== null) {
      out.push({
        class: 'claim_on_closed_task',
        subject: qualifiedRef(t),
        evidence: `the done task still records a claim by ${t.claim.by} (since ${t.claim.at})`,
        fix: `${cmd(`task reopen ${qualifiedRef(t)}`)} and close it again, or edit the claim out of the file`,
        safe: false,
        action: null,
      })
    }
  }
  for (const c of w.remoteClaims ?? []) {
    const id = c.ref.slice(CLAIMS_PREFIX.length)
    const t = byId.get(id)
    if (t !== undefined && w.project !== null && t.project !== w.project) continue
    if (t === undefined) {
      out.push({
        class: 'remote_claim_without_task',
        subject: c.ref,
        evidence: `${w.claimsRemote} has ${c.ref} at ${c.sha.slice(0, 12)}; this clone has no task ${id}`,
        fix: `${cmd('record pull')} if another clone made the task; else git push ${w.claimsRemote} --delete ${c.ref}`,
        safe: false,
        action: null,
      })
    } else if (t.status === 'done') {
      out.push({
        class: 'claim_on_closed_task',
        subject: qualifiedRef(t),
        evidence: `${w.claimsRemote} still has ${c.ref} at ${c.sha.slice(0, 12)} for the done task`,
        fix: `delete ${c.ref} on ${w.claimsRemote} (with a lease on ${c.sha.slice(0, 12)})`,
        safe: true,
        action: { kind: 'delete_remote_ref', remote: w.claimsRemote, ref: c.ref, sha: c.sha },
      })
    }
  }
  return out
}

/**
 * Is `name` a task branch (`dacli/…`, never the record branch: the workspace's journal) that no task of the workspace
 * has, in the project asked for? With --project, a name counts when it names exactly that project (project `a`
 * never takes `a-b`'s).
 */
function taskBranchWithoutTask(w: World, name: string): boolean {
  if (!name.startsWith('dacli/') || ownerOfBranch(w.all, name) !== null) return false
  if (name === w.store.config.record_branch) return false
  return inScope(w, name.slice('dacli/'.length))
}

/** Does a task branch's or worktree's name (`<project>-<NNN>-…`) fall in the project asked for (all without one)? */
const inScope = (w: World, name: string) =>
  w.project === null || projectOfName(w.store.projectSlugs(), name) === w.project

async function pullFindings(w: World, who: Identity): Promise<Finding[]> {
  const out: Finding[] = []
  if (w.pulls === null) return out
  const byId = new Map(w.all.map((t) => [t.id, t]))
  for (const p of w.pulls) {
    const m = pullMarker(p.body)
    // A branch name says whose work it is only for a branch of this repository: a fork's PR from a branch of the
    // same name is someone else's.
    const ours = w.repo !== null && headIn(p, w.repo)
    const byBranch = ours ? w.tasks.find((t) => branchOf(t) === p.head.ref) : undefined
    const t = byBranch ?? (m === null ? undefined : byId.get(m.task))
    if (t === undefined) {
      // With --project, a pull request counts when its branch names the project (the marker names only a task).
      const scoped = w.project === null || (ours && p.head.ref.startsWith('dacli/') && inScope(w, p.head.ref.slice(6)))
      if (m !== null && p.state === 'open' && m.ws === w.store.config.id && scoped) {
        out.push({
          class: 'pr_without_task',
          subject: `#${p.number}`,
          evidence: `open pull request #${p.number} carries the marker of ${m.task}, which this workspace does not have`,
          fix: `close #${p.number} on GitHub, or restore the task`,
          safe: false,
          action: null,
        })
      } else if (m === null && p.state === 'open' && ours && taskBranchWithoutTask(w, p.head.ref)) {
        // No marker to go by, but a task branch of this repository (dacli/…) that no task of this workspace has:
        // the pull request of a task removed or never recorded here.
        out.push({
          class: 'pr_without_task',
          subject: `#${p.number}`,
          evidence: `open pull request #${p.number} is from ${p.head.ref}, a task branch no task of this workspace has`,
          fix: `close #${p.number} on GitHub, or give its work a task (${cmd('task add <title>')} and \`branch: ${p.head.ref}\`)`,
          safe: false,
          action: null,
        })
      }
      continue
    }
    if (w.project !== null && t.project !== w.project) continue
    if (!p.merged || t.status === 'done' || !(byBranch !== undefined || markedFor(p, t.id))) continue
    const ref = qualifiedRef(t)
    const sha = p.merge_commit_sha
    const git = w.git
    const onTrunk =
      git !== null && w.trunk !== null && sha !== null && (await revParse(git, w.store.env, sha)) !== null
        ? await isAncestor(git, w.store.env, sha, w.trunk.commit)
        : false
    const held = onTrunk && allChecked(t) ? await closeRefused(w, t, who) : null
    const safe = onTrunk && allChecked(t) && held === null
    out.push({
      class: 'pr_merged_task_open',
      subject: ref,
      evidence: `#${p.number} was merged into ${p.base.ref}${sha === null ? '' : ` as ${sha.slice(0, 12)}`}; the task is ${t.status}${held === null ? '' : `; ${held}`}`,
      fix: safe
        ? cmd(`task done ${ref} --branch ${sha} --into ${w.trunk?.name}`)
        : held !== null
          ? afterTheClaim(ref)
          : `fetch ${p.base.ref}, check the criteria, then ${cmd(`task done ${ref}`)}`,
      safe,
      action: safe ? { kind: 'close_task', task: t.id, branch: sha, into: w.trunk?.name ?? null } : null,
    })
  }
  return out
}

/**
 * What the claims remote would say to closing `t` as `task done` says it through there (claims.remote): another clone's
 * (or identity's) live claim refuses it (5). Asked only for a task whose claim ref the remote has; the refusal's
 * message, else null.
 */
async function closeRefused(w: World, t: TaskRecord, who: Identity): Promise<string | null> {
  if (!(w.remoteClaims ?? []).some((c) => c.ref === `${CLAIMS_PREFIX}${t.id}`)) return null
  try {
    await refuseClosingTheirs(arbitrationOf(w.store, w.store.env, {}), t, who, w.store.now())
    return null
  } catch (e) {
    return (e as Error).message
  }
}

/** The findings as `who` would apply them (a close another clone or identity holds on the claims remote is not safe). */
export async function reconcile(ctx: GithubContext, project: string | null, who: Identity): Promise<Reconciliation> {
  const world = await readWorld(ctx, project, { github: true })
  const findings = [...(await gitFindings(world, who)), ...(await pullFindings(world, who))]
  findings.sort((a, b) =>
    a.class === b.class
      ? a.subject < b.subject
        ? -1
        : a.subject > b.subject
          ? 1
          : 0
      : FINDING_CLASSES.indexOf(a.class) - FINDING_CLASSES.indexOf(b.class),
  )
  const state = {
    trunk: world.trunk,
    tasks: world.tasks.map((t) => [t.id, t.status, t.version]),
    skipped: world.skipped.map((s) => s.source),
  }
  return { world, findings, plan_id: planId('rp', { findings, state }) }
}

export interface Applied {
  class: FindingClass
  subject: string
  outcome: 'applied' | 'failed'
  detail: string
}

/** Recompute; refuse (5) a plan id that no longer matches; apply the safe findings one by one. */
export async function applyReconciliation(
  ctx: GithubContext,
  project: string | null,
  reviewed: string,
  who: Identity,
): Promise<{ r: Reconciliation; applied: Applied[] }> {
  const r = await reconcile(ctx, project, who)
  refuseOtherPlan(r.plan_id, reviewed, {
    preview: `reconcile${project === null ? '' : ` --project ${project}`}`,
    what: 'the world',
    nothing: 'nothing applied',
  })
  const applied: Applied[] = []
  for (const f of r.findings) {
    if (!f.safe || f.action === null) continue
    const a = f.action
    try {
      if (a.kind === 'close_task') {
        // Through the claims remote like `task done` (claims.remote in config.yml): the claim goes with the close.
        await doneTask(r.world.store, a.task, who, {
          arbitration: arbitrationOf(r.world.store, r.world.store.env, {}),
          ...(a.branch === null ? {} : { branch: a.branch }),
          ...(a.into === null ? {} : { into: a.into }),
        })
        applied.push({ class: f.class, subject: f.subject, outcome: 'applied', detail: 'closed as done' })
      } else {
        const git = r.world.git
        const ok =
          git !== null &&
          (await deleteRemoteRef(git, r.world.store.env, a.remote, a.ref, a.sha, r.world.store.remoteDeadline))
        applied.push({
          class: f.class,
          subject: f.subject,
          outcome: ok ? 'applied' : 'failed',
          detail: ok ? `deleted ${a.ref} on ${a.remote}` : `${a.ref} on ${a.remote} moved or could not be deleted`,
        })
      }
    } catch (e) {
      applied.push({ class: f.class, subject: f.subject, outcome: 'failed', detail: (e as Error).message })
    }
  }
  return { r, applied }
}

export { FINDING_CLASSES }
