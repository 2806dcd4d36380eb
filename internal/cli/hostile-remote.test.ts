// Every remote operation has a deadline (issue 28 item 5): `remote_timeout` in config.yml, checked at load. A remote
// that accepts a connection and never answers ends the command with exit 1 naming the remote and the timeout,
// nothing changed locally (the bytes under .dacli/ and every ref), and no git process left behind.

import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BIN, baseEnv, dacliIn, type Fixture, fixture, git, snapshotOf } from '../testkit/ws.js'

/** A loopback server that accepts every connection and never answers a byte. */
let silent: net.Server
let port = 0
const sockets = new Set<net.Socket>()
let fx: Fixture

beforeAll(async () => {
  silent = net.createServer((s) => {
    sockets.add(s)
    s.on('error', () => {})
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
  port = (silent.address() as net.AddressInfo).port
  fx = await fixture()
  git(fx.ws.root, 'commit', '-q', '--allow-empty', '-m', 'trunk')
  ;(await dacliIn(fx.ws.root, ['record'])).expectExit(0)
})

afterAll(async () => {
  for (const s of sockets) s.destroy()
  await new Promise<void>((r) => silent.close(() => r()))
})

const URL_OF = () => `http://127.0.0.1:${port}/team.git`

/** A copy of the fixture whose remote `slow` is the silent server, with `remote_timeout` set. */
function slowCopy(timeout = '1s', extra = ''): string {
  const root = fx.copy()
  git(root, 'remote', 'add', 'slow', URL_OF())
  const cfg = path.join(root, '.dacli', 'config.yml')
  fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}remote_timeout: ${timeout}\n${extra}`)
  return root
}

/** The same, recorded (a push records what is not yet recorded before it talks to the remote). */
async function recordedSlowCopy(timeout = '1s', extra = ''): Promise<string> {
  const root = slowCopy(timeout, extra)
  ;(await dacliIn(root, ['record'])).expectExit(0)
  return root
}

const refsOf = (root: string) => git(root, 'for-each-ref', '--format=%(objectname) %(refname)')

/** git processes still talking to the silent server (by its port in their arguments or URL). */
function lingering(): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
  return ps.split('\n').filter((l) => l.includes(`127.0.0.1:${port}`) && /git/.test(l))
}

describe('every remote operation has a deadline (remote_timeout)', () => {
  test.each([
    ['record push', ['record', 'push', 'slow', '--json']],
    ['record pull', ['record', 'pull', 'slow', '--json']],
    ['record sync', ['record', 'sync', 'slow', '--json']],
    ['task claim --remote', ['task', 'claim', 'alpha/1', '--remote', 'slow', '--json']],
    ['claims list --remote', ['claims', 'list', '--remote', 'slow', '--json']],
  ])('%s: exit 1 naming the remote and the timeout; nothing changed; no git left running', async (_w, argv) => {
    const root = await recordedSlowCopy()
    const before = snapshotOf(root)
    const refs = refsOf(root)
    const started = Date.now()
    const r = await dacliIn(root, argv)
    const took = Date.now() - started
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.error.message).toMatch(/slow did not answer within 1 s \(remote_timeout\)/)
    expect(r.error.details).toMatchObject({ remote: 'slow', timeout_ms: 1000 })
    expect(took).toBeLessThan(15_000)
    expect(snapshotOf(root)).toEqual(before)
    expect(refsOf(root)).toBe(refs)
    expect(lingering()).toEqual([])
  })

  test('doctor --fetch with claims on a silent remote: exit 1 naming it; nothing changed', async () => {
    const root = await recordedSlowCopy('1500ms', 'claims: {remote: slow}\n')
    const before = snapshotOf(root)
    const refs = refsOf(root)
    const r = await dacliIn(root, ['doctor', '--fetch', '--json'])
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.error.message).toMatch(/slow did not answer within 1\.5 s \(remote_timeout\)/)
    expect(snapshotOf(root)).toEqual(before)
    expect(refsOf(root)).toBe(refs)
    expect(lingering()).toEqual([])
  })

  test('cleanup reads origin’s task branches under the same deadline: exit 1 naming origin; nothing changed', async () => {
    const root = await recordedSlowCopy()
    git(root, 'remote', 'add', 'origin', URL_OF())
    const before = snapshotOf(root)
    const refs = refsOf(root)
    const r = await dacliIn(root, ['cleanup', '--json'])
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.error.message).toMatch(/origin did not answer within 1 s \(remote_timeout\)/)
    expect(snapshotOf(root)).toEqual(before)
    expect(refsOf(root)).toBe(refs)
    expect(lingering()).toEqual([])
  })

  test('a GitHub API that never answers: each request ends at remote_timeout, exit 1 naming the host', async () => {
    const root = slowCopy('1s')
    const before = snapshotOf(root)
    const started = Date.now()
    const r = await dacliIn(root, ['github', 'doctor', '--json'], {
      env: { GITHUB_API_URL: `http://127.0.0.1:${port}`, GH_TOKEN: 'x', DACLI_GITHUB_MAX_ATTEMPTS: '1' },
    })
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(r.stdout + r.stderr).toContain(`127.0.0.1:${port} did not answer within 1 s (remote_timeout)`)
    expect(r.code).toBe(1)
    expect(snapshotOf(root)).toEqual(before)
  })
})

