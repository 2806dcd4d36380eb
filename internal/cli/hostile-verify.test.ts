// `--verify` and hostile commands (issue 12, items 6 and 7): the command never receives dacli's secrets
// and its output never hands them back; `--timeout` holds even when a descendant leaves the process
// group, and the outcome is reported truthfully.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { session, textJSON } from '../testkit/mcp.js'
import { dacliIn, type Fixture, fixture } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

const GH = `ghp_${'A1b2C3d4'.repeat(5)}`
const PLAIN = 'plain-secret-token-value-0123456789'
const SHOW = 'echo "[$GH_TOKEN][$GITHUB_TOKEN][$DACLI_AGENT]"; cat secret.txt; exit 1'

describe('--verify gets no secrets and returns none (item 6)', () => {
  test('CLI: GH_TOKEN, GITHUB_TOKEN and DACLI_AGENT are not in its environment; known secrets are masked in the tail', async () => {
    const root = fx.copy()
    fs.writeFileSync(path.join(root, 'secret.txt'), `${GH} ${PLAIN} ${fx.rw.token}\n`)
    const r = await dacliIn(root, ['task', 'check', 'alpha/3', '--n', '1', '--verify', SHOW, '--json'], {
      as: fx.rw.token,
      env: { GH_TOKEN: GH, GITHUB_TOKEN: PLAIN },
    })
    expect(r.code).toBe(1)
    const tail = r.error.details.output_tail as string
    expect(tail).toContain('[][][]')
    expect(tail).toContain('[redacted] [redacted] [redacted]')
    for (const s of [GH, PLAIN, fx.rw.token]) expect(`${r.stdout}${r.stderr}`).not.toContain(s)
  })

  test('a passing command sees none of them either', async () => {
    const root = fx.copy()
    const r = await dacliIn(root, ['task', 'check', 'alpha/3', '--n', '1', '--verify', 'env > seen.txt', '--json'], {
      as: fx.rw.token,
      env: { GH_TOKEN: GH, GITHUB_TOKEN: PLAIN },
    })
    expect(r.code).toBe(0)
    const seen = fs.readFileSync(path.join(root, 'seen.txt'), 'utf8')
    for (const s of [GH, PLAIN, fx.rw.token, 'DACLI_AGENT=']) expect(seen).not.toContain(s)
  })

  describe('MCP', () => {
    const saved = { GH_TOKEN: process.env.GH_TOKEN, GITHUB_TOKEN: process.env.GITHUB_TOKEN }
    afterEach(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    })
    test('check_task with a failing --verify: the result carries no secret', async () => {
      const root = fx.copy()
      fs.writeFileSync(path.join(root, 'secret.txt'), `${GH} ${PLAIN} ${fx.rw.token}\n`)
      process.env.GH_TOKEN = GH
      process.env.GITHUB_TOKEN = PLAIN
      const s = await session(root, { as: fx.rw.token })
      try {
        const r = await s.call('check_task', { schema_version: 1, ref: 'alpha/3', n: [1], verify: SHOW })
        const text = JSON.stringify(r)
        expect(text).toContain('[][][]')
        expect(text).toContain('[redacted]')
        for (const x of [GH, PLAIN, fx.rw.token]) expect(text).not.toContain(x)
        expect(textJSON(r)).toMatchObject({ exit_code: 1 })
      } finally {
        await s.close()
      }
    })
  })
})

describe('--timeout holds and is reported truthfully (item 7)', () => {
  test('a command that exits 0 leaving a setsid descendant holding the pipes: returns at once, exit 0, not timed out', {
    timeout: 15_000,
  }, async () => {
    const root = fx.copy()
    const r = await dacliIn(
      root,
      ['task', 'check', 'alpha/3', '--n', '1', '--verify', 'setsid sleep 20 & exit 0', '--timeout', '5s', '--json'],
      { as: fx.rw.token },
    )
    expect(r.code).toBe(0)
    const v = r.json.task.verifications.at(-1)
    expect(v).toMatchObject({ exit_code: 0 })
    expect(v.duration_ms).toBeLessThan(5_000)
  })

  test('a command that outlives --timeout while a setsid descendant holds the pipes: exit 1, "timed out", at the timeout', {
    timeout: 15_000,
  }, async () => {
    const root = fx.copy()
    const r = await dacliIn(
      root,
      ['task', 'check', 'alpha/3', '--n', '1', '--verify', 'setsid sleep 20 & sleep 20', '--timeout', '1s', '--json'],
      { as: fx.rw.token },
    )
    expect(r.code).toBe(1)
    expect(r.error.message).toMatch(/timed out/)
    expect(r.error.details.verification).toMatchObject({ timed_out: true, exit_code: null })
    expect(r.error.details.verification.duration_ms).toBeLessThan(20_000)
  })
})
