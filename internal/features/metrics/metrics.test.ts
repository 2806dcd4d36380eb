// `metrics` through the built bin, over workspaces made by real
// commands. The populated workspace is dated with the in-process runner's clock
// (`now`), relative to the real time, so the bin's `--since` windows fall between
// known finishes; every expected value is worked out by hand below.

import { beforeAll, describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { git, type RunOpts, type Workspace, workspace } from '../../testkit/ws.js'

const H = 3_600_000
const D = 24 * H

/** Every measure empty: what an empty window reports. */
const EMPTY = {
  tasks_finished: 0,
  completion: { value: null, samples: 0 },
  retry: { value: null, samples: 0 },
  failures: { classes: null, samples: 0 },
  wall_time: { median_seconds: null, total_seconds: null, samples: 0 },
  tokens: { output: null, samples: 0, budget: null, budget_samples: 0 },
  human_intervention: { value: null, samples: 0 },
}

function metricsOf(ws: Workspace, ...args: string[]) {
  const r = ws.spawn(['metrics', ...args, '--json']).expectExit(0)
  expectValid(r.json)
  return r.json
}

describe('an empty workspace', () => {
  test('every measure is null with 0 samples, in JSON and as — for people; nothing is written', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'Open work', '--project', 'ledger', '--accept', 'x')).expectExit(0)
    const before = ws.snapshot()
    const doc = metricsOf(ws)
    expect(doc).toMatchObject({ schema: 'metrics/v1', schema_version: 1, window: { since: null }, ...EMPTY })
    expect(Object.keys(doc)).toEqual(['schema', 'schema_version', 'window', ...Object.keys(EMPTY), 'delivery'])
    // Delivery progress: one open task; what the files never show (ready, released) is null, never 0.
    expect(doc.delivery).toEqual([
      {
        project: 'ledger',
        states: { open: 1, claimed: 0, pr_open: 0, ready: null, landed: 0, released: null },
        lead_time: {
          open_to_claimed: { median_seconds: null, samples: 0 },
          claimed_to_pr_open: { median_seconds: null, samples: 0 },
          pr_open_to_landed: { median_seconds: null, samples: 0 },
          landed_to_released: { median_seconds: null, samples: 0 },
        },
      },
    ])
    expect(Date.parse(doc.window.until)).toBeGreaterThan(Date.now() - 60_000)
    const human = ws.spawn(['metrics']).expectExit(0).stdout
    expect(human).toMatch(/tasks finished: +0\n/)
    for (const k of ['completion', 'retry', 'failures', 'wall time', 'tokens', 'token budget', 'human intervention'])
      expect(human).toMatch(new RegExp(`\\n${k}: +—\\n`))
    expect(human).not.toMatch(/ 0%| 0 reopens/)
    expect(ws.snapshot()).toEqual(before)
  })

  test('a project without tasks has its delivery entry too (counts 0, stages null), in metrics and overview', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Quiet', '--slug', 'quiet')).expectExit(0)
    const entry = {
      project: 'quiet',
      states: { open: 0, claimed: 0, pr_open: 0, ready: null, landed: 0, released: null },
      lead_time: {
        open_to_claimed: { median_seconds: null, samples: 0 },
        claimed_to_pr_open: { median_seconds: null, samples: 0 },
        pr_open_to_landed: { median_seconds: null, samples: 0 },
        landed_to_released: { median_seconds: null, samples: 0 },
      },
    }
    expect(metricsOf(ws).delivery).toEqual([entry])
    expect(metricsOf(ws, '--project', 'quiet').delivery).toEqual([entry])
    expect((await ws.dacli('overview', '--json')).json.delivery).toEqual([entry])
  })
})

