// events reconcile's preview names `--apply-safe PLAN-ID` only when applying it would archive something: with no
// pending event, or only live ones, it says there is nothing to archive instead of sending the user to an empty
// apply.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('the preview suggests the apply only when there is something to archive', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'One', '--project', 'alpha', '--accept', 'ok')
  const empty = (await ws.ok('events', 'reconcile')).stdout
  expect(empty).toContain('nothing to archive')
  expect(empty).not.toContain('--apply-safe')

  // A read-only agent's proposed claim is live (it may still apply): nothing to archive either.
  const ro = await ws.agent('ro')
  await ws.ok('task', 'claim', 'alpha/1', { as: ro.token })
  const live = (await ws.ok('events', 'reconcile')).stdout
  expect(live).toMatch(/^live {2}/m)
  expect(live).toContain('nothing to archive')

  // A proposed block the task already has (the owner blocked it too) is applied: now there is an apply.
  await ws.ok('task', 'add', 'Two', '--project', 'alpha', '--accept', 'ok')
  await ws.ok('task', 'block', 'alpha/2', '--why', 'x', { as: ro.token })
  await ws.ok('task', 'block', 'alpha/2', '--why', 'x')
  const plan = (await ws.ok('events', 'reconcile', '--json')).json.plan_id as string
  const some = (await ws.ok('events', 'reconcile')).stdout
  expect(some).toContain(`--apply-safe ${plan}`)
  expect(some).toMatch(/archives 1 /)
})
