// Editing a task's fields and its dependencies: under the task's lock, by its owner (or a proposal when the
// caller may not rewrite it), refusing an edit that would close a dependency cycle.

import { cmd } from '../../base/commands.js'
import { ConflictError, RefusedError } from '../../base/errors.js'
import { appendToSection, setSection, setTitle } from '../../format/markdown.js'
import type { Identity } from '../../format/model.js'
import { qualifiedRef, resolveAmong } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import { findCycle } from '../plan/cycle.js'
import { type Change, change, mayRewrite, notOwner } from './lifecycle.js'

export async function editTask(
  store: Store,
  ref: string,
  who: Identity,
  p: {
    title?: string
    priority?: string
    estimate?: { optimistic: number; probable: number; pessimistic: number }
    accept?: string[]
    soThat?: string
    context?: string
    ifVersion?: number
    /** Globs added to / removed from `touches:`. */
    touches?: { add: readonly string[]; remove: readonly string[] }
    /** Labels added to / removed from `labels:`. */
    labels?: { add: readonly string[]; remove: readonly string[] }
    /** The milestone, or null to clear it. */
    milestone?: string | null
  },
): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'edit')
  return change(store, target, who, 'edit', async (e) => {
    const cur = e.before
    if (p.ifVersion !== undefined && p.ifVersion !== cur.version) {
      throw new ConflictError(
        `${qualifiedRef(cur)} is at version ${cur.version}, not ${p.ifVersion}: someone changed it since you read it`,
        {
          details: { expected_version: p.ifVersion, actual_version: cur.version },
          next: [cmd(`task show ${qualifiedRef(cur)}`), 'read it again, then retry with the new --if-version'],
        },
      )
    }
    const changed: string[] = []
    if (p.title !== undefined && p.title !== cur.title) {
      e.body = setTitle(e.body, p.title)
      changed.push('title')
    }
    if (p.priority !== undefined && p.priority !== cur.priority) {
      e.set('priority', p.priority)
      changed.push('priority')
    }
    if (p.estimate !== undefined && JSON.stringify(p.estimate) !== JSON.stringify(cur.estimate)) {
      e.setFlow('estimate', { ...p.estimate })
      changed.push('estimate')
    }
    const fresh = (p.accept ?? []).filter((a) => !cur.acceptance.some((x) => x.text === a))
    if (fresh.length > 0) {
      e.body = appendToSection(
        e.body,
        'Acceptance',
        fresh.map((a) => `- [ ] ${a}`),
        { before: 'Log' },
      )
      if (cur.status === 'done') e.status = 'open'
      changed.push('acceptance')
    }
    if (p.soThat !== undefined && p.soThat !== cur.so_that) {
      e.body = setSection(e.body, 'So that', `\n${p.soThat}\n`, { before: 'Acceptance' })
      changed.push('so_that')
    }
    if (p.context !== undefined && p.context !== cur.context) {
      e.body = setSection(e.body, 'Context', `\n${p.context}\n`, { before: 'Acceptance' })
      changed.push('context')
    }
    for (const [key, delta] of [
      ['touches', p.touches],
      ['labels', p.labels],
    ] as const) {
      if (delta === undefined) continue
      const before = cur[key]
      const after = [
        ...before.filter((x) => !delta.remove.includes(x)),
        ...delta.add.filter((x) => !before.includes(x)),
      ]
      if (JSON.stringify(after) === JSON.stringify(before)) continue
      if (after.length === 0) e.delete(key)
      else e.set(key, after)
      changed.push(key)
    }
    if (p.milestone !== undefined && p.milestone !== cur.milestone) {
      if (p.milestone === null) e.delete('milestone')
      else e.set('milestone', p.milestone)
      changed.push('milestone')
    }
    if (changed.length === 0) return false
    e.log('edited', changed.join(', '))
    return { fields: changed, ...(fresh.length > 0 ? { added_criteria: fresh } : {}) }
  })
}

const linkType = (d: { type?: string }) => d.type ?? 'FS'

