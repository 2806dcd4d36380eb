// The paths work in progress holds: each active task's `touches:` globs, and for a task with a worktree the files
// its branch has changed since it left trunk (committed or not). `next`, `overview` and `task claim` ask whether
// a task's own footprint overlaps one held by someone else; the glob logic is domain/plan/overlap.ts (loaded only
// when some footprint is not empty, so a workspace without touches pays nothing).

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { patchOf } from '../../store/livekept.js'
import type { Store } from '../../store/store.js'
import type { Footprint, Overlap } from '../plan/overlap.js'

type Env = Readonly<Record<string, string | undefined>>

/** The most changed files one worktree contributes (a runaway branch must not make `next` slow). */
const MAX_CHANGED = 5000

/** Why a task is held back: the task in progress it overlaps, who holds it, and the entries that meet. */
export interface HeldBy {
  id: string
  ref: string
  /** The identity holding it, or `another clone` for a claim the remote arbitrates. */
  holder: string
  /** Its entries (globs, changed files) that meet the task's own. */
  paths: string[]
  /** The task's own entries that meet them. */
  touches: string[]
  /** Work in progress (`active`), or a task proposed above in the same answer (`proposed`). */
  kind: 'active' | 'proposed'
}

export interface Holder {
  task: TaskSummary
  by: string
  footprint: Footprint
}

export interface Overlaps {
  /** Every task that holds paths against the caller. */
  holders: Holder[]
  /** The tasks in progress a task's footprint overlaps (empty: none). */
  against(t: TaskSummary): Promise<HeldBy[]>
  /** For the frontier: held back by work in progress, or by a task proposed before it; null when free. */
  hold(t: TaskSummary, picked: readonly TaskSummary[]): HeldBy[] | null
}

const holderOf = (t: TaskSummary) => t.claim?.by ?? t.owner

/** Did a task begin or stop declaring paths? */
const touchesChanged = (was: TaskSummary, now: TaskSummary) => (was.touches.length === 0) !== (now.touches.length === 0)

const NO_FOOTPRINT: Footprint = Object.freeze({ patterns: Object.freeze([]), paths: Object.freeze([]) })

/**
 * Of one listing's tasks: those in progress that someone holds, and whether any declares paths. Worked out once per
 * listing (a server keeps a project's listing, the same object, until something in the project changes).
 */
const work = new WeakMap<readonly TaskSummary[], { active: TaskSummary[]; anyTouches: boolean }>()

function workOf(tasks: readonly TaskSummary[]): { active: TaskSummary[]; anyTouches: boolean } {
  const kept = work.get(tasks)
  if (kept !== undefined) return kept
  // A listing patched from the one before where no task in progress was read again and none began or stopped
  // declaring paths: the same tasks in progress, the same answer.
  const patch = patchOf(tasks)
  let w =
    patch?.swaps.every(([was, now]) => was.status !== 'active' && !touchesChanged(was, now)) === true
      ? work.get(patch.from)
      : undefined
  w ??= {
    active: tasks.filter((t) => t.status === 'active' && holderOf(t) !== null),
    anyTouches: tasks.some((t) => t.touches.length > 0),
  }
  work.set(tasks, w)
  return w
}

/**
 * What the caller must keep clear of: active tasks held by another identity (and open tasks another clone
 * claimed), each with its footprint. Worktrees are read through git only for those tasks.
 */
