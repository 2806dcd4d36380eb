// `dacli board` in a real browser: Playwright (playwright-core) drives the
// system's Chromium (.ci/run installs it with the OS package manager when it is
// missing). Where no browser exists the tests are skipped, saying why.
// Screenshots of each view go to a temporary folder, or to bench/results/board/
// with UPDATE_SCREENSHOTS=1 (they are checked in and linked from the README).

import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATHS, chromiumExecutable } from '../../scripts/chromium.mjs'
import { type Started, startBoard } from '../testkit/board.js'
import { type Fixture, fixture, REPO_ROOT } from '../testkit/ws.js'

const executable = chromiumExecutable()
if (executable === null) {
  process.stderr.write(
    `board browser tests skipped: no Chromium found (looked at ${CHROMIUM_PATHS.join(', ')}; set DACLI_CHROMIUM). .ci/run installs it with apt-get.\n`,
  )
}

const ARGS = ['--headless', ...CHROMIUM_ARGS]
const shots =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'bench', 'results', 'board')
    : fs.mkdtempSync(path.join(os.tmpdir(), 'dacli-board-shots-'))

async function launch(): Promise<{ context: BrowserContext; dir: string }> {
  // A fresh profile every time (launchPersistentContext is how Playwright takes a --user-data-dir).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dacli-chromium-'))
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: executable as string,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 820 },
  })
  return { context, dir }
}

const taskFile = (f: Fixture, seq: string) => {
  for (const st of ['open', 'active', 'blocked', 'done']) {
    const d = path.join(f.ws.root, '.dacli/projects/alpha/tasks', st)
    const n = fs.existsSync(d) ? fs.readdirSync(d).find((x) => x.startsWith(`${seq}-`)) : undefined
    if (n) return path.join(d, n)
  }
  throw new Error(`no task ${seq}`)
}

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const t0 = Date.now()
  while (Date.now() - t0 < ms) {
    if (await check()) return Date.now() - t0
    await new Promise((r) => setTimeout(r, 25))
  }
  return Number.POSITIVE_INFINITY
}

