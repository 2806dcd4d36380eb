import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
})

const j = (...args: Parameters<Workspace['dacli']>) => dacliJson(ws, ...args)

describe('risks', () => {
  test('rank is computed; unmanaged rank 1–2 risks warn', async () => {
    const r = await ws.dacli(
      'risk',
      'add',
      'Race',
      '--project',
      'p',
      '--impact',
      'high',
      '--likelihood',
      'medium',
      '--indicator',
      'dupes',
    )
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/without an action/)
    ;(
      await j('risk', 'add', 'Minor', '--project', 'p', '--impact', 'low', '--likelihood', 'high', '--action', 'watch')
    ).expectExit(0)
    ;(
      await j('risk', 'add', 'Fire', '--project', 'p', '--impact', 'high', '--likelihood', 'high', '--action', 'drill')
    ).expectExit(0)
    const l = (await j('risk', 'list', '--project', 'p')).expectExit(0).json
    expect(l.risks.map((x: { title: string; rank: number }) => `${x.rank} ${x.title}`)).toEqual([
      '1 Fire',
      '2 Race',
      '3 Minor',
    ])
    expect(l.risks[1]).toMatchObject({ managed: false, indicators: ['dupes'] })
    expect((await j('risk', 'add', 'x', '--project', 'p', '--impact', 'huge', '--likelihood', 'low')).code).toBe(2)
    expect(ws.file(l.risks[0].path)).not.toMatch(/rank/)
  })
})