describe('a populated workspace', () => {
  let ws: Workspace
  let T0: number

  beforeAll(async () => {
    ws = await workspace()
    // A trunk with one commit, and a feature branch trunk does not have (for an unlanded close).
    git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'trunk')
    git(ws.root, 'checkout', '-q', '-b', 'feature')
    git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'feature work')
    git(ws.root, 'checkout', '-q', 'main')
    // Whole seconds (log stamps have second precision), ten days ago.
    T0 = Math.floor(Date.now() / 1000) * 1000 - 10 * D
    const at = (ms: number, as?: string): RunOpts => ({ now: new Date(T0 + ms), ...(as ? { as } : {}) })
    await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger', at(0))
    await ws.ok('project', 'add', 'Site', '--slug', 'site', at(0))
    await ws.ok('task', 'add', 'Round refunds', '--project', 'ledger', '--accept', 'rounded', at(0))
    await ws.ok('task', 'add', 'Audit paths', '--project', 'ledger', '--accept', 'listed', at(0))
    await ws.ok('task', 'add', 'Fix rates', '--project', 'ledger', '--accept', 'fixed', at(0))
    await ws.ok('task', 'add', 'Drop legacy export', '--project', 'ledger', '--accept', 'gone', at(0))
    await ws.ok('task', 'add', 'Still open', '--project', 'ledger', '--accept', 'someday', at(0))
    await ws.ok('task', 'add', 'Tidy readme', '--project', 'ledger', at(0))
    await ws.ok('task', 'add', 'Ship the page', '--project', 'site', '--accept', 'shipped', at(0))
    const worker = (await ws.agent('rw', 'worker')).token
    const helper = (await ws.agent('rw', 'helper')).token

    // ledger/1: claimed at T0, verified at +1h, done at +2h reporting 1200 tokens. Wall 2h = 7200 s.
    await ws.ok('task', 'claim', 'ledger/1', at(0, worker))
    await ws.ok('task', 'check', 'ledger/1', '--all', '--verify', 'true', at(1 * H, worker))
    await ws.ok('task', 'done', 'ledger/1', '--tokens', '1200', at(2 * H, worker))

    // ledger/2: the worker's 1 h lease (from +1h) lapses; the helper takes it over at +3h (lease-expired), asks
    // at +3h10m (the question blocks it: blocked), root answers at +3h20m (one answered question), the helper
    // ticks the criterion on its word at +4h (attested, so its close is an unverified-close) and closes at +5h
    // with 3000 tokens. Wall: first claim +1h → +5h = 4 h = 14400 s.
    await ws.ok('task', 'claim', 'ledger/2', '--lease', '1h', at(1 * H, worker))
    await ws.ok('task', 'claim', 'ledger/2', at(3 * H, helper))
    const q = (
      await ws.dacli('ask', 'Which paths count?', '--about', 'ledger/2', '--json', at(3 * H + 10 * 60_000, helper))
    ).expectExit(0).json
    expect(q.task.status).toBe('blocked')
    await ws.ok('answer', q.id, 'Only the payment paths', at(3 * H + 20 * 60_000))
    await ws.ok('task', 'check', 'ledger/2', '--all', at(4 * H, helper))
    await ws.ok('task', 'done', 'ledger/2', '--tokens', '3000', at(5 * H, helper))

    // ledger/3: claimed at +1d, verified and done at +1d2h, reopened at +2d (reopened), claimed again at +8d,
    // verified, and closed at +8d30m from the feature branch trunk lacks, deliberately (unlanded-override).
    // Wall: first claim +1d → last close +8d30m = 7 d 30 min = 604800 + 1800 = 606600 s. No tokens reported.
    await ws.ok('task', 'claim', 'ledger/3', at(1 * D))
    await ws.ok('task', 'check', 'ledger/3', '--all', '--verify', 'true', at(1 * D + 1 * H))
    await ws.ok('task', 'done', 'ledger/3', at(1 * D + 2 * H))
    await ws.ok('task', 'reopen', 'ledger/3', '--reason', 'rates regressed', at(2 * D))
    await ws.ok('task', 'claim', 'ledger/3', at(8 * D))
    await ws.ok('task', 'check', 'ledger/3', '--all', '--verify', 'true', at(8 * D + 10 * 60_000))
    await ws.ok('task', 'done', 'ledger/3', '--branch', 'feature', '--allow-unlanded', at(8 * D + 30 * 60_000))

    // ledger/4: removed at +9d (a tombstone: counts against completion).
    await ws.ok('task', 'rm', 'ledger/4', at(9 * D))

    // ledger/5: claimed and blocked, never finished — not a sample of anything.
    await ws.ok('task', 'claim', 'ledger/5', at(1 * D))
    await ws.ok('task', 'block', 'ledger/5', '--why', 'waits on finance', at(1 * D + H))

    // ledger/6: no criteria, closed with --allow-unverified at +9d12h without a claim (unverified-close; no wall
    // time: it was never claimed).
    await ws.ok('task', 'done', 'ledger/6', '--allow-unverified', at(9 * D + 12 * H))

    // site/1: claimed at +2d, accepted with --verify at +2d6h reporting 500 tokens. Wall 6 h = 21600 s.
    await ws.ok('task', 'claim', 'site/1', at(2 * D))
    await ws.ok('accept', 'site/1', '--verify', 'true', '--tokens', '500', at(2 * D + 6 * H))
  })

  test('the log holds what metrics reads (bytes on disk)', async () => {
    const file = async (ref: string) => ws.file((await ws.dacli('task', 'show', ref, '--json')).json.path)
    expect(await file('ledger/1')).toMatch(/ tokens output 1200\n/)
    expect(await file('ledger/2')).toMatch(/ taken-over from a-worker-\w+ \(lease expired\)\n/)
    expect(await file('ledger/2')).toMatch(/ attested 1 /)
    expect(await file('ledger/3')).toMatch(/ unlanded feature: .*\(--allow-unlanded\)\n/)
    expect(await file('ledger/6')).toMatch(/ done with NO acceptance criteria/)
    expect(await file('site/1')).toMatch(/ accepted 1\/1 criteria\n.* tokens output 500\n/)
  })

  test('all history, every project: each field computed by hand', () => {
    const before = ws.snapshot()
    const doc = metricsOf(ws)
    // Finished: ledger/1, 2, 3, 6 and site/1 = 5. Removed: ledger/4 = 1. ledger/5 is unfinished.
    expect(doc).toEqual({
      schema: 'metrics/v1',
      schema_version: 1,
      window: { since: null, until: doc.window.until },
      tasks_finished: 5,
      // 5 done ÷ (5 done + 1 removed)
      completion: { value: 5 / 6, samples: 6 },
      // one reopen (ledger/3) over 5 finished tasks
      retry: { value: 1 / 5, samples: 5 },
      failures: {
        // reopened: ledger/3; lease-expired: ledger/2; unverified-close: ledger/2 (attested) + ledger/6 (no
        // criteria) = 2; unlanded-override: ledger/3; blocked: ledger/2's question (ledger/5 is not finished)
        classes: { reopened: 1, 'lease-expired': 1, 'unverified-close': 2, 'unlanded-override': 1, blocked: 1 },
        samples: 5,
      },
      // 7200, 14400, 21600, 606600 (ledger/6 was never claimed): median (14400 + 21600) / 2 = 18000;
      // total 7200 + 14400 + 21600 + 606600 = 649800
      wall_time: { median_seconds: 18000, total_seconds: 649800, samples: 4 },
      // 1200 + 3000 + 500 = 4700 from three tasks; no budget is recorded anywhere
      tokens: { output: 4700, samples: 3, budget: null, budget_samples: 0 },
      // one answered question (about ledger/2) over 5 finished tasks
      human_intervention: { value: 1 / 5, samples: 5 },
      delivery: doc.delivery,
    })
    expect(doc.delivery.map((p: { project: string }) => p.project)).toEqual(['ledger', 'site'])
    for (const p of doc.delivery) expect(p.states).toMatchObject({ ready: null, released: null })
    expect(ws.snapshot()).toEqual(before)
  })

  test('--project keeps one project’s tasks', () => {
    const doc = metricsOf(ws, '--project', 'ledger')
    // Finished: ledger/1, 2, 3, 6 = 4; removed ledger/4.
    expect(doc).toMatchObject({
      tasks_finished: 4,
      completion: { value: 4 / 5, samples: 5 },
      retry: { value: 1 / 4, samples: 4 },
      failures: {
        classes: { reopened: 1, 'lease-expired': 1, 'unverified-close': 2, 'unlanded-override': 1, blocked: 1 },
        samples: 4,
      },
      // 7200, 14400, 606600: median 14400, total 628200
      wall_time: { median_seconds: 14400, total_seconds: 628200, samples: 3 },
      tokens: { output: 4200, samples: 2, budget: null, budget_samples: 0 },
      human_intervention: { value: 1 / 4, samples: 4 },
    })
    const site = metricsOf(ws, '--project', 'site')
    // site/1 alone: accepted, verified, 6 h, 500 tokens, nothing failed (zeros measured over one task).
    expect(site).toMatchObject({
      tasks_finished: 1,
      completion: { value: 1, samples: 1 },
      retry: { value: 0, samples: 1 },
      failures: {
        classes: { reopened: 0, 'lease-expired': 0, 'unverified-close': 0, 'unlanded-override': 0, blocked: 0 },
        samples: 1,
      },
      wall_time: { median_seconds: 21600, total_seconds: 21600, samples: 1 },
      tokens: { output: 500, samples: 1 },
      human_intervention: { value: 0, samples: 1 },
    })
  })

  test('--since keeps tasks finished (or removed) in the window', () => {
    const doc = metricsOf(ws, '--since', '3d')
    // now − 3d = T0 + 7d. In: ledger/3 (closed +8d30m), ledger/6 (+9d12h), ledger/4 removed (+9d).
    // Out: ledger/1 (+2h), ledger/2 (+5h), site/1 (+2d6h) — although ledger/3's history reaches back to +1d.
    const since = Date.parse(doc.window.since)
    expect(Date.parse(doc.window.until) - since).toBe(3 * D)
    expect(since).toBeGreaterThan(T0 + 7 * D - 5 * 60_000)
    expect(doc).toMatchObject({
      tasks_finished: 2,
      completion: { value: 2 / 3, samples: 3 },
      retry: { value: 1 / 2, samples: 2 },
      failures: {
        // ledger/3: reopened, unlanded-override; ledger/6: unverified-close
        classes: { reopened: 1, 'lease-expired': 0, 'unverified-close': 1, 'unlanded-override': 1, blocked: 0 },
        samples: 2,
      },
      wall_time: { median_seconds: 606600, total_seconds: 606600, samples: 1 },
      // finished tasks, but none reported tokens: null, not 0
      tokens: { output: null, samples: 0, budget: null, budget_samples: 0 },
      human_intervention: { value: 0, samples: 2 },
    })
    // The last hour: nothing finished, nothing removed — nothing measured.
    expect(metricsOf(ws, '--since', '1h')).toMatchObject(EMPTY)
    expect(metricsOf(ws, '--since', '1h', '--project', 'site')).toMatchObject(EMPTY)
  })

  test('people read a summary', () => {
    const out = ws.spawn(['metrics', '--project', 'ledger', '--since', '3d']).stdout
    expect(out).toMatch(/^metrics {2}project ledger, finished since \S+Z \(measured \S+Z\)\n/)
    expect(out).toMatch(/\ncompletion: +67% \(2 done of 3 finished or removed\)\n/)
    expect(out).toMatch(/\nretry: +0\.50 reopens per finished task\n/)
    expect(out).toMatch(/\nwall time: +median 7d30m, total 7d30m \(claim → done, 1 task\)\n/)
    expect(out).toMatch(/\ntokens: +—\n/)
    expect(out).toMatch(/\nhuman intervention: +0 answered questions per finished task\n/)
  })

  test('bad input: exit 2 (a bad duration, a bad slug, an argument, an unknown flag) or 4, nothing written', () => {
    const before = ws.snapshot()
    for (const bad of [['--since', '0'], ['--since', 'soon'], ['--since', '-3d'], ['--since'], ['--project', '../x']]) {
      const r = ws.spawn(['metrics', ...bad, '--json'])
      expect(r.code, bad.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.error).toMatchObject({ schema: 'error/v1', exit_code: 2, kind: 'usage' })
    }
    expect(ws.spawn(['metrics', '--since', 'soon', '--json']).error.details).toMatchObject({
      flag: '--since',
      value: 'soon',
      expected: 'duration',
    })
    expect(ws.spawn(['metrics', 'ledger']).code).toBe(2)
    expect(ws.spawn(['metrics', '--window', '3d']).stderr).toMatch(/--window/)
    const missing = ws.spawn(['metrics', '--project', 'nope', '--json'])
    expect(missing.code).toBe(4)
    expect(missing.error.message).toMatch(/nope/)
    expect(ws.snapshot()).toEqual(before)
  })
})

