import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
let a: { id: string; token: string }
let b: { id: string; token: string }
let ro: { id: string; token: string }

beforeEach(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  ;(
    await ws.dacli(
      'task',
      'add',
      'Write the shim',
      '--project',
      'ledger',
      '--accept',
      'covers batch',
      '--accept',
      'suite green',
    )
  ).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Audit paths', '--project', 'ledger', '--accept', 'listed')).expectExit(0)
  a = await ws.agent('rw', 'alice')
  b = await ws.agent('rw', 'bob')
  ro = await ws.agent('ro', 'reader')
})

const change = (...args: Parameters<Workspace['dacli']>) => dacliJson(ws, ...args)

describe('claims', () => {
  test('claim: unowned → owner and active; again → unchanged; another’s live claim → 5 with holder and time', async () => {
    const c = (await change('task', 'claim', '1', { as: a.token })).expectExit(0).json
    expect(c).toMatchObject({ schema: 'task-change/v1', action: 'claim', outcome: 'changed', event_id: null })
    expect(c.task).toMatchObject({ status: 'active', owner: a.id })
    expect(c.task.claim.expires).not.toBeNull() // claim_lease: 2h from init
    expect((await change('task', 'claim', '1', { as: a.token })).expectExit(0).json.outcome).toBe('unchanged')
    const x = (await change('task', 'claim', '1', { as: b.token })).expectExit(5)
    expect(x.error.details).toMatchObject({ owner: a.id, claimed_at: c.task.claim.at })
    expect(x.error.next_actions).toContain('dacli next --project ledger')
    const log = (await ws.dacli('task', 'show', '1', '--json')).json.log
    expect(log.filter((l: { verb: string }) => l.verb === 'claimed')).toHaveLength(1)
  })

  test('an expired lease is taken over (logged); a retired owner’s task too', async () => {
    const t0 = new Date('2026-01-01T10:00:00Z')
    ;(await ws.dacli('task', 'claim', '1', '--lease', '30m', { as: a.token, now: t0 })).expectExit(0)
    const early = await ws.dacli('task', 'claim', '1', '--json', { as: b.token, now: new Date('2026-01-01T10:20:00Z') })
    expect(early.code).toBe(5)
    const late = (
      await ws.dacli('task', 'claim', '1', '--json', { as: b.token, now: new Date('2026-01-01T10:31:00Z') })
    ).expectExit(0)
    expect(late.json.outcome).toBe('taken-over')
    expect(late.json.task.owner).toBe(b.id)
    expect(late.json.details.previous_owner).toBe(a.id)
    expect(late.json.task.log.at(-1)).toMatchObject({ verb: 'taken-over', actor: b.id })
    ;(await ws.dacli('task', 'claim', '2', { as: a.token })).expectExit(0)
    // An owner "retired" by a hand edit (no retirement signature): its token stops, but its claim is not freed —
    // a work-tree writer cannot take another agent's task this way (SECURITY.md). A retirement made by
    // `agent retire` is what frees the owner's work.
    const agentFile = `.dacli/agents/${a.id}.md`
    const signed = ws.file(agentFile)
    ws.write(agentFile, signed.replace('retired: false', 'retired: true'))
    expect((await ws.dacli('task', 'claim', '2', '--json', { as: b.token })).code).toBe(5)
    ws.write(agentFile, signed)
    ;(await ws.dacli('agent', 'retire', a.id, '--release')).expectExit(0)
    expect((await change('task', 'claim', '2', { as: b.token })).expectExit(0).json.task.owner).toBe(b.id)
  })

  test('a read-only identity’s claim is a proposal (an event), exit 0, task untouched', async () => {
    const before = ws.file('.dacli/projects/ledger/tasks/open/001-write-the-shim.md')
    const r = (await change('task', 'claim', '1', { as: ro.token })).expectExit(0).json
    expect(r.outcome).toBe('proposed')
    expect(r.event_id).toMatch(/^[0-9A-Z]{26}$/)
    expect(ws.file('.dacli/projects/ledger/tasks/open/001-write-the-shim.md')).toBe(before)
    const ev = (await ws.dacli('events', 'list', '--pending', '--json')).json.events
    expect(ev[0]).toMatchObject({ id: r.event_id, kind: 'claim', created_by: ro.id, applied: false })
  })

  test('release gives it back; renew extends; only the owner may do either', async () => {
    ;(await ws.dacli('task', 'claim', '1', { as: a.token, now: new Date('2026-01-01T10:00:00Z') })).expectExit(0)
    expect((await change('task', 'release', '1', { as: b.token })).expectExit(3).error.details.owner).toBe(a.id)
    expect((await change('task', 'renew', '1', { as: b.token })).code).toBe(3)
    const r = (
      await ws.dacli('task', 'renew', '1', '--lease', '4h', '--json', {
        as: a.token,
        now: new Date('2026-01-01T11:00:00Z'),
      })
    ).expectExit(0)
    expect(r.json.task.claim.expires).toBe('2026-01-01T15:00:00Z')
    const rel = (await change('task', 'release', '1', { as: a.token })).expectExit(0).json
    expect(rel.task).toMatchObject({ status: 'open', owner: null, claim: null })
    expect((await change('task', 'release', '1', { as: a.token })).expectExit(0).json.outcome).toBe('unchanged')
    expect((await change('task', 'release', '1', { as: ro.token })).expectExit(0).json.outcome).toBe('proposed')
  })
})

