import { beforeEach, describe, expect, test } from 'vitest'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace

beforeEach(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Write the shim', '--project', 'ledger', '--accept', 'covers batch')
})

describe('durations too long for a date', () => {
  test('a lease past what a date can hold is a usage error (2), not an internal error, and writes nothing', async () => {
    for (const lease of ['99999999999d', '10000000000000000000000s', '99999999999']) {
      const before = ws.snapshot()
      const r = (await ws.dacli('task', 'claim', '1', '--lease', lease, '--json')).expectExit(2)
      expect(r.error).toMatchObject({ kind: 'usage', details: { flag: '--lease', value: lease } })
      expect(ws.snapshot()).toEqual(before)
    }
    await ws.ok('task', 'claim', '1', '--lease', '2h')
    ;(await ws.dacli('task', 'renew', '1', '--lease', '99999999999d', '--json')).expectExit(2)
    ;(await ws.dacli('metrics', '--since', '99999999999d', '--json')).expectExit(2)
  })

  test('a claim_lease in config.yml past what a date can hold is refused as a bad value, not an internal error', async () => {
    const cfg = ws.file('.dacli/config.yml')
    ws.write('.dacli/config.yml', cfg.replace(/^claim_lease: .*$/m, 'claim_lease: 1.0e+20'))
    const r = await ws.dacli('task', 'claim', '1', '--json')
    expect(r.code).not.toBe(0)
    expect(r.error.message).not.toMatch(/internal error/)
    expect(r.error.message).toMatch(/claim_lease/)
  })

  test('a --verify timeout longer than a timer holds (30d) lets the command finish instead of killing it at once', async () => {
    const r = (
      await ws.dacli('task', 'check', '1', '--n', '1', '--verify', 'sleep 0.3', '--timeout', '30d', '--json')
    ).expectExit(0)
    expect(r.json.outcome).toBe('changed')
    expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/)
    const shown = (await ws.ok('task', 'show', '1', '--json')).json
    expect(shown.acceptance[0].checked).toBe(true)
    expect(shown.verifications[0]).toMatchObject({ exit_code: 0 })
  })
})
