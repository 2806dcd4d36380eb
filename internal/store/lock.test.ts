import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { hostname } from 'node:os'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../testkit/ws.js'
import { ConflictError } from './errors.js'
import { atomicWrite, findTemps, hostTag, hostTagOf, sweepTemps } from './fsio.js'
import { acquireLock, listLocks, readHolder } from './lock.js'

describe('locks', () => {
  test('exclusive: a second acquirer waits, then gets a conflict (5) naming the holder', async () => {
    const dir = tempDir()
    const a = await acquireLock(dir, 'x')
    const err = await acquireLock(dir, 'x', { waitMs: 50 }).catch((e) => e)
    expect(err).toBeInstanceOf(ConflictError)
    expect((err as ConflictError).details.holder).toMatchObject({ pid: process.pid })
    a.release()
    const b = await acquireLock(dir, 'x', { waitMs: 50 })
    b.release()
  })

  test('release removes only a lock that still carries our token', async () => {
    const dir = tempDir()
    const a = await acquireLock(dir, 'x')
    const file = path.join(dir, 'x.lock')
    const h = readHolder(file)
    fs.writeFileSync(file, JSON.stringify({ ...h, token: 'someone-else' }))
    a.release()
    expect(fs.existsSync(file)).toBe(true)
  })

  test('a dead holder’s lock is taken over at once', async () => {
    const dir = tempDir()
    const child = spawn(process.execPath, ['-e', '0'])
    const pid = child.pid as number
    await new Promise((r) => child.on('exit', r))
    fs.writeFileSync(
      path.join(dir, 'x.lock'),
      JSON.stringify({
        pid,
        started: null,
        host: hostname(),
        token: 'dead',
        time: new Date().toISOString(),
        scope: 'x',
      }),
    )
    expect(listLocks(dir)[0]?.dead).toBe(true)
    const t0 = Date.now()
    const l = await acquireLock(dir, 'x', { waitMs: 1000 })
    expect(l.tookOver).toBe(true)
    expect(Date.now() - t0).toBeLessThan(500)
    l.release()
  })
})

describe('atomic writes', () => {
  test('exclusive writes refuse an existing file; temp files of dead writers are swept', () => {
    const dir = tempDir()
    const f = path.join(dir, 'a.md')
    atomicWrite(f, 'one')
    expect(() => atomicWrite(f, 'two', { exclusive: true })).toThrow(/EEXIST/)
    expect(fs.readFileSync(f, 'utf8')).toBe('one')
    const stale = path.join(dir, `.a.md.dacli-tmp-999999-${hostTag()}-abcd`)
    fs.writeFileSync(stale, 'partial')
    expect(findTemps(dir).map((t) => t.dead)).toEqual([true])
    expect(sweepTemps(dir)).toHaveLength(1)
    expect(fs.readdirSync(dir)).toEqual(['a.md'])
  })

  test('the host tag is a hash of the whole host name: hosts sharing a prefix never sweep each other (issue 12, item 23)', () => {
    // The first four bytes of these names are one tag (`69702d31`); their hashes are not.
    expect(hostTagOf('ip-10-0-0-1')).not.toBe(hostTagOf('ip-10-0-0-2'))
    expect(hostTagOf('ip-172-31-5-9')).not.toBe(hostTagOf('ip-172-31-5-8'))
    expect(hostTag()).toBe(hostTagOf(hostname()))
    const dir = tempDir()
    const other = hostTagOf(`${hostname()}-other`)
    const theirs = path.join(dir, `.b.md.dacli-tmp-999999-${other}-abcd`)
    fs.writeFileSync(theirs, 'another host is writing this')
    expect(sweepTemps(dir)).toEqual([])
    expect(fs.existsSync(theirs)).toBe(true)
  })
})