export async function loadOverlaps(
  store: Store,
  env: Env,
  caller: string,
  claimedElsewhere: ReadonlySet<string> = new Set(),
): Promise<Overlaps> {
  const held: TaskSummary[] = []
  let anyTouches = false
  for (const listing of await store.projectListings()) {
    const w = workOf(listing.tasks)
    anyTouches ||= w.anyTouches
    if (claimedElsewhere.size === 0) {
      for (const t of w.active) if (holderOf(t) !== caller) held.push(t)
      continue
    }
    for (const t of listing.tasks) {
      if (
        (t.status === 'active' && holderOf(t) !== null && holderOf(t) !== caller) ||
        (t.status === 'open' && claimedElsewhere.has(t.id))
      )
        held.push(t)
    }
  }
  const changes = new Changes(store, env)
  const holders: Holder[] = []
  for (const t of held) {
    const footprint = { patterns: t.touches, paths: await changes.of(t) }
    if (footprint.patterns.length > 0 || footprint.paths.length > 0)
      holders.push({ task: t, by: t.status === 'active' ? (holderOf(t) ?? '') : 'another clone', footprint })
  }
  const own = new Map<string, Footprint>()
  const engine = holders.length > 0 || anyTouches ? await import('../plan/overlap.js') : null
  // Most tasks declare no paths and have no worktree: they share one empty footprint (the frontier asks for each).
  const footprintOf = (t: TaskSummary): Footprint =>
    own.get(t.id) ?? (t.touches.length === 0 ? NO_FOOTPRINT : { patterns: t.touches, paths: [] })
  const heldBy = (o: Overlap, h: TaskSummary, by: string, kind: HeldBy['kind']): HeldBy => ({
    id: h.id,
    ref: qualifiedRef(h),
    holder: by,
    paths: o.theirs,
    touches: o.mine,
    kind,
  })
  const versus = (t: TaskSummary, f: Footprint): HeldBy[] => {
    if (engine === null || engine.emptyFootprint(f)) return []
    const out: HeldBy[] = []
    for (const h of holders) {
      if (h.task.id === t.id) continue
      const o = engine.overlapOf(f, h.footprint)
      if (o !== null) out.push(heldBy(o, h.task, h.by, 'active'))
    }
    return out
  }
  return {
    holders,
    async against(t) {
      if (t.worktree !== null && !own.has(t.id)) own.set(t.id, { patterns: t.touches, paths: await changes.of(t) })
      return versus(t, footprintOf(t))
    },
    hold(t, picked) {
      const f = footprintOf(t)
      if (engine === null || engine.emptyFootprint(f)) return null
      const out = versus(t, f)
      for (const p of picked) {
        const o = engine.overlapOf(f, footprintOf(p))
        if (o !== null) out.push(heldBy(o, p, 'this answer', 'proposed'))
      }
      return out.length === 0 ? null : out
    },
  }
}

/**
 * The tasks in progress `t` overlaps (loadOverlaps(...).against(t)). A task that declares no paths and has no
 * worktree has an empty footprint and overlaps nothing, so what others hold is not read at all (a claim at
 * 10,000 tasks then lists no project).
 */
export async function overlapsOf(
  store: Store,
  env: Env,
  caller: string,
  claimedElsewhere: ReadonlySet<string>,
  t: TaskSummary,
): Promise<HeldBy[]> {
  if (t.touches.length === 0 && t.worktree === null) return []
  return (await loadOverlaps(store, env, caller, claimedElsewhere)).against(t)
}

/** The files a task's branch changed, through git, once per trunk. */
class Changes {
  private trunk: Promise<string | null> | null = null
  constructor(
    private readonly store: Store,
    private readonly env: Env,
  ) {}

  async of(t: TaskSummary): Promise<string[]> {
    const git = this.store.git
    if (t.worktree === null || git === null) return []
    const wt = await import('../../adapters/git/worktree.js')
    this.trunk ??= wt.trunkOf(git, this.env).then((x) => x?.commit ?? null)
    const trunk = await this.trunk
    if (trunk === null) return []
    const dir = path.join(this.store.root, t.worktree.path)
    const files = await wt.changedSince(git, this.env, {
      trunk,
      branch: t.worktree.branch,
      workTree: fs.existsSync(dir) ? dir : null,
    })
    return (files ?? []).slice(0, MAX_CHANGED)
  }
}

/** `overlaps api/3 on src/auth/**` — one reason in words. */
export function describeHeld(
  h: Pick<HeldBy, 'ref' | 'paths' | 'kind'>,
  refText: (ref: string) => string = (r) => r,
): string {
  const on = h.paths.slice(0, 3).join(', ') + (h.paths.length > 3 ? `, +${h.paths.length - 3} more` : '')
  const ref = refText(h.ref)
  return h.kind === 'proposed' ? `overlaps ${ref} (proposed above) on ${on}` : `overlaps ${ref} on ${on}`
}
