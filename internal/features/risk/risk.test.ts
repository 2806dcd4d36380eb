import * as fs from 'node:fs'
import * as path from 'node:path'
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

  test('indicators as a person writes them: a comment is none, a wrapped bullet is one, and is removed whole', async () => {
    const add = ['risk', 'add', 'Data loss on crash', '--project', 'p', '--impact', 'high', '--likelihood', 'medium']
    const r = (await j(...add, '--indicator', 'dup rows', '--action', 'WAL')).expectExit(0).json
    const file = path.join(ws.root, r.path)
    const hand = fs
      .readFileSync(file, 'utf8')
      .replace(
        '- dup rows\n',
        '<!-- most frequent first -->\n- dup rows\n- checksum mismatch on replicas,\n  seen only after a failover\n<!--\n- not an indicator\n-->\n* slow fsync\n',
      )
    fs.writeFileSync(file, hand)
    const listed = (await j('risk', 'list', '--project', 'p')).expectExit(0).json.risks[0]
    expect(listed.indicators).toEqual([
      'dup rows',
      'checksum mismatch on replicas, seen only after a failover',
      'slow fsync',
    ])
    // A part of a bullet names no indicator (2, nothing written); the whole text removes all its lines, nothing else.
    const before = ws.snapshot()
    ;(await j('risk', 'edit', 'p/data-loss-on-crash', '--remove-indicator', 'seen only after a failover')).expectExit(2)
    expect(ws.snapshot()).toEqual(before)
    const whole = 'checksum mismatch on replicas, seen only after a failover'
    ;(await j('risk', 'edit', 'p/data-loss-on-crash', '--remove-indicator', whole)).expectExit(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(
      hand.replace('- checksum mismatch on replicas,\n  seen only after a failover\n', ''),
    )
    // The last indicators go; the person's comments stay.
    ;(
      await j(
        'risk',
        'edit',
        'p/data-loss-on-crash',
        '--remove-indicator',
        'dup rows',
        '--remove-indicator',
        'slow fsync',
      )
    ).expectExit(0)
    expect(fs.readFileSync(file, 'utf8')).toContain(
      '## Indicators\n\n<!-- most frequent first -->\n<!--\n- not an indicator\n-->\n',
    )
    expect((await j('risk', 'list', '--project', 'p')).json.risks[0].indicators).toEqual([])
  })
})
