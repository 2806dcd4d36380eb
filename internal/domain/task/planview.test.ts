// The planning view's shared parts (planview.ts): the tasks by id made once per listing, and the engine views made
// once per listed summary while every dependency names a task of the plan by id, afresh when one is written as a
// reference.

import { expect, test } from 'vitest'
import { services } from '../../../cmd/services.js'
import { nodeSystem } from '../../../cmd/system.js'
import type { TaskSummary } from '../../format/model.js'
import { Store } from '../../store/store.js'
import { baseEnv, workspace } from '../../testkit/ws.js'
import { engineView, loadPlan, type Plan, readyFrontier } from './planview.js'

const now = () => new Date()

test('a kept listing’s tasks by id and its summaries’ engine views are made once; a dependency written as a reference resolves against each plan', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Beta', '--project', 'p', '--depends-on', 'p/1')).expectExit(0)
  const shared = services.sharedStore?.()
  if (shared === undefined) throw new Error('services.sharedStore is wired in the cli layer')
  try {
    const plan = async () => loadPlan(await shared.open(ws.root, baseEnv(), now), 'p')
    const one = await plan()
    const two = await plan()
    const named = (p: Plan, title: string) => p.tasks.find((t) => t.title === title) as TaskSummary
    const [alpha, beta] = [named(one, 'Alpha'), named(one, 'Beta')]
    // The server's second call lists the same summaries: their views are the very same objects.
    expect(named(two, 'Beta')).toBe(beta)
    // And the same listing, so the same tasks by id, for the project and for the whole workspace.
    expect(two.byId).toBe(one.byId)
    const store = await shared.open(ws.root, baseEnv(), now)
    expect((await loadPlan(store)).byId).toBe((await loadPlan(store)).byId)
    expect(engineView(two, beta)).toBe(engineView(one, beta))
    expect(engineView(one, beta)).toEqual({
      id: beta.id,
      project: 'p',
      status: 'open',
      priority: beta.priority,
      te: null,
      deps: [{ on: alpha.id, type: 'FS' }],
    })

    // A dependency written by hand as a reference: what it names depends on the plan, so no view of it is reused.
    const byRef: TaskSummary = { ...beta, depends_on: [{ on: 'p/1', type: 'FS' }] }
    const other: TaskSummary = { ...alpha, id: 't-01KDVDNA0063X2N0R4A9NK0000' }
    const resolvingTo = (target: TaskSummary): Plan => ({
      tasks: [byRef],
      byId: new Map([[byRef.id, byRef]]),
      broken: [],
      target: () => target,
    })
    expect(engineView(resolvingTo(alpha), byRef).deps).toEqual([{ on: alpha.id, type: 'FS' }])
    expect(engineView(resolvingTo(other), byRef).deps).toEqual([{ on: other.id, type: 'FS' }])
  } finally {
    shared.release()
  }
})

test('a server going round more projects than a handful reuses each one’s schedule while its input is the same', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p', '--estimate', '1,2,3')).expectExit(0)
  const store = await Store.open(ws.root, baseEnv(), now, nodeSystem)
  const alpha = (await loadPlan(store, 'p')).tasks[0] as TaskSummary
  // Twenty projects' plans, as a server's next_tasks goes round them: one task each, its own id.
  const plans = Array.from({ length: 20 }, (_, i): [string, Plan] => {
    const t: TaskSummary = { ...alpha, project: `q${i}`, id: `t-01KDVDNA0063X2N0R4A9NK${String(i).padStart(4, '0')}` }
    return [`q${i}`, { tasks: [t], byId: new Map([[t.id, t]]), broken: [], target: () => null }]
  })
  const round = () => plans.map(([project, plan]) => readyFrontier(plan, 5, project).schedule)
  const first = round()
  expect(first.every((s) => s !== null && s.duration !== null)).toBe(true)
  const second = round()
  for (let i = 0; i < plans.length; i++) expect(second[i]).toBe(first[i])
  // A changed input (another priority) is worked out again.
  const [project, plan] = plans[0] as [string, Plan]
  const changed = { ...(plan.tasks[0] as TaskSummary), priority: 'could' as const }
  const again = readyFrontier({ ...plan, tasks: [changed], byId: new Map([[changed.id, changed]]) }, 5, project)
  expect(again.schedule).not.toBe(first[0])
})
