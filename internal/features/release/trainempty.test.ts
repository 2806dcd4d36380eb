// release train --apply with no task to promote (the target has them all) is no usage error: exit 0 with the
// plan, no promotion pull request opened, no write request. A branch named that is nowhere is not found (4).

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace } from '../../testkit/deliveryws.js'
import { expectValid } from '../../testkit/schemas.js'
import { git } from '../../testkit/ws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('--apply (and --merge) with nothing to promote exits 0 and opens nothing', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  await w.task('Not landed yet')
  w.gh.resetCalls()
  for (const more of [[], ['--merge']]) {
    const r = (
      await w.run(
        'release',
        'train',
        '--project',
        'alpha',
        '--source',
        'main',
        '--target',
        'release',
        '--apply',
        ...more,
        '--json',
      )
    ).expectExit(0)
    expectValid(r.json)
    expect(r.json).toMatchObject({ dry_run: false, tasks: [], promotion: { pr: null }, merged: null })
    expect(r.json.blockers).toEqual(['no task of alpha landed on main is missing from release'])
  }
  expect(w.gh.writes()).toEqual([])
  expect(w.gh.repo('acme/widgets').pr.pulls).toEqual([])
  const human = (
    await w.run('release', 'train', '--project', 'alpha', '--source', 'main', '--target', 'release', '--apply')
  ).expectExit(0)
  expect(human.stdout).toContain('nothing to promote')
})

test('a --source or --target naming no branch here or on origin is 4 (not found), nothing written', async () => {
  w = await deliveryWorkspace()
  git(w.ws.root, 'push', '-q', 'origin', 'main:refs/heads/release')
  const before = w.ws.snapshot()
  w.gh.resetCalls()
  for (const [source, target] of [
    ['nope', 'release'],
    ['main', 'nope'],
  ]) {
    for (const mode of ['--dry-run', '--apply']) {
      const r = await w.run(
        'release',
        'train',
        '--project',
        'alpha',
        '--source',
        source as string,
        '--target',
        target as string,
        mode,
        '--json',
      )
      r.expectExit(4)
      expect(r.error.message).toContain('no branch nope here or on origin')
    }
  }
  expect(w.gh.writes()).toEqual([])
  expect(w.ws.snapshot()).toEqual(before)
})
