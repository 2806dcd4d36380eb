// Real processes racing on one workspace. The large
// versions run in `npm run stress`; these are the sizes that keep `npm test` quick.

import { describe, expect, test } from 'vitest'
import { spawnBin, workspace } from '../../testkit/ws.js'

describe('concurrent processes', () => {
  test('8 identities claim the same task at once: exactly one wins, the rest get 5, one claim in the log', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Race', '--slug', 'race')).expectExit(0)
    const agents = await Promise.all(Array.from({ length: 8 }, (_, i) => ws.agent('rw', `racer${i}`)))
    for (let round = 1; round <= 4; round++) {
      ;(
        await ws.dacli('task', 'add', `Contested item number ${round}`, '--project', 'race', '--force', '--accept', 'x')
      ).expectExit(0)
      const runs = await Promise.all(
        agents.map((a) => spawnBin(['task', 'claim', `race/${round}`, '--json'], { cwd: ws.root, as: a.token })),
      )
      const codes = runs.map((r) => r.code).sort()
      expect(codes).toEqual([0, 5, 5, 5, 5, 5, 5, 5])
      const winner = runs.find((r) => r.code === 0)?.json.task.owner
      for (const loser of runs.filter((r) => r.code === 5)) expect(loser.error.details.owner).toBe(winner)
      const t = (await ws.dacli('task', 'show', `race/${round}`, '--json')).expectExit(0).json
      expect(t.owner).toBe(winner)
      expect(t.log.filter((l: { verb: string }) => l.verb === 'claimed')).toHaveLength(1)
    }
  })

  test('6 processes add 5 tasks each to one project: 30 tasks, 30 distinct numbers', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Seq', '--slug', 'seq')).expectExit(0)
    const words = ['apple', 'brook', 'cedar', 'delta', 'ember', 'fjord']
    await Promise.all(
      words.map(async (w) => {
        for (let i = 0; i < 5; i++) {
          const r = await spawnBin(['task', 'add', `${w} ${i} ${w}${i}`, '--project', 'seq', '--force', '--quiet'], {
            cwd: ws.root,
          })
          expect(r.code, r.stderr).toBe(0)
        }
      }),
    )
    const list = (await ws.dacli('task', 'list', '--json')).expectExit(0).json
    expect(list.total).toBe(30)
    expect(new Set(list.tasks.map((t: { seq: number }) => t.seq)).size).toBe(30)
    expect(Math.max(...list.tasks.map((t: { seq: number }) => t.seq))).toBe(30)
  })

  test('processes ticking different boxes of one task at once: every tick persists', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Ticks', '--slug', 'ticks')).expectExit(0)
    const accept = Array.from({ length: 6 }, (_, i) => ['--accept', `criterion ${i + 1}`]).flat()
    ;(await ws.dacli('task', 'add', 'Many boxes', '--project', 'ticks', ...accept)).expectExit(0)
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        spawnBin(['task', 'check', 'ticks/1', '--n', String(i + 1)], { cwd: ws.root }),
      ),
    )
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    const t = (await ws.dacli('task', 'show', 'ticks/1', '--json')).json
    expect(t.acceptance_done).toBe(6)
    expect(t.version).toBe(7)
  })
})