describe('an interrupted dacli leaves no remote git behind', () => {
  test.each([
    ['SIGINT', ['record', 'push', 'slow']],
    ['SIGTERM', ['task', 'claim', 'alpha/1', '--remote', 'slow']],
  ])(
    '%s while a git waits on a silent remote: the process ends as before and its git group goes with it',
    async (signal, argv) => {
      const root = await recordedSlowCopy('60s')
      const child = spawn(process.execPath, [BIN, ...argv], { cwd: root, env: baseEnv(), stdio: 'ignore' })
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        child.on('exit', (code, sig) => r({ code, signal: sig })),
      )
      const until = Date.now() + 20_000
      while (lingering().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
      expect(lingering().length).toBeGreaterThan(0)
      child.kill(signal as NodeJS.Signals)
      expect(await ended).toEqual({ code: null, signal })
      const gone = Date.now() + 2_000
      while (lingering().length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50))
      expect(lingering()).toEqual([])
    },
  )
})

describe('a command with its own clean stop keeps it while a git waits', () => {
  test.each([['SIGTERM'], ['SIGINT']])(
    '%s to record sync --watch mid-fetch: its git is killed and it stops at once by its own hand (exit 5: no round finished), not by the signal',
    async (signal) => {
      const root = await recordedSlowCopy('60s')
      const child = spawn(process.execPath, [BIN, 'record', 'sync', 'slow', '--watch', '1s'], {
        cwd: root,
        env: baseEnv(),
        stdio: 'ignore',
      })
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        child.on('exit', (code, sig) => r({ code, signal: sig })),
      )
      const until = Date.now() + 20_000
      while (lingering().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
      expect(lingering().length).toBeGreaterThan(0)
      try {
        const asked = Date.now()
        child.kill(signal as NodeJS.Signals)
        expect(await ended).toEqual({ code: 5, signal: null })
        expect(Date.now() - asked).toBeLessThan(15_000) // not the 60 s remote_timeout
        const gone = Date.now() + 2_000
        while (lingering().length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50))
        expect(lingering()).toEqual([])
      } finally {
        child.kill('SIGKILL')
      }
    },
    60_000,
  )
})

describe('remote_timeout is checked at load', () => {
  test.each([['0'], ['-5'], ['forever'], ['2h'], ['"none"'], ['[1]']])(
    'remote_timeout: %s — exit 1 naming the file and field (a bad value of config.yml), nothing written',
    async (value) => {
      const root = slowCopy(value)
      const before = snapshotOf(root)
      const r = await dacliIn(root, ['task', 'list', '--json'])
      expect(r.code).toBe(1)
      expect(r.error.message).toContain('.dacli/config.yml: remote_timeout is')
      expect(r.error.details).toMatchObject({ path: '.dacli/config.yml', field: 'remote_timeout' })
      expect(snapshotOf(root)).toEqual(before)
    },
  )

  test('durations and numbers of seconds are taken', async () => {
    for (const value of ['500ms', '30', '2m', '1h']) {
      ;(await dacliIn(slowCopy(value), ['task', 'list', '--json'])).expectExit(0)
    }
  })
})
