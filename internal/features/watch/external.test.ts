// `watch` sees changes nobody told the journal about: a hand edit, `mv`, `rm`, a `git checkout` of another
// `.dacli/`, a `record pull` — each reported within a second with `source: external`, while dacli's own changes
// are reported once, from the journal, with their author.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { commitStore, originWithCode, pulledClone } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { BIN, baseEnv, git, spawnBin, type Workspace, workspace } from '../../testkit/ws.js'

const children: ChildProcessWithoutNullStreams[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
})

interface Ev {
  kind: string
  ref: string | null
  source: string
  actor: string | null
  from: string | null
  to: string | null
  summary: string
}

/** A `dacli watch --jsonl` process in `cwd`; each event is kept with the time it arrived. */
async function watcher(cwd: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'watch', '--jsonl'], { cwd, env: { ...baseEnv(), ...env } })
  children.push(child)
  const events: { e: Ev; t: number }[] = []
  let buf = ''
  let stderr = ''
  child.stdout.on('data', (d) => {
    buf += d
    const parts = buf.split('\n')
    buf = parts.pop() as string
    for (const l of parts) {
      const e = JSON.parse(l)
      expectValid(e, 'watch-event/v1')
      events.push({ e, t: Date.now() })
    }
  })
  child.stderr.on('data', (d) => {
    stderr += d
  })
  const end = Date.now() + 15_000
  while (!stderr.includes('watching') && Date.now() < end) await sleep(20)
  expect(stderr).toContain('watching')
  return {
    events,
    /**
     * Run `change` and wait for an event matching `want`; returns it and how long after `change` returned it came.
     */
    async after(change: () => unknown, want: (e: Ev) => boolean) {
      const from = events.length
      await change()
      return this.since(from, Date.now(), want)
    },
    /** The first event from index `from` on matching `want`, and how long after `t0` it came. */
    async since(from: number, t0: number, want: (e: Ev) => boolean) {
      const deadline = t0 + 10_000
      for (;;) {
        const hit = events.slice(from).find((x) => want(x.e))
        if (hit !== undefined) return { e: hit.e, ms: hit.t - t0, from, t0 }
        if (Date.now() > deadline)
          throw new Error(`no matching event; got ${JSON.stringify(events.slice(from))}; stderr: ${stderr}`)
        await sleep(10)
      }
    },
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const TASKS = '.dacli/projects/ledger/tasks'

async function ledger(): Promise<Workspace> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Round refunds', '--project', 'ledger', '--accept', 'rounded')
  await ws.ok('task', 'add', 'Audit trail', '--project', 'ledger', '--accept', 'kept')
  return ws
}