describe('hostile files', () => {
  test('a mangled stamp is unknown, a malformed token line is ignored, a broken file is announced and skipped', async () => {
    const ws = await workspace()
    await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
    for (const t of ['First', 'Second']) {
      await ws.ok('task', 'add', `${t} job`, '--project', 'ledger', '--accept', 'works')
    }
    for (const ref of ['ledger/1', 'ledger/2']) {
      await ws.ok('task', 'claim', ref)
      await ws.ok('accept', ref, '--verify', 'true', '--tokens', '10')
    }
    const rel = (await ws.dacli('task', 'show', 'ledger/1', '--json')).json.path
    const text = ws.file(rel)
    // A minute ago without its zone (Date.parse would read it as local time, inside the window) is no RFC 3339
    // UTC stamp; a word is not a token count.
    const zoneless = new Date(Date.now() - 60_000).toISOString().slice(0, 19)
    const mangled = text
      .replace(/- \S+ (a-root accepted )/, `- ${zoneless} $1`)
      .replace(/(tokens output 10\n)/, '$1- 2026-12-01T00:00:00Z a-root tokens output lots\n')
    expect(mangled).not.toBe(text)
    ws.write(rel, mangled)
    ws.write('.dacli/projects/ledger/tasks/done/009-broken.md', 'no frontmatter here\n')
    const before = ws.snapshot()

    const r = ws.spawn(['metrics', '--json']).expectExit(0)
    expectValid(r.json)
    expect(r.stderr).toMatch(/skipped \.dacli\/projects\/ledger\/tasks\/done\/009-broken\.md/)
    // Both finished (no window); ledger/1's close has no known time, so only ledger/2 has a wall time; each
    // reported 10 tokens (the malformed line adds nothing).
    expect(r.json).toMatchObject({
      tasks_finished: 2,
      wall_time: { samples: 1 },
      tokens: { output: 20, samples: 2 },
    })
    // Inside a window, a finish whose time is unknown cannot be placed: only ledger/2.
    expect(ws.spawn(['metrics', '--since', '1d', '--json']).expectExit(0).json).toMatchObject({
      tasks_finished: 1,
      completion: { value: 1, samples: 1 },
      tokens: { output: 10, samples: 1 },
    })
    expect(ws.snapshot()).toEqual(before)
  })
})