describe('acceptance criteria', () => {
  test('check by --n, --match or --all; bad selections are usage errors', async () => {
    ;(await ws.dacli('task', 'claim', '1', { as: a.token })).expectExit(0)
    const r = (await change('task', 'check', '1', '--match', 'BATCH', { as: a.token })).expectExit(0).json
    expect(r.details.checked).toEqual([1])
    expect(r.task.acceptance_done).toBe(1)
    expect((await change('task', 'check', '1', '--n', '1', { as: a.token })).expectExit(0).json.outcome).toBe(
      'unchanged',
    )
    for (const bad of [[], ['--n', '3'], ['--n', '1', '--all'], ['--match', 'zzz'], ['--n', '0']]) {
      expect((await change('task', 'check', '1', ...bad, { as: a.token })).code, bad.join(' ')).toBe(2)
    }
    expect((await change('task', 'check', '1', '--all', { as: b.token })).expectExit(3).error.details.policy).toBe(
      'owner',
    )
    expect((await change('task', 'check', '1', '--all', { as: ro.token })).code).toBe(3)
    expect(
      (await change('task', 'uncheck', '1', '--n', '1', { as: a.token })).expectExit(0).json.task.acceptance_done,
    ).toBe(0)
  })

  test('--verify checks only on exit 0 and records evidence; a failure is exit 1 with nothing changed', async () => {
    const file = '.dacli/projects/ledger/tasks/open/001-write-the-shim.md'
    const before = ws.file(file)
    const bad = (await change('task', 'check', '1', '--n', '1', '--verify', 'echo nope; exit 7')).expectExit(1)
    expect(bad.error.details.verification.exit_code).toBe(7)
    expect(bad.error.details.output_tail).toContain('nope')
    expect(ws.file(file)).toBe(before)
    const slow = (
      await change('task', 'check', '1', '--n', '1', '--verify', 'sleep 5', '--timeout', '200ms')
    ).expectExit(1)
    expect(slow.error.details.verification.timed_out).toBe(true)
    fs.writeFileSync(path.join(ws.root, 'marker.txt'), 'x')
    const ok = (
      await change('task', 'check', '1', '--n', '1', '--n', '2', '--verify', 'test -f marker.txt && echo proven')
    ).expectExit(0).json
    expect(ok.details.checked).toEqual([1, 2])
    expect(ok.details.verification).toMatchObject({ command: 'test -f marker.txt && echo proven', exit_code: 0 })
    expect(ok.task.verifications).toHaveLength(1)
    expect(ok.task.verifications[0]).toMatchObject({
      exit_code: 0,
      checked: [1, 2],
      output_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    })
  })

  test('done: unmet criteria → 3 listing them; no criteria → 3 unless --allow-unverified', async () => {
    const r = (await change('task', 'done', '1')).expectExit(3)
    expect(r.error.details.unmet).toEqual([
      { n: 1, text: 'covers batch' },
      { n: 2, text: 'suite green' },
    ])
    expect(r.error.message).toMatch(/do not retry/)
    // The next action checks every unmet criterion, not only the first.
    expect(r.error.next_actions).toEqual([
      'dacli task check ledger/001-write-the-shim --n 1 --n 2 --verify "<command that proves them>"',
    ])
    ;(await ws.dacli('task', 'check', '1', '--all')).expectExit(0)
    const d = (await change('task', 'done', '1')).expectExit(0).json
    expect(d.task.status).toBe('done')
    expect((await change('task', 'done', '1')).expectExit(0).json.outcome).toBe('unchanged')
    ;(await ws.dacli('task', 'add', 'Vague thing', '--project', 'ledger')).expectExit(0)
    expect((await change('task', 'done', '3')).expectExit(3).error.details.unmet).toEqual([])
    const u = (await change('task', 'done', '3', '--allow-unverified')).expectExit(0).json
    expect(u.task.unverified).toBe(true)
  })

  test('a non-owner’s done becomes a propose-status event', async () => {
    ;(await ws.dacli('task', 'claim', '2', { as: a.token })).expectExit(0)
    const r = (await change('task', 'done', '2', { as: b.token })).expectExit(0).json
    expect(r).toMatchObject({ outcome: 'proposed', details: { proposal: 'propose-status', status: 'done' } })
    expect(r.task.status).toBe('active')
  })
})

