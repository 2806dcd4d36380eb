import * as fs from 'node:fs'
import { hostname } from 'node:os'
import * as path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace, seedTasks } from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

const TASKS = '.dacli/projects/alpha/tasks'

async function addTasks(n: number): Promise<void> {
  const names = ['Audit writes', 'Add the shim', 'Backfill data', 'Rotate keys', 'Write the runbook', 'Load test']
  for (let i = 0; i < n; i++) {
    ;(
      await w.ws.dacli('task', 'add', names[i] as string, '--project', 'alpha', '--accept', `criterion ${i + 1}`)
    ).expectExit(0)
  }
}

/** Move a task file to another status folder (a task's status is its folder). */
function move(name: string, to: string): void {
  const from = ['open', 'active', 'blocked', 'done'].find((s) => fs.existsSync(path.join(w.ws.root, TASKS, s, name)))
  fs.mkdirSync(path.join(w.ws.root, TASKS, to), { recursive: true })
  fs.renameSync(path.join(w.ws.root, TASKS, from as string, name), path.join(w.ws.root, TASKS, to, name))
}

const markers = () =>
  w.gh
    .repo('acme/widgets')
    .issues.flatMap((i) => [...(i.body ?? '').matchAll(/<!-- dacli:(t-\w+) ws:\w+ -->/g)].map((m) => m[1]))