describe.skipIf(executable === null)('dacli board in Chromium', () => {
  let f: Fixture
  let b: Started
  let context: BrowserContext
  let profile: string
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    f = await fixture()
    // Every task sized, so the graph has slack to show.
    await f.ws.dacli('task', 'edit', 'alpha/2', '--estimate', '2,3,5')
    await f.ws.dacli('task', 'edit', 'alpha/3', '--estimate', '1,1,2', { as: f.rw.token })
    await f.ws.dacli('task', 'edit', 'alpha/4', '--estimate', '1,2,3')
    await f.ws.dacli('task', 'block', 'alpha/2', '--by', 'alpha/1', '--why', 'needs the first thing')
    await f.ws.dacli(
      'note',
      'add',
      'finding',
      'First thing is slower than planned',
      '--project',
      'alpha',
      '--about',
      'alpha/1',
      '--severity',
      'moderate',
    )
    await f.ws.dacli('ask', 'Which port does the shim listen on?', '--about', 'alpha/2', { as: f.rw.token })
    b = await startBoard(f)
    ;({ context, dir: profile } = await launch())
    page = await context.newPage()
    page.on('pageerror', (e) => errors.push(e.message))
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    b?.stop()
    if (profile) fs.rmSync(profile, { recursive: true, force: true })
  })

  test('without the token the page is refused; with it the board loads and the token leaves the address', async () => {
    const bare = await page.goto(b.base)
    expect(bare?.status()).toBe(403)
    expect(await page.textContent('body')).toContain('token')
    await page.goto(b.url)
    await page.waitForSelector('.column[data-status="open"]')
    expect(page.url()).toBe(`${b.base}/`)
    expect(await page.textContent('#top')).toContain('acting as a-root')
  })

  test('the counts per column equal task list --json', async () => {
    await page.goto(`${b.base}/#/board/alpha`)
    await page.waitForSelector('.column[data-status="open"]')
    const list = (await f.ws.dacli('task', 'list', '--project', 'alpha', '--json')).json
    for (const st of ['open', 'active', 'blocked', 'done']) {
      const expected = list.tasks.filter((t: { status: string }) => t.status === st).length
      expect(await page.getAttribute(`.column[data-status="${st}"]`, 'data-count'), st).toBe(String(expected))
      expect(await page.locator(`.column[data-status="${st}"] .card`).count(), st).toBe(expected)
    }
  })

  test('a card opens its task: criteria, dependencies with status, why it is blocked, notes', async () => {
    await page.click('.card[data-ref^="alpha/002-"]')
    await page.waitForSelector('h1')
    expect(await page.textContent('h1')).toBe('Second thing')
    const text = (await page.textContent('#view')) ?? ''
    expect(text).toContain('needs the first thing')
    expect(text).toContain('FS')
    expect(await page.locator('.criteria input[type=checkbox]').count()).toBe(1)
    await page.goto(`${b.base}/#/task/alpha%2F1`)
    await page.waitForSelector('.notes li')
    expect(await page.textContent('.notes')).toContain('First thing is slower than planned')
  })

  test('ticking a criterion from the page writes the file', async () => {
    await page.goto(`${b.base}/#/task/alpha%2F1`)
    await page.waitForSelector('.criteria input[data-n="1"]')
    const file = taskFile(f, '001')
    expect(fs.readFileSync(file, 'utf8')).toContain('- [ ] it works')
    await page.click('.criteria input[data-n="1"]')
    await page.waitForSelector('.result.ok')
    expect(fs.readFileSync(taskFile(f, '001'), 'utf8')).toContain('- [x] it works')
    expect(await page.isChecked('.criteria input[data-n="1"]')).toBe(true)
  })

  test('a change made by another process appears within two seconds', async () => {
    await page.goto(`${b.base}/#/board/alpha`)
    await page.waitForSelector('.column[data-status="active"]')
    const active = () => page.locator('.column[data-status="active"] .card[data-ref^="alpha/004-"]').count()
    expect(await active()).toBe(0)
    await new Promise((r) => setTimeout(r, 300))
    const child = f.ws.spawn(['task', 'claim', 'alpha/4', '--lease', '1h'], { as: f.rw.token })
    expect(child.code).toBe(0)
    const took = await until(async () => (await active()) === 1, 4000)
    expect(took).toBeLessThan(2000)
    expect(await page.textContent('.column[data-status="active"] .card[data-ref^="alpha/004-"] .lease')).toMatch(
      /left$/,
    )
  })

  test('the graph draws the DAG with the critical path highlighted and slack on hover', async () => {
    await page.goto(`${b.base}/#/graph/alpha`)
    await page.waitForSelector('svg .node')
    const cp = (await f.ws.dacli('critical-path', '--project', 'alpha', '--json')).json
    expect(await page.locator('svg .node').count()).toBe(cp.tasks.length)
    expect(await page.locator('svg .node.crit').count()).toBe(
      cp.tasks.filter((t: { critical: boolean }) => t.critical).length,
    )
    const tip = await page.textContent('svg .node[data-ref^="alpha/001-"] title')
    expect(tip).toMatch(/slack \d+\.\d/)
    await page.hover('svg .node[data-ref^="alpha/001-"]')
    expect(await page.textContent('.graph .tip')).toMatch(/slack \d+\.\d/)
  })

  test('the agents view lists live claims with their lease and pending events', async () => {
    await page.goto(`${b.base}/#/agents`)
    await page.waitForSelector('#claims table')
    const claims = (await page.textContent('#claims')) ?? ''
    expect(claims).toContain(f.rw.id)
    expect(claims).toMatch(/left/)
    expect(await page.textContent('#agents')).toContain(f.ro.id)
    const open = (await f.ws.dacli('threads', '--open', '--json')).json
    expect(await page.textContent('#questions h3')).toBe(`Open questions (${open.open})`)
  })

  test('a refused action (read-only server identity) shows the policy and the next actions', async () => {
    const ro = await startBoard(f, [], f.ro.token)
    try {
      const p = await context.newPage()
      await p.goto(ro.url)
      await p.waitForSelector('.column')
      expect(await p.textContent('#top')).toContain(`acting as ${f.ro.id}`)
      await p.goto(`${ro.base}/#/task/alpha%2F2`)
      await p.waitForSelector('.criteria input[data-n="1"]')
      const before = fs.readFileSync(taskFile(f, '002'), 'utf8')
      await p.click('.criteria input[data-n="1"]')
      await p.waitForSelector('.result.refused')
      const box = (await p.textContent('.result.refused')) ?? ''
      expect(box).toContain('policy: grant')
      expect(box).toContain('Next actions')
      expect(fs.readFileSync(taskFile(f, '002'), 'utf8')).toBe(before)
      await p.screenshot({ path: path.join(shots, 'refused.png'), fullPage: true })
      await p.close()
    } finally {
      ro.stop()
    }
  })

  test('screenshots of each view (a project with real work in it)', async () => {
    await f.ws.ok(
      'project',
      'add',
      'Ledger write path',
      '--slug',
      'ledger',
      '--goal',
      'Reconciliation stops diverging at month end',
    )
    const add = (title: string, ...more: string[]) => f.ws.ok('task', 'add', title, '--project', 'ledger', ...more)
    await add(
      'Audit every write path',
      '--priority',
      'must',
      '--estimate',
      '1,2,4',
      '--accept',
      'every write path is listed with its owner',
      '--accept',
      'the list is reviewed',
    )
    await add(
      'Add the ledger write shim',
      '--priority',
      'must',
      '--estimate',
      '2,5,14',
      '--depends-on',
      '1',
      '--accept',
      'shim covers the nightly batch path',
      '--accept',
      'reconciliation suite green',
    )
    await add(
      'Backfill the drift table',
      '--priority',
      'should',
      '--estimate',
      '2,3,6',
      '--depends-on',
      '1',
      '--accept',
      'drift rows for 90 days',
    )
    await add(
      'Dashboard for drift per day',
      '--priority',
      'could',
      '--estimate',
      '1,3,8',
      '--depends-on',
      '2',
      '--depends-on',
      '3',
      '--accept',
      'drift per day is charted',
    )
    await add(
      'Switch the nightly batch to the shim',
      '--priority',
      'must',
      '--estimate',
      '1,2,3',
      '--depends-on',
      '2',
      '--accept',
      'the batch writes through the shim',
    )
    await add(
      'Write the reconciliation runbook',
      '--priority',
      'could',
      '--estimate',
      '1,1,2',
      '--accept',
      'on-call can follow it',
    )
    await f.ws.ok('task', 'claim', 'ledger/1', '--lease', '2h', { as: f.rw.token })
    await f.ws.ok('task', 'check', 'ledger/1', '--n', '1', '--verify', 'true', { as: f.rw.token })
    await f.ws.ok('task', 'block', 'ledger/5', '--by', 'ledger/2', '--why', 'the shim must land first')
    await f.ws.ok('task', 'check', 'ledger/6', '--all')
    await f.ws.ok('task', 'done', 'ledger/6')
    await f.ws.ok(
      'note',
      'add',
      'finding',
      'Batch writes bypass the ORM',
      '--project',
      'ledger',
      '--about',
      'ledger/1',
      '--severity',
      'major',
    )
    await f.ws.ok(
      'note',
      'add',
      'decision',
      'Shim before switching the batch',
      '--project',
      'ledger',
      '--about',
      'ledger/1',
      '--rejected',
      'a big-bang switch',
    )
    await page.goto(`${b.base}/#/board/ledger`)
    await page.waitForSelector('.column[data-status="active"] .card')
    await page.screenshot({ path: path.join(shots, 'board.png'), fullPage: true })
    await page.goto(`${b.base}/#/task/ledger%2F1`)
    await page.waitForSelector('.notes li')
    await page.screenshot({ path: path.join(shots, 'task.png'), fullPage: true })
    await page.goto(`${b.base}/#/graph/ledger`)
    await page.waitForSelector('svg .node')
    await page.hover('svg .node[data-ref^="ledger/003-"]')
    await page.waitForSelector('.graph .tip:not([hidden])')
    await page.screenshot({ path: path.join(shots, 'graph.png'), fullPage: true })
    await page.goto(`${b.base}/#/agents`)
    await page.waitForSelector('#claims table')
    await page.screenshot({ path: path.join(shots, 'agents.png'), fullPage: true })
    for (const v of ['board', 'task', 'graph', 'agents'])
      expect(fs.statSync(path.join(shots, `${v}.png`)).size).toBeGreaterThan(10_000)
  })

  test('no script errors on any view; the first load is at most 200 KB gzipped', async () => {
    expect(errors).toEqual([])
    const p = await context.newPage()
    let bytes = 0
    p.on('response', async (r) => {
      if (!r.url().includes('/api/'))
        bytes += Number((await r.allHeaders())['content-length'] ?? (await r.body()).length)
    })
    await p.goto(`${b.base}/`)
    await p.waitForSelector('.column')
    await p.close()
    expect(bytes).toBeGreaterThan(1000)
    expect(bytes).toBeLessThan(200 * 1024)
  })
})