describe('watch sees changes made outside dacli', () => {
  for (const mode of ['watching the folders', 'polling'] as const) {
    test(`${mode}: a hand edit, an mv between status folders and an rm, each within 1 s, source external`, async () => {
      const ws = await ledger()
      const w = await watcher(ws.root, mode === 'polling' ? { DACLI_WATCH_POLL: '1' } : {})
      const file = path.join(ws.root, TASKS, 'open', '001-round-refunds.md')
      const edit = await w.after(
        () => fs.appendFileSync(file, '\nA note written by hand.\n'),
        (e) => e.kind === 'task.changed',
      )
      expect(edit.e).toMatchObject({ ref: 'ledger/001-round-refunds', source: 'external', actor: null })
      expect(edit.ms).toBeLessThan(1000)
      fs.mkdirSync(path.join(ws.root, TASKS, 'blocked'), { recursive: true })
      const mv = await w.after(
        () => fs.renameSync(file, path.join(ws.root, TASKS, 'blocked', '001-round-refunds.md')),
        (e) => e.kind === 'task.moved',
      )
      expect(mv.e).toMatchObject({ from: 'open', to: 'blocked', source: 'external' })
      expect(mv.ms).toBeLessThan(1000)
      const rm = await w.after(
        () => fs.rmSync(path.join(ws.root, TASKS, 'open', '002-audit-trail.md')),
        (e) => e.kind === 'task.deleted',
      )
      expect(rm.e).toMatchObject({ ref: 'ledger/002-audit-trail', source: 'external' })
      expect(rm.ms).toBeLessThan(1000)
      // dacli's own change, by another process: once, from the journal, with its author — never also as external.
      const claim = await w.after(
        () => spawnBin(['task', 'claim', 'ledger/1'], { cwd: ws.root }).then((r) => r.expectExit(0)),
        (e) => e.kind === 'claim.taken',
      )
      expect(claim.e).toMatchObject({ source: 'dacli', actor: 'a-root', ref: 'ledger/001-round-refunds' })
      await sleep(1200)
      expect(w.events.filter((x) => x.e.source === 'external').map((x) => x.e.kind)).toEqual([
        'task.changed',
        'task.moved',
        'task.deleted',
      ])
    })
  }

  test('a git checkout of a branch with another .dacli/ is reported, each task within 1 s', async () => {
    const ws = await ledger()
    commitStore(ws)
    git(ws.root, 'checkout', '-q', '-b', 'other')
    await ws.ok('task', 'add', 'Only on other', '--project', 'ledger', '--accept', 'x')
    await ws.ok('task', 'claim', 'ledger/2')
    commitStore(ws, 'other backlog')
    git(ws.root, 'checkout', '-q', 'main')
    expect(fs.existsSync(path.join(ws.root, TASKS, 'open', '003-only-on-other.md'))).toBe(false)
    const w = await watcher(ws.root)
    const co = await w.after(
      () => git(ws.root, 'checkout', '-q', 'other'),
      (e) => e.kind === 'task.created',
    )
    expect(co.e).toMatchObject({ ref: 'ledger/003-only-on-other', source: 'external' })
    expect(co.ms).toBeLessThan(1000)
    const claimed = await w.since(co.from, co.t0, (e) => e.kind === 'claim.taken')
    expect(claimed.e).toMatchObject({ ref: 'ledger/002-audit-trail', from: 'open', to: 'active', source: 'external' })
    expect(claimed.ms).toBeLessThan(1000)
    // And back: the task disappears, the claim is released.
    const back = await w.after(
      () => git(ws.root, 'checkout', '-q', 'main'),
      (e) => e.kind === 'task.deleted',
    )
    expect(back.ms).toBeLessThan(1000)
    await sleep(600)
    const kinds = w.events.map((x) => `${x.e.kind} ${x.e.ref} ${x.e.source}`)
    expect(kinds).toContain('claim.released ledger/002-audit-trail external')
    expect(kinds.filter((k) => k.includes('dacli'))).toEqual([])
  })

  test('record pull and record sync: what they bring in is reported within 1 s, source external', async () => {
    const a = await ledger()
    const remote = originWithCode(a)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const b = await pulledClone(remote)
    const w = await watcher(b.root)
    await a.ok('task', 'add', 'From the other clone', '--project', 'ledger', '--accept', 'y')
    ;(await a.dacli('record', 'push')).expectExit(0)
    const pulled = await w.after(
      () => spawnBin(['record', 'pull'], { cwd: b.root }).then((r) => r.expectExit(0)),
      (e) => e.kind === 'task.created',
    )
    expect(pulled.e).toMatchObject({ ref: 'ledger/003-from-the-other-clone', source: 'external', actor: null })
    expect(pulled.ms).toBeLessThan(1000)
    // record sync brings the other clone's claim the same way.
    await a.ok('task', 'claim', 'ledger/1')
    ;(await a.dacli('record', 'sync')).expectExit(0)
    const synced = await w.after(
      () => spawnBin(['record', 'sync'], { cwd: b.root }).then((r) => r.expectExit(0)),
      (e) => e.kind === 'claim.taken',
    )
    expect(synced.e).toMatchObject({ ref: 'ledger/001-round-refunds', from: 'open', to: 'active', source: 'external' })
    expect(synced.ms).toBeLessThan(1000)
    expect(remote).toBeTruthy()
  })
})

test('a task file a hand edit makes unreadable is task.unreadable, not task.deleted; repaired, it is task.changed', async () => {
  const ws = await ledger()
  const w = await watcher(ws.root)
  const file = path.join(ws.root, TASKS, 'open', '001-round-refunds.md')
  const good = fs.readFileSync(file, 'utf8')
  const broke = await w.after(
    () => fs.writeFileSync(file, good.replace(/^kind: task$/m, 'kind: task\npriority: urgent')),
    (e) => e.kind === 'task.unreadable',
  )
  expect(broke.e).toMatchObject({ ref: 'ledger/001-round-refunds', source: 'external', actor: null })
  expect(broke.e.summary).toMatch(/^cannot be read \(.*priority.*\): Round refunds$/)
  expect(broke.ms).toBeLessThan(1000)
  // Touched again while still unreadable: nothing more to say.
  fs.appendFileSync(file, '\nstill wrong\n')
  await sleep(1200)
  const fixed = await w.after(
    () => fs.writeFileSync(file, good),
    (e) => e.kind !== 'task.unreadable',
  )
  expect(fixed.e).toMatchObject({ kind: 'task.changed', ref: 'ledger/001-round-refunds', source: 'external' })
  await sleep(600)
  expect(w.events.map((x) => x.e.kind)).toEqual(['task.unreadable', 'task.changed'])
})
