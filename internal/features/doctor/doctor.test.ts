import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { ledgerPlan } from '../../testkit/ledger.js'
import { dacliJson } from '../../testkit/schemas.js'
import type { RunOpts, Workspace } from '../../testkit/ws.js'

let ws: Workspace
const j = (...args: (string | RunOpts)[]) => dacliJson(ws, ...args)

beforeEach(async () => {
  ws = await ledgerPlan()
})

describe('doctor', () => {
  test('doctor names broken files, dangling links, cycles, orphans, expired claims, stale locks; --strict exits 1', async () => {
    expect((await j('doctor', '--strict')).expectExit(0).json).toEqual({
      schema: 'doctor/v1',
      ok: true,
      findings: [],
      remote_claims: null,
    })
    ws.write('.dacli/projects/ledger/tasks/open/009-broken.md', '---\nid: [oops\n---\n')
    const f2 = path.join(ws.root, '.dacli/projects/ledger/tasks/open/004-write-notes.md')
    fs.writeFileSync(f2, fs.readFileSync(f2, 'utf8').replace(/depends_on:\n.*\n/, 'depends_on: [ledger/77]\n'))
    const a = await ws.agent('rw', 'gone')
    ;(
      await ws.dacli('task', 'claim', '3', '--lease', '1s', { as: a.token, now: new Date('2026-01-01T00:00:00Z') })
    ).expectExit(0)
    // Retired behind dacli's back (agent retire refuses while it owns work): its task is orphaned.
    ws.write(`.dacli/agents/${a.id}.md`, ws.file(`.dacli/agents/${a.id}.md`).replace('retired: false', 'retired: true'))
    ws.write(
      '.dacli/locks/task-x.lock',
      JSON.stringify({
        pid: 999999,
        started: null,
        host: (await import('node:os')).hostname(),
        token: 't',
        time: '2026-01-01T00:00:00Z',
        scope: 'x',
      }),
    )
    const r = await j('doctor', '--strict')
    expect(r.code).toBe(1)
    const codes = r.json.findings.map((f: { code: string }) => f.code)
    for (const c of ['unparseable-object', 'dangling-dependency', 'orphaned-task', 'expired-claim', 'stale-lock'])
      expect(codes).toContain(c)
    expect(r.json.ok).toBe(false)
    expect(r.json.findings.find((f: { code: string }) => f.code === 'unparseable-object').subject).toBe(
      '.dacli/projects/ledger/tasks/open/009-broken.md',
    )
    expect((await j('doctor')).code).toBe(0)
    // Every read command still answers with a broken file present.
    for (const cmd of [['status'], ['overview'], ['next'], ['task', 'list'], ['lint'], ['context', '1']])
      expect((await j(...cmd)).code, cmd.join(' ')).toBe(0)
  })

  test('a folder named like a task or note file is unparseable-object ("a folder"), not special-file', async () => {
    fs.mkdirSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open/011-x.md'))
    fs.mkdirSync(path.join(ws.root, '.dacli/projects/ledger/notes/decisions/y.md'), { recursive: true })
    const findings = (await j('doctor')).expectExit(0).json.findings
    for (const subject of ['tasks/open/011-x.md', 'notes/decisions/y.md'])
      expect(findings).toContainEqual(
        expect.objectContaining({
          code: 'unparseable-object',
          subject: `.dacli/projects/ledger/${subject}`,
          message: expect.stringContaining('a folder'),
        }),
      )
    expect(findings.map((f: { code: string }) => f.code)).not.toContain('special-file')
  })

  test('two dangling dependencies of one task are two findings, each with its fix', async () => {
    const f = path.join(ws.root, '.dacli/projects/ledger/tasks/open/004-write-notes.md')
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(/depends_on:\n.*\n/, 'depends_on: [ledger/77, ledger/78]\n'))
    const found = (await j('doctor')).json.findings.filter((x: { code: string }) => x.code === 'dangling-dependency')
    expect(found.map((x: { hint: string }) => x.hint)).toEqual([
      'dacli task depend ledger/004-write-notes --remove ledger/77',
      'dacli task depend ledger/004-write-notes --remove ledger/78',
    ])
  })

  test('an owner retired by hand (unsigned) keeps its live claim: the orphaned-task hint is a fix that works', async () => {
    const a = await ws.agent('rw', 'hand')
    await ws.ok('task', 'claim', '3', '--lease', '2h', { as: a.token })
    const file = `.dacli/agents/${a.id}.md`
    ws.write(file, ws.file(file).replace('retired: false', 'retired: true'))
    const f = (await j('doctor')).json.findings.find((x: { code: string }) => x.code === 'orphaned-task')
    expect(f.hint).toContain(`dacli agent retire ${a.id} --release`)
    // The old hint's `task claim` is refused: the claim is live and the retirement unsigned.
    expect((await ws.dacli('task', 'claim', '3')).code).toBe(5)
    await ws.ok('agent', 'retire', a.id, '--release')
    const codes = (await j('doctor')).json.findings.map((x: { code: string }) => x.code)
    expect(codes).not.toContain('orphaned-task')
  })

  test('a done task that still records a claim (left by hand) is claim-on-closed-task, with the line to remove', async () => {
    await ws.ok('task', 'add', 'Spike', '--project', 'ledger')
    await ws.ok('task', 'done', 'ledger/spike', '--allow-unverified')
    const rel = (await j('task', 'show', 'ledger/spike')).json.path
    expect((await j('doctor')).json.findings).toEqual([])
    const claim = 'claim: {by: a-root, at: 2026-01-01T00:00:00Z, expires: 2999-01-01T00:00:00Z, remote: origin}\n'
    ws.write(
      rel,
      ws.file(rel).replace(/^version: .*\n/m, (v) => `${v}${claim}`),
    )
    const before = ws.snapshot()
    const r = await j('doctor', '--strict')
    expect(r.json.findings).toEqual([
      {
        code: 'claim-on-closed-task',
        severity: 'warning',
        subject: expect.stringMatching(/^ledger\/\d{3}-spike$/),
        message: 'the done task still records a claim by a-root (since 2026-01-01T00:00:00Z)',
        hint: `remove the claim: line from ${rel}, keeping the rest (its ref on origin: dacli reconcile offers to delete it)`,
      },
    ])
    expect(r.code).toBe(0)
    expect(ws.snapshot()).toEqual(before)
  })

  test('a decision without ## Rejected is an error, as FORMAT.md lists it: --strict exits 1', async () => {
    await ws.ok('note', 'add', 'decision', 'Use one store', '--project', 'ledger', '--chose', 'a', '--rejected', 'b')
    const rel = '.dacli/projects/ledger/notes/decisions/use-one-store.md'
    ws.write(rel, ws.file(rel).replace(/## Rejected\n\nb\n\n?/, ''))
    const r = await j('doctor', '--strict')
    const f = r.json.findings.find((x: { code: string }) => x.code === 'decision-without-rejected')
    expect(f).toMatchObject({ severity: 'error', subject: rel })
    expect(r.json.ok).toBe(false)
    expect(r.code).toBe(1)
  })

  test('a temp file the next write never sweeps (another host) is not promised to go away', async () => {
    const rel = '.dacli/projects/ledger/tasks/open/.004-write-notes.md.dacli-tmp-999999-zzzzzzzz-0'
    ws.write(rel, 'half')
    const found = (await j('doctor')).json.findings.find((x: { subject: string }) => x.subject === rel)
    expect(found).toMatchObject({ code: 'stale-temp', severity: 'warning' })
    expect(found.hint).toContain('dacli never removes it')
    await ws.ok('task', 'edit', 'ledger/4', '--priority', 'should')
    expect(fs.existsSync(path.join(ws.root, rel))).toBe(true)
  })

  test('a created that is not an RFC 3339 time is a warning naming it; the task is still listed', async () => {
    const f = '.dacli/projects/ledger/tasks/open/004-write-notes.md'
    ws.write(f, ws.file(f).replace(/^created: .*$/m, 'created: yesterday'))
    const findings = (await j('doctor')).expectExit(0).json.findings
    expect(findings).toContainEqual(
      expect.objectContaining({
        code: 'invalid-field',
        severity: 'warning',
        subject: f,
        message: expect.stringContaining('"yesterday"'),
      }),
    )
    expect((await j('task', 'show', 'ledger/4')).expectExit(0).json.created).toBe('yesterday')
  })
})
