import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { ConflictError } from '../base/errors.js'
import { hostTagOf } from '../base/hosttag.js'
import type { System } from '../base/system.js'
import { tempDir, workspace } from '../testkit/ws.js'
import { atomicWrite, findTemps, sweepTemps, tempPathFor } from './fsio.js'
import { acquireLock, listLocks, readHolder } from './lock.js'

const real = nodeSystem
/** The lock options of this process. */
const me = { system: real }

/** The pid of a process that has exited (a dead writer or holder on this host). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'])
  await new Promise((r) => child.on('exit', r))
  return child.pid as number
}

/** Another process: `as` replaces this process's facts (pid, host). */
const asProcess = (as: Partial<System>): System => ({ ...real, ...as })

/** A temp file left by a writer with these facts, named exactly as that writer names it (no format known here). */
function leftBy(dir: string, as: Partial<System>): string {
  const tmp = tempPathFor(asProcess(as), path.join(dir, 'a.md'))
  fs.writeFileSync(tmp, 'partial')
  return path.basename(tmp)
}

describe('locks', () => {
  test('exclusive: a second acquirer waits, then gets a conflict (5) naming the holder', async () => {
    const dir = tempDir()
    const a = await acquireLock(dir, 'x', me)
    const err = await acquireLock(dir, 'x', { ...me, waitMs: 50 }).catch((e) => e)
    expect(err).toBeInstanceOf(ConflictError)
    expect((err as ConflictError).details.holder).toMatchObject({ pid: process.pid })
    a.release()
    const b = await acquireLock(dir, 'x', { ...me, waitMs: 50 })
    b.release()
  })

  test('release removes only a lock that still carries our token', async () => {
    const dir = tempDir()
    const a = await acquireLock(dir, 'x', me)
    const file = path.join(dir, 'x.lock')
    const h = readHolder(file)
    fs.writeFileSync(file, JSON.stringify({ ...h, token: 'someone-else' }))
    a.release()
    expect(fs.existsSync(file)).toBe(true)
  })

  test('a dead holder’s lock is taken over at once (no wait at all)', async () => {
    const dir = tempDir()
    fs.writeFileSync(
      path.join(dir, 'x.lock'),
      JSON.stringify({
        pid: await deadPid(),
        started: null,
        host: real.hostname,
        token: 'dead',
        time: new Date().toISOString(),
        scope: 'x',
      }),
    )
    expect(listLocks(real, dir)[0]?.dead).toBe(true)
    // With no time to wait, only a takeover can succeed.
    const l = await acquireLock(dir, 'x', { ...me, waitMs: 0 })
    expect(l.tookOver).toBe(true)
    l.release()
  })
})