/**
 * `deps` with a link of `type` to the task `on` (`idOf` names the task a written entry means). FS holds whatever
 * the other three hold, so adding FS replaces every link to that task, and adding another type replaces an FS link;
 * SS, FF and SF stand beside each other (SS and FF: start together, finish together). A link there already changes
 * nothing.
 */
export function withLink<D extends { on: string; type?: string }>(
  deps: readonly D[],
  on: string,
  type: string,
  idOf: (on: string) => string = (x) => x,
): D[] {
  const same = (d: D) => idOf(d.on) === on
  if (deps.some((d) => same(d) && linkType(d) === type)) return [...deps]
  const kept = deps.filter((d) => !same(d) || (type !== 'FS' && linkType(d) !== 'FS'))
  return [...kept, { on, type } as D]
}

/** `deps` without its links to the task `on` of `type` (null: of every type), `idOf` as for withLink. */
export function withoutLink<D extends { on: string; type?: string }>(
  deps: readonly D[],
  on: string,
  type: string | null,
  idOf: (on: string) => string = (x) => x,
): D[] {
  return deps.filter((d) => (idOf(d.on) !== on && d.on !== on) || (type !== null && linkType(d) !== type))
}

export async function dependTask(
  store: Store,
  ref: string,
  who: Identity,
  add: { on: string; type: string }[],
  /** A removal's type, or null: every link to that task. */
  remove: { on: string; type: string | null }[],
): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'change the dependencies of')
  const resolveAll = async <T extends string | null>(list: { on: string; type: T }[]) => {
    const out: { on: string; type: T; ref: string }[] = []
    for (const d of list) {
      const dep = await store.readTask(d.on, { prefer: t.project })
      if (dep.id === t.id)
        throw new RefusedError('dependency-cycle', `${qualifiedRef(t)} cannot depend on itself`, {
          next: [cmd(`task depend ${qualifiedRef(t)} --add <another task>`)],
          details: { cycle: [qualifiedRef(t)] },
        })
      out.push({ on: dep.id, type: d.type, ref: qualifiedRef(dep) })
    }
    return out
  }
  const adds = await resolveAll(add)
  // An entry that names no one task (doctor's dangling-dependency) is removed by the text it was written with.
  const removes: { on: string; type: string | null; ref: string }[] = []
  for (const r of remove) {
    const written = t.depends_on.find((d) => d.on === r.on)
    try {
      removes.push(...(await resolveAll([r])))
    } catch (e) {
      if (written === undefined) throw e
      removes.push({ on: written.on, type: r.type, ref: written.on })
    }
  }
  const all = (await store.listTasks()).tasks
  return change(store, target, who, 'depend', (e) => {
    const cur = e.before
    let deps = cur.depends_on.map((d) => ({ ...d }))
    const before = JSON.stringify(deps)
    // A dependency written by hand may name its task in any reference form (`alpha/001`, `7`, a slug).
    const idOf = (on: string) => resolveAmong(all, on, cur.project)?.id ?? on
    for (const r of removes) deps = withoutLink(deps, r.on, r.type, idOf)
    for (const a of adds) deps = withLink(deps, a.on, a.type, idOf)
    if (JSON.stringify(deps) === before) return false
    const cycle = findCycle(
      cur.id,
      deps.map((d) => d.on),
      all,
    )
    if (cycle !== null) {
      const names = cycle.map((id) => {
        const x = all.find((y) => y.id === id)
        return x ? qualifiedRef(x) : id
      })
      throw new RefusedError('dependency-cycle', `that dependency would create a cycle: ${names.join(' → ')}`, {
        details: { cycle: names },
        next: [`remove one of the links first (${cmd('task depend <ref> --remove <dep>')})`],
      })
    }
    if (deps.length === 0) e.delete('depends_on')
    else {
      e.setFlow('depends_on', deps)
    }
    e.log(
      'depends',
      [
        ...adds.map((a) => `+${a.ref}:${a.type}`),
        ...removes.map((r) => `-${r.ref}${r.type === null ? '' : `:${r.type}`}`),
      ].join(' '),
    )
    return {
      added: adds.map((a) => ({ on: a.on, ref: a.ref, type: a.type })),
      removed: removes.map((r) => ({ on: r.on, ref: r.ref })),
    }
  })
}