describe('block, reopen, depend, edit, rm', () => {
  test('block and unblock; a non-owner proposes', async () => {
    const r = (await change('task', 'block', '1', '--by', '2', '--why', 'needs the audit')).expectExit(0).json
    expect(r.task).toMatchObject({ status: 'blocked', blocked_by: { ref: 'ledger/002-audit-paths' } })
    expect((await change('task', 'unblock', '1')).expectExit(0).json.task.status).toBe('open')
    expect((await change('task', 'unblock', '1')).expectExit(0).json.outcome).toBe('unchanged')
    ;(await ws.dacli('task', 'claim', '1', { as: a.token })).expectExit(0)
    expect((await change('task', 'block', '1', { as: b.token })).expectExit(0).json.outcome).toBe('proposed')
    expect((await change('task', 'block', '1', '--by', '1', { as: a.token })).code).toBe(2)
  })

  test('reopen unchecks everything and needs a reason; an open task cannot be reopened', async () => {
    ;(await ws.dacli('task', 'check', '2', '--all')).expectExit(0)
    ;(await ws.dacli('task', 'done', '2')).expectExit(0)
    expect((await change('task', 'reopen', '2')).code).toBe(2)
    const r = (await change('task', 'reopen', '2', '--reason', 'regressed in prod')).expectExit(0).json
    expect(r.task).toMatchObject({ status: 'open', acceptance_done: 0 })
    expect(r.task.log.at(-1)).toMatchObject({ verb: 'reopened', details: 'regressed in prod' })
    expect((await change('task', 'reopen', '2', '--reason', 'again')).expectExit(3).error.details.status).toBe('open')
  })

  test('depend adds typed links, refuses a cycle naming it, and removes', async () => {
    ;(await ws.dacli('task', 'add', 'Third step', '--project', 'ledger')).expectExit(0)
    const r = (await change('task', 'depend', '2', '--add', '1:SS', '--add', '3')).expectExit(0).json
    expect(r.task.depends_on.map((d: { ref: string; type: string }) => `${d.ref}:${d.type}`)).toEqual([
      'ledger/001-write-the-shim:SS',
      'ledger/003-third-step:FS',
    ])
    const cyc = (await change('task', 'depend', '1', '--add', '2')).expectExit(3)
    expect(cyc.error.details.cycle).toEqual([
      'ledger/001-write-the-shim',
      'ledger/002-audit-paths',
      'ledger/001-write-the-shim',
    ])
    expect((await change('task', 'depend', '1', '--add', '1')).code).toBe(3)
    expect((await change('task', 'depend', '1', '--add', '99')).code).toBe(4)
    expect((await change('task', 'depend', '2')).code).toBe(2)
    const rm = (await change('task', 'depend', '2', '--remove', '3')).expectExit(0).json
    expect(rm.task.depends_on).toHaveLength(1)
  })

  test('edit changes fields; --if-version refuses a stale write (5)', async () => {
    const v = (await ws.dacli('task', 'show', '1', '--json')).json.version
    const r = (
      await change(
        'task',
        'edit',
        '1',
        '--title',
        'Write the ledger shim',
        '--priority',
        'must',
        '--estimate',
        '1,2,5',
        '--accept',
        'runbook',
        '--if-version',
        String(v),
      )
    ).expectExit(0).json
    expect(r.task).toMatchObject({
      title: 'Write the ledger shim',
      priority: 'must',
      acceptance_total: 3,
      version: v + 1,
    })
    expect(r.task.path).toBe('.dacli/projects/ledger/tasks/open/001-write-the-shim.md')
    const stale = (await change('task', 'edit', '1', '--priority', 'could', '--if-version', String(v))).expectExit(5)
    expect(stale.error.details).toEqual({ expected_version: v, actual_version: v + 1 })
    expect((await change('task', 'edit', '1')).code).toBe(2)
    expect((await change('task', 'edit', '1', '--priority', 'must')).expectExit(0).json.outcome).toBe('unchanged')
  })

  test('rm writes a tombstone; active, done or depended-on tasks need --force; numbers are never reused', async () => {
    ;(await ws.dacli('task', 'depend', '2', '--add', '1')).expectExit(0)
    expect((await change('task', 'rm', '1')).expectExit(3).error.details.dependents).toEqual(['ledger/002-audit-paths'])
    const r = (await change('task', 'rm', '1', '--force')).expectExit(0).json
    expect(r.task.path).toBe('.dacli/projects/ledger/tasks/removed/001-write-the-shim.md')
    expect(fs.existsSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open/001-write-the-shim.md'))).toBe(false)
    expect((await ws.dacli('task', 'list', '--json')).json.total).toBe(1)
    expect((await ws.dacli('task', 'add', 'New one', '--project', 'ledger', '--json')).json.seq).toBe(3)
  })

  test('rm again: the tombstone is there, so it is an idempotent repeat (exit 0, unchanged), writing nothing', async () => {
    ;(await change('task', 'rm', '2')).expectExit(0)
    const tomb = path.join(ws.root, '.dacli/projects/ledger/tasks/removed/002-audit-paths.md')
    const bytes = fs.readFileSync(tomb, 'utf8')
    const again = (await change('task', 'rm', '2')).expectExit(0).json
    expect(again).toMatchObject({ action: 'rm', outcome: 'unchanged', event_id: null, details: { removed: true } })
    expect(again.task).toMatchObject({
      status: 'removed',
      path: '.dacli/projects/ledger/tasks/removed/002-audit-paths.md',
    })
    expect(fs.readFileSync(tomb, 'utf8')).toBe(bytes)
    expect((await ws.dacli('task', 'rm', 'ledger/2')).expectExit(0).stdout).toMatch(
      /unchanged: ledger\/002-audit-paths/,
    )
    // A task that never existed is still not found.
    expect((await ws.dacli('task', 'rm', 'ledger/9')).code).toBe(4)
  })
})