describe('atomic writes', () => {
  test('a lock left empty by a crash (its holder never synced to disk) is waited for a moment, then taken over', async () => {
    const dir = tempDir()
    const file = path.join(dir, 'x.lock')
    fs.writeFileSync(file, '')
    // Fresh: its writer may be between creating and writing it.
    const err = await acquireLock(dir, 'x', { ...me, waitMs: 50 }).catch((e) => e)
    expect(err).toBeInstanceOf(ConflictError)
    expect(fs.readFileSync(file, 'utf8')).toBe('')
    // Older than two seconds: nobody is writing it any more.
    const past = new Date(Date.now() - 3_000)
    fs.utimesSync(file, past, past)
    const lock = await acquireLock(dir, 'x', { ...me, waitMs: 50 })
    expect(lock.tookOver).toBe(true)
    expect(readHolder(file)).toMatchObject({ pid: process.pid, token: lock.token })
    lock.release()
    expect(fs.existsSync(file)).toBe(false)
  })

  test('exclusive writes refuse an existing file and leave it as it was', () => {
    const dir = tempDir()
    const f = path.join(dir, 'a.md')
    atomicWrite(real, f, 'one')
    expect(() => atomicWrite(real, f, 'two', { exclusive: true })).toThrow(/EEXIST/)
    expect(fs.readFileSync(f, 'utf8')).toBe('one')
    expect(fs.readdirSync(dir)).toEqual(['a.md'])
  })

  test('a dead writer’s temp file on this host is swept by the next writer in the folder', async () => {
    const dir = tempDir()
    const name = leftBy(dir, { pid: await deadPid() })
    expect(findTemps(real, dir)).toEqual([{ path: path.join(dir, name), dead: true, swept: true }])
    atomicWrite(real, path.join(dir, 'b.md'), 'next')
    expect(fs.readdirSync(dir).sort()).toEqual(['b.md'])
  })

  test('a live writer’s temp file, or another host’s, is never swept', async () => {
    const dir = tempDir()
    const live = leftBy(dir, {})
    const elsewhere = leftBy(dir, { pid: await deadPid(), hostname: `${real.hostname}-elsewhere` })
    expect(sweepTemps(real, dir)).toEqual([])
    expect(
      findTemps(real, dir)
        .map((t) => [path.basename(t.path), t.dead, t.swept])
        .sort(),
    ).toEqual(
      [
        [live, false, false],
        [elsewhere, true, false], // another host's: doctor says so, and that only a person removes it
      ].sort(),
    )
    expect(fs.readdirSync(dir).sort()).toEqual([live, elsewhere].sort())
  })

  test("a temp file left by a release that tagged hosts with SHA-256 is still this host's: swept when its writer is dead", async () => {
    // FNV-1a of the UTF-8 bytes now (known vectors), so a write does not load node:crypto.
    expect(hostTagOf('')).toBe('811c9dc5')
    expect(hostTagOf('a')).toBe('e40c292c')
    const dir = tempDir()
    const pid = await deadPid()
    const legacy = createHash('sha256').update('ip-10-0-0-1', 'utf8').digest('hex').slice(0, 8)
    const old = `.a.md.dacli-tmp-${pid}-${legacy}-0badf00d`
    fs.writeFileSync(path.join(dir, old), 'partial')
    const theirs = leftBy(dir, { hostname: 'ip-10-0-0-2', pid })
    expect(sweepTemps(asProcess({ hostname: 'ip-10-0-0-1' }), dir)).toEqual([old])
    expect(fs.readdirSync(dir)).toEqual([theirs])
  })

  test('the host tag is a hash of the whole host name: hosts sharing a prefix never sweep each other (issue 12, item 23)', async () => {
    // The first four bytes of these names are one tag (`69702d31`); their hashes are not.
    expect(hostTagOf('ip-10-0-0-1')).not.toBe(hostTagOf('ip-10-0-0-2'))
    expect(hostTagOf('ip-172-31-5-9')).not.toBe(hostTagOf('ip-172-31-5-8'))
    // Played out: ip-10-0-0-2's writer died mid-write (as far as ip-10-0-0-1 can tell); ip-10-0-0-1 must not sweep it.
    const dir = tempDir()
    const theirs = leftBy(dir, { hostname: 'ip-10-0-0-2', pid: await deadPid() })
    expect(sweepTemps(asProcess({ hostname: 'ip-10-0-0-1' }), dir)).toEqual([])
    expect(fs.readdirSync(dir)).toEqual([theirs])
  })
})

describe('dead locks are swept by the next write (issue 28, item 10)', () => {
  test('every provably dead holder’s lock goes; a live one, another host’s recent one and an unknown fresh one stay', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    const locks = path.join(ws.root, '.dacli', 'locks')
    fs.mkdirSync(locks, { recursive: true })
    const dead = await deadPid()
    const holder = (scope: string, o: Partial<{ pid: number; host: string; started: string | null }>) =>
      `${JSON.stringify({ pid: dead, started: null, host: real.hostname, token: scope, time: new Date().toISOString(), scope, ...o })}\n`
    const deadOnes = Array.from({ length: 40 }, (_, i) => `task-t-dead${i}`)
    for (const s of deadOnes) fs.writeFileSync(path.join(locks, `${s}.lock`), holder(s, {}))
    const kept = {
      // this test process: alive
      'task-t-live': holder('task-t-live', { pid: process.pid }),
      // another host, written just now: not provably dead yet
      'task-t-elsewhere': holder('task-t-elsewhere', { host: `${real.hostname}-elsewhere` }),
      // half-written a moment ago: its writer may be between create and write
      'task-t-fresh': '',
    }
    for (const [s, text] of Object.entries(kept)) fs.writeFileSync(path.join(locks, `${s}.lock`), text)
    const doctor = (await ws.dacli('doctor', '--json')).json
    const stale = doctor.findings.filter((f: { code: string }) => f.code === 'stale-lock')
    expect(stale).toHaveLength(40)
    // A read sweeps nothing.
    expect(fs.readdirSync(locks)).toHaveLength(43)
    ;(await ws.dacli('task', 'add', 'One', '--project', 'p')).expectExit(0)
    expect(fs.readdirSync(locks).sort()).toEqual(
      Object.keys(kept)
        .map((s) => `${s}.lock`)
        .sort(),
    )
    const after = (await ws.dacli('doctor', '--json')).json
    expect(after.findings.filter((f: { code: string }) => f.code === 'stale-lock')).toEqual([])
  })
})
