import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { BIN, baseEnv, spawnBin, type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
const children: ChildProcessWithoutNullStreams[] = []

beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  ;(await ws.dacli('project', 'add', 'Other', '--slug', 'other')).expectExit(0)
})
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
})

/** A `dacli watch` process whose stdout lines arrive as they are written. */
function watcher(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'watch', ...args], { cwd: ws.root, env: baseEnv() })
  children.push(child)
  const lines: string[] = []
  let buf = ''
  let stderr = ''
  child.stdout.on('data', (d) => {
    buf += d
    const parts = buf.split('\n')
    buf = parts.pop() as string
    lines.push(...parts)
  })
  child.stderr.on('data', (d) => {
    stderr += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    /** Wait until `n` lines have arrived (generous: the machine may be loaded). */
    async until(n: number, ms = 10_000) {
      const end = Date.now() + ms
      while (lines.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 25))
      return lines.length >= n
    },
    async started() {
      const end = Date.now() + 10_000
      while (!stderr.includes('watching') && Date.now() < end) await new Promise((r) => setTimeout(r, 25))
    },
  }
}

const brief = (e: { kind: string; ref: string | null }) => `${e.kind} ${e.ref}`

describe('watch', () => {
  test('every change by any process streams as one watch-event/v1 line; Ctrl-C ends it with exit 0', async () => {
    const w = watcher(['--jsonl'])
    await w.started()
    ;(await ws.dacli('task', 'add', 'Round refunds', '--project', 'ledger', '--accept', 'rounded')).expectExit(0)
    const other = await spawnBin(['task', 'claim', 'ledger/1'], { cwd: ws.root }) // another process
    other.expectExit(0)
    ;(
      await ws.dacli('note', 'add', 'finding', 'Odd rounding', '--project', 'ledger', '--about', 'ledger/1')
    ).expectExit(0)
    const q = (await ws.dacli('ask', 'Half-even?', '--about', 'ledger/1', '--json')).expectExit(0).json
    ;(await ws.dacli('answer', q.id, 'yes')).expectExit(0)
    expect(await w.until(8)).toBe(true)
    w.child.kill('SIGINT')
    expect(await w.exited).toBe(0)
    const events = w.lines.map((l) => JSON.parse(l))
    for (const e of events) expectValid(e, 'watch-event/v1')
    expect(events.map(brief)).toEqual([
      'task.created ledger/001-round-refunds',
      'claim.taken ledger/001-round-refunds',
      'note.added ledger/odd-rounding',
      'question.asked ledger/001-round-refunds',
      'task.moved ledger/001-round-refunds',
      'note.added ledger/q-half-even',
      'question.answered ledger/001-round-refunds',
      'task.moved ledger/001-round-refunds',
    ])
    expect(events[1]).toMatchObject({ actor: 'a-root', from: 'open', to: 'active', project: 'ledger' })
    expect(events[4]).toMatchObject({ from: 'active', to: 'blocked' })
  })

  test('killed and resumed from its last cursor, it replays exactly the changes it missed', async () => {
    const w = watcher(['--jsonl'])
    await w.started()
    for (const t of ['Alpha job', 'Bravo job'])
      (await ws.dacli('task', 'add', t, '--project', 'ledger', '--accept', 'x')).expectExit(0)
    expect(await w.until(2)).toBe(true)
    w.child.kill('SIGKILL')
    await w.exited
    const last = JSON.parse(w.lines.at(-1) as string).cursor as string
    // What happens while nobody watches: four changes, two of them by other processes.
    ;(await ws.dacli('task', 'claim', 'ledger/1')).expectExit(0)
    ;(
      await spawnBin(['task', 'add', 'Charlie job', '--project', 'other', '--accept', 'y'], { cwd: ws.root })
    ).expectExit(0)
    ;(await spawnBin(['task', 'block', 'ledger/2', '--why', 'waits'], { cwd: ws.root })).expectExit(0)
    ;(await ws.dacli('task', 'release', 'ledger/1')).expectExit(0)
    const missed = [
      'claim.taken ledger/001-alpha-job',
      'task.created other/001-charlie-job',
      'task.moved ledger/002-bravo-job',
      'claim.released ledger/001-alpha-job',
    ]
    const resumed = watcher(['--jsonl', '--since', last, '--timeout', '1s'])
    expect(await resumed.exited).toBe(0)
    expect(resumed.lines.map((l) => brief(JSON.parse(l)))).toEqual(missed)
    // Resuming from the last of those gives nothing more; the same through --json, and filtered by project.
    const tail = JSON.parse(resumed.lines.at(-1) as string).cursor
    const none = (await ws.dacli('watch', '--json', '--since', tail, '--timeout', '0')).expectExit(0).json
    expect(none).toMatchObject({ since: tail, cursor: tail, events: [], ended: 'timeout' })
    const all = (await ws.dacli('watch', '--json', '--since', last, '--timeout', '0')).expectExit(0).json
    expectValid(all)
    expect(all.events.map(brief)).toEqual(missed)
    expect(all.cursor).toBe(tail)
    const other = (await ws.dacli('watch', '--json', '--since', last, '--timeout', '0', '--project', 'other')).json
    expect(other.events.map(brief)).toEqual(['task.created other/001-charlie-job'])
    expect(other.cursor).toBe(tail) // filtered or not, the cursor moves past everything read
  })

  test('people get one line per change; --timeout ends with exit 0', async () => {
    const w = watcher(['--timeout', '3s'])
    await w.started()
    ;(await ws.dacli('task', 'add', 'Round refunds', '--project', 'ledger', '--accept', 'rounded')).expectExit(0)
    expect(await w.exited).toBe(0)
    expect(w.lines).toHaveLength(1)
    expect(w.lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}task\.created {7}ledger\/1 {2}a-root {2}Round refunds$/)
  })

  test('bad input: a malformed cursor (2), another journal’s or a mid-line one (3), no project (4), --json with --jsonl (2)', async () => {
    ;(await ws.dacli('task', 'add', 'Round refunds', '--project', 'ledger', '--accept', 'rounded')).expectExit(0)
    const head = (await ws.dacli('watch', '--json', '--timeout', '0')).json.cursor as string
    const [tag, off] = head.split(':') as [string, string]
    const before = ws.snapshot()
    const cases: [string[], number, string | null][] = [
      [['--since', 'yesterday'], 2, null],
      [['--since', `000000000000:${off}`], 3, 'cursor'],
      [['--since', `${tag}:${Number(off) - 2}`], 3, 'cursor'],
      [['--since', `${tag}:${Number(off) + 500}`], 3, 'cursor'],
      [['--project', 'nope'], 4, null],
      [['--timeout', 'soon'], 2, null],
      [['--jsonl'], 2, null], // with --json below
    ]
    for (const [args, code, policy] of cases) {
      const r = await ws.dacli('watch', ...args, ...(args.includes('--timeout') ? [] : ['--timeout', '0']), '--json')
      expect(r.code, args.join(' ')).toBe(code)
      if (policy !== null) expect(r.error.details.policy).toBe(policy)
    }
    expect(ws.snapshot()).toEqual(before)
  })
})