describe('github push', () => {
  test('creates one issue per task with marker, labels and state; writes the number back; a re-push changes nothing', async () => {
    w = await githubWorkspace()
    ;(
      await w.ws.dacli(
        'task',
        'add',
        'Audit writes',
        '--project',
        'alpha',
        '--priority',
        'must',
        '--so-that',
        'no write is missed',
        '--accept',
        'every path listed',
      )
    ).expectExit(0)
    ;(await w.ws.dacli('task', 'add', 'Backfill data', '--project', 'alpha')).expectExit(0)
    ;(await w.ws.dacli('task', 'add', 'Old cleanup', '--project', 'alpha')).expectExit(0)
    move('003-old-cleanup.md', 'done')
    const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json.counts).toEqual({ create: 3, update: 0, close: 0, unchanged: 0 })
    const issues = w.gh.repo('acme/widgets').issues
    expect(issues.map((i) => [i.number, i.title, i.state, i.labels])).toEqual([
      [1, 'Audit writes', 'open', ['priority:must', 'status:open']],
      [2, 'Backfill data', 'open', ['status:open']],
      [3, 'Old cleanup', 'closed', ['status:done']],
    ])
    const t1 = (await w.ws.dacli('task', 'show', 'alpha/1', '--json')).json
    expect(issues[0]?.body).toContain(`<!-- dacli:${t1.id} ws:`)
    expect(issues[0]?.body).toContain('**So that** no write is missed')
    expect(issues[0]?.body).toContain('- [ ] every path listed')
    expect(t1.github).toMatchObject({ issue: 1, repo: 'acme/widgets' })
    expect(t1.log.at(-1)).toMatchObject({ verb: 'edited', details: 'github: issue acme/widgets#1' })
    expect(w.gh.writes().map((c) => c.method)).toEqual(['POST', 'POST', 'POST', 'PATCH'])

    // A task file that cannot be read is announced, not pushed, and never rewritten.
    w.ws.write(`${TASKS}/open/004-broken.md`, '---\nid: [unclosed\n---\n# Broken\n')
    const before = w.ws.snapshot()
    w.gh.resetCalls()
    const again = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expect(again.json.counts).toEqual({ create: 0, update: 0, close: 0, unchanged: 3 })
    expect(again.json.skipped).toEqual([{ path: `${TASKS}/open/004-broken.md`, reason: expect.any(String) }])
    expect((await w.run('github', 'push', 'alpha')).stdout).toContain(`not pushed: ${TASKS}/open/004-broken.md`)
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
  })

  test('a create whose answer was lost (GitHub created it, then answered 502) is adopted in the run, not duplicated', async () => {
    w = await githubWorkspace()
    await addTasks(5)
    w.gh.fail({ method: 'POST', path: /\/issues$/, nth: 3, status: 502, afterApply: true })
    const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json.items[2]).toMatchObject({
      ref: 'alpha/003-backfill-data',
      issue_number: 3,
      outcome: 'adopted',
      attempts: 1,
    })
    expect(r.json.outcomes).toEqual({ created: 4, updated: 0, closed: 0, unchanged: 0, adopted: 1, failed: 0 })
    expect(w.gh.writes().map((c) => c.status)).toEqual([201, 201, 502, 201, 201])
    expect(w.gh.repo('acme/widgets').issues).toHaveLength(5)
    expect(new Set(markers()).size).toBe(5)
    for (let i = 1; i <= 5; i++) {
      expect((await w.ws.dacli('task', 'show', `alpha/${i}`, '--json')).json.github.issue).toBe(i)
    }

    // A done task's issue is closed by a PATCH, which is idempotent: a 502 on it is simply retried.
    move('005-write-the-runbook.md', 'done')
    w.gh.resetCalls()
    w.gh.fail({ method: 'PATCH', status: 502 })
    const again = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expect(again.json.counts).toEqual({ create: 0, update: 0, close: 1, unchanged: 4 })
    expect(w.gh.writes().map((c) => c.status)).toEqual([502, 200])
    expect(w.gh.repo('acme/widgets').issues[4]?.state).toBe('closed')
    w.gh.resetCalls()
    expect((await w.run('github', 'push', 'alpha', '--json')).expectExit(0).json.counts.unchanged).toBe(5)
    expect(w.gh.writes()).toEqual([])
  })

  test('a workspace id with `.`, `_` and `-` (any id a workspace opens with) goes into markers that are found again', async () => {
    w = await githubWorkspace()
    const config = path.join(w.ws.root, '.dacli', 'config.yml')
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/^id: .*$/m, 'id: team.ws_2-b'))
    await addTasks(3)
    expect((await w.run('github', 'push', 'alpha', '--json')).expectExit(0).json.outcomes.created).toBe(3)
    const issues = w.gh.repo('acme/widgets').issues
    for (const i of issues) expect(i.body).toMatch(/^<!-- dacli:t-[0-9A-Z]+ ws:team\.ws_2-b -->$/m)
    // The write-back lost (a push cut off after GitHub made the issues): only the markers can find them again.
    const open = path.join(w.ws.root, TASKS, 'open')
    for (const f of fs.readdirSync(open)) {
      const file = path.join(open, f)
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^github: \{.*\}\n/m, ''))
    }
    w.gh.resetCalls()
    const again = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expect(again.json.outcomes).toMatchObject({ created: 0, adopted: 3, failed: 0 })
    expect(w.gh.repo('acme/widgets').issues).toHaveLength(3)
  })

  test('the dry run makes no write call and takes no lock; the real run holds the repository lock', async () => {
    w = await githubWorkspace()
    await addTasks(3)
    const before = w.ws.snapshot()
    const lock = path.join(w.ws.root, '.dacli/locks/github-acme--widgets.lock')
    fs.mkdirSync(path.dirname(lock), { recursive: true })
    fs.writeFileSync(
      lock,
      JSON.stringify({
        pid: process.pid,
        started: null,
        host: hostname(),
        token: 'held',
        time: new Date().toISOString(),
        scope: 'x',
      }),
    )
    const preview = (await w.run('github', 'push', 'alpha', '--dry-run', '--json')).expectExit(0)
    expectValid(preview.json)
    expect(preview.json.counts).toEqual({ create: 3, update: 0, close: 0, unchanged: 0 })
    expect(preview.json.output_digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
    const held = (await w.run('github', 'push', 'alpha', '--json', { env: { DACLI_LOCK_WAIT_MS: '50' } })).expectExit(5)
    expect(held.error.details.lock).toBe('github-acme--widgets')
    expect(w.gh.writes()).toEqual([])
    fs.rmSync(lock)

    // The preview said what the real run does.
    const real = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    const strip = (items: Record<string, unknown>[]) =>
      items.map(({ outcome: _o, reason: _r, attempts: _a, ...i }) => ({ ...i, issue_number: null }))
    expect(strip(real.json.items)).toEqual(strip(preview.json.items))
    expect(real.json.items.map((i: { outcome: string }) => i.outcome)).toEqual(['created', 'created', 'created'])
    expect(fs.existsSync(lock)).toBe(false)
    // Paging the preview does not change its digest.
    const p1 = (await w.run('github', 'push', 'alpha', '--dry-run', '--json', '--limit', '1')).json
    const p2 = (await w.run('github', 'push', 'alpha', '--dry-run', '--json', '--limit', '1', '--cursor', '1')).json
    expect(p1.output_digest).toBe(p2.output_digest)
    expect([p1.items.length, p1.next_cursor, p1.truncated]).toEqual([1, 1, true])
  })

  test('the disclosure gate: a public repository needs consent for exactly that repository, checked live', async () => {
    w = await githubWorkspace()
    await addTasks(2)
    const repo = w.gh.repo('acme/widgets')
    repo.visibility = 'public' // turned public after it was linked
    const before = w.ws.snapshot()
    for (const argv of [
      ['github', 'push', 'alpha'],
      ['github', 'push', 'alpha', '--dry-run'],
      ['github', 'sync', 'alpha', '--dry-run'],
    ]) {
      const r = (await w.run(...argv, '--json')).expectExit(3)
      expect(r.error.details).toMatchObject({
        policy: 'disclosure',
        repository: 'acme/widgets',
        public_confirmed: null,
      })
    }
    // Consent recorded for another repository does not count.
    const file = '.dacli/projects/alpha/project.md'
    w.ws.write(file, w.ws.file(file).replace('public_confirmed: null', 'public_confirmed: acme/other'))
    ;(await w.run('github', 'push', 'alpha', '--json')).expectExit(3)
    expect(w.gh.writes()).toEqual([])
    w.ws.write(file, w.ws.file(file).replace('public_confirmed: acme/other', 'public_confirmed: null'))
    expect(w.ws.snapshot()).toEqual(before)

    ;(await w.run('github', 'link', 'alpha', '--allow-public')).expectExit(2) // no origin remote: --repo is needed
    ;(await w.run('github', 'link', 'alpha', '--repo', 'acme/widgets', '--allow-public')).expectExit(0)
    ;(await w.run('github', 'push', 'alpha')).expectExit(0)
    expect(repo.issues).toHaveLength(2)
  })

  test('adoption writes less: the first push after a pull rewrites nothing; a task that moves on is written', async () => {
    w = await githubWorkspace()
    w.gh.addIssue('acme/widgets', {
      title: 'Crash on empty input',
      body: 'It crashes.',
      labels: ['bug'],
      user: 'carol',
    })
    w.gh.addIssue('acme/widgets', { title: 'Slow dashboard', body: 'Slow.', labels: ['priority:high'] })
    w.gh.addIssue('acme/widgets', { title: 'Typo in footer', body: 'Typo.', labels: ['status:open'] })
    ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
    const adopted = w.ws.snapshot()
    w.gh.resetCalls()
    const r = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0)
    expect(r.json.outcomes).toMatchObject({ unchanged: 3, updated: 0, failed: 0 })
    expect(r.json.items.map((i: { attempts: number }) => i.attempts)).toEqual([0, 0, 0])
    expect(w.gh.writes()).toEqual([])
    expect(w.ws.snapshot()).toEqual(adopted)
    const issue = w.gh.repo('acme/widgets').issues[0]
    expect([issue?.title, issue?.body, issue?.labels]).toEqual(['Crash on empty input', 'It crashes.', ['bug']])

    move('001-crash-on-empty-input.md', 'done')
    ;(await w.ws.dacli('task', 'edit', 'alpha/2', '--priority', 'must')).expectExit(0)
    const moved = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0).json
    expect(moved.items.map((i: { outcome: string; changes: string[] }) => [i.outcome, i.changes])).toEqual([
      ['closed', ['labels', 'state']],
      ['updated', ['labels']],
      ['unchanged', []],
    ])
    expect([issue?.state, issue?.labels, issue?.body]).toEqual(['closed', ['bug', 'status:done'], 'It crashes.'])
    expect(w.gh.repo('acme/widgets').issues[1]?.labels).toEqual(['priority:must', 'status:open'])
    move('001-crash-on-empty-input.md', 'open')
    const reopened = (await w.run('github', 'push', 'alpha', '--json')).expectExit(0).json
    expect(reopened.items[0]).toMatchObject({ outcome: 'updated', state: 'open', labels: ['bug', 'status:open'] })
    expect(issue?.state).toBe('open')
    expect(issue?.body).toBe('It crashes.')
  })

  test('REF and --since choose the tasks; a foreign or unknown ref is refused before any API call', async () => {
    w = await githubWorkspace()
    await addTasks(3)
    const old = '.dacli/projects/alpha/tasks/open/001-audit-writes.md'
    w.ws.write(old, w.ws.file(old).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '2020-01-01T00:00:00Z'))
    const since = (await w.run('github', 'push', 'alpha', '--since', '1h', '--dry-run', '--json')).expectExit(0).json
    expect(since.items.map((i: { ref: string }) => i.ref)).toEqual([
      'alpha/002-add-the-shim',
      'alpha/003-backfill-data',
    ])
    const both = (await w.run('github', 'push', 'alpha', '1', '3', '--since', '1h', '--dry-run', '--json')).json
    expect(both.total).toBe(3)
    const one = (await w.run('github', 'push', 'alpha', '001-audit-writes', '--json')).expectExit(0).json
    expect(one.items.map((i: { ref: string }) => i.ref)).toEqual(['alpha/001-audit-writes'])

    ;(await w.ws.dacli('project', 'add', 'Beta', '--slug', 'beta')).expectExit(0)
    ;(await w.ws.dacli('task', 'add', 'Elsewhere', '--project', 'beta')).expectExit(0)
    w.gh.resetCalls()
    expect((await w.run('github', 'push', 'alpha', 'beta/1', '--json')).expectExit(2).error.message).toMatch(
      /task of project "beta"/,
    )
    ;(await w.run('github', 'push', 'alpha', '99', '--json')).expectExit(4)
    ;(await w.run('github', 'push', 'alpha', '--since', 'soon', '--json')).expectExit(2)
    ;(await w.run('github', 'push', 'alpha', '--limit', '3', '--json')).expectExit(2)
    expect(w.gh.calls).toEqual([])
  })

  test('progress on stderr: lines without a terminal, a bar on one, with pacing, quota and retries; none under --json', async () => {
    w = await githubWorkspace()
    seedTasks(w.ws, 'alpha', 30)
    const paced = { env: { DACLI_GITHUB_WRITE_INTERVAL_MS: '1' } }
    const lines = (
      await w.run(
        'github',
        'push',
        'alpha',
        '1',
        '2',
        '3',
        ...Array.from({ length: 27 }, (_, i) => String(i + 4)),
        paced,
      )
    ).expectExit(0)
    expect(lines.stderr.split('\n').filter((l) => l !== '')).toEqual([
      expect.stringMatching(
        /^push: 30 issues to write on acme\/widgets \(writes 1 ms apart, new issues 3 ms; quota \d+\/5000\)…$/,
      ),
      ...[3, 6, 9, 12, 15, 18, 21, 24, 27, 30].map((n) =>
        expect.stringMatching(new RegExp(`^push acme/widgets: ${n}/30 \\(${(n * 10) / 3}%\\) quota \\d+/5000$`)),
      ),
    ])
    expect(lines.stderr).not.toContain('\r')

    seedTasks(w.ws, 'alpha', 3, { from: 31 })
    w.gh.fail({ method: 'POST', status: 502 })
    const bar = (await w.run('github', 'push', 'alpha', { tty: true })).expectExit(0)
    expect(bar.stderr).toMatch(/^push: 3 issues to write on acme\/widgets \(writes unpaced; quota \d+\/5000\)…\n/)
    // A retry wait is a line that stays; the bar is redrawn in place, and cleared before the result is printed.
    expect(bar.stderr).toMatch(/\nGitHub answered 502 while creating an issue in acme\/widgets: retrying in \d+ ms…\n/)
    expect(bar.stderr).toMatch(/\rpush acme\/widgets [█░]{20} \d\/3 {2}quota \d+\/5000/)
    expect(bar.stderr.endsWith('\r\u001b[K')).toBe(true)
    expect(bar.stdout).toMatch(/^ {2}created #31/m)
    // A read retried names the path it went to, not the route's template.
    w.gh.fail({ method: 'GET', status: 502 })
    const read = (await w.run('github', 'push', 'alpha')).expectExit(0)
    expect(read.stderr).toMatch(/GitHub answered 502 on GET \/repos\/acme\/widgets: retrying in \d+ ms…/)
    expect(read.stderr).not.toContain('{owner}')

    seedTasks(w.ws, 'alpha', 1, { from: 34 })
    expect((await w.run('github', 'push', 'alpha', '--json', { tty: true })).expectExit(0).stderr).toBe('')
    seedTasks(w.ws, 'alpha', 1, { from: 35 })
    expect((await w.run('github', 'push', 'alpha', '--quiet', { tty: true })).expectExit(0).stderr).toBe('')
  })
})
