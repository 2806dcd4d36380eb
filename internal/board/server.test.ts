// `dacli board` without a browser: who gets in (token, cookie, header, Host),
// what is served (the three files and /api/…, nothing else), the API answering
// exactly what `--json` prints, actions only with the CSRF token (and never with
// --read-only), live events within two seconds of a change by another process,
// Ctrl-C exiting 0, and `kill -9` leaving the workspace as it was.

import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as http from 'node:http'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { csrfOf, request, type Started, startBoard } from '../testkit/board.js'
import { documentIn, splitPost } from '../testkit/splitpost.js'
import { BIN, baseEnv, type Fixture, fixture, snapshotOf } from '../testkit/ws.js'

/** The board's event stream, read as it comes: what arrived so far (`text`), forgotten by `clear`. */
async function eventStream(b: Started) {
  const events = await new Promise<http.IncomingMessage>((resolve) =>
    http.get(`${b.base}/api/events`, { headers: { 'X-Dacli-Token': b.token } }, resolve),
  )
  let seen = ''
  events.setEncoding('utf8')
  events.on('data', (c) => {
    seen += c
  })
  return {
    events,
    text: () => seen,
    clear: () => {
      seen = ''
    },
  }
}

describe('dacli board: the server', () => {
  let f: Fixture
  let b: Started
  beforeAll(async () => {
    f = await fixture()
    b = await startBoard(f)
  })
  afterAll(() => b.stop())

  test('prints board/v1 once: a loopback URL with a random token', async () => {
    expect(b.doc).toMatchObject({ host: '127.0.0.1', read_only: false, identity: 'a-root' })
    expect(b.doc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?t=[A-Za-z0-9_-]{32}$/)
    const other = await startBoard(f)
    expect(other.token).not.toBe(b.token)
    other.stop()
  })

  test('403 without the token; the URL sets a cookie and drops the token from the address', async () => {
    for (const p of ['/', '/assets/app.js', '/api/task/list', '/api/events', '/nope']) {
      const r = await request(`${b.base}${p}`)
      expect(r.status, p).toBe(403)
      expect(r.body).not.toContain('schema')
    }
    expect((await request(`${b.base}/?t=wrong`)).status).toBe(403)
    const first = await request(b.url)
    expect(first.status).toBe(303)
    expect(first.headers.location).toBe('/')
    const cookie = String(first.headers['set-cookie']?.[0])
    expect(cookie).toMatch(/^dacli_board_\d+=.+; HttpOnly; SameSite=Strict; Path=\/$/)
    const page = await request(`${b.base}/`, { headers: { Cookie: cookie.split(';')[0] as string } })
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toContain("default-src 'none'")
    expect(page.headers['referrer-policy']).toBe('no-referrer')
    expect(page.body).toContain('<script type="module" src="/assets/app.js">')
    expect(csrfOf(page.body)).toMatch(/^[A-Za-z0-9_-]{32}$/)
  })

  test('a page on another name (DNS rebinding) is refused even with the token', async () => {
    const r = await request(`${b.base}/api/board`, {
      headers: { 'X-Dacli-Token': b.token, Host: `evil.example:${b.doc.port}` },
    })
    expect(r.status).toBe(403)
    const ok = await request(`${b.base}/api/board`, {
      headers: { 'X-Dacli-Token': b.token, Host: `localhost:${b.doc.port}` },
    })
    expect(ok.status).toBe(200)
  })

  test('GET /api/<command path> answers exactly what --json prints', async () => {
    const h = { 'X-Dacli-Token': b.token }
    const cases: [string, string[]][] = [
      ['/api/task/list', ['task', 'list', '--json']],
      [
        '/api/task/list?project=alpha&status=open&status=active',
        ['task', 'list', '--project', 'alpha', '--status', 'open', '--status', 'active', '--json'],
      ],
      ['/api/task/show?ref=alpha%2F2', ['task', 'show', 'alpha/2', '--json']],
      ['/api/critical-path?project=alpha', ['critical-path', '--project', 'alpha', '--json']],
      ['/api/events/list?pending', ['events', 'list', '--pending', '--json']],
      ['/api/project/list', ['project', 'list', '--json']],
    ]
    for (const [p, argv] of cases) {
      const api = await request(`${b.base}${p}`, { headers: h })
      const cli = await f.ws.dacli(...argv)
      expect(api.status, p).toBe(200)
      expect(api.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(api.body, p).toBe(cli.stdout)
    }
    // Errors are the error/v1 envelope the CLI prints, with an HTTP status for the exit code.
    const missing = await request(`${b.base}/api/task/show?ref=alpha%2F99`, { headers: h })
    expect(missing.status).toBe(404)
    expect(missing.headers['x-dacli-exit-code']).toBe('4')
    expect(missing.body).toBe((await f.ws.dacli('task', 'show', 'alpha/99', '--json')).stderr)
    // A near miss: the did-you-mean names the command as a person types it, the CLI's own suggestions.
    for (const [p, argv] of [
      ['/api/task/list?project=alpa', ['task', 'list', '--project', 'alpa', '--json']],
      ['/api/project/show?slug=alpa', ['project', 'show', 'alpa', '--json']],
    ] as const) {
      const near = JSON.parse((await request(`${b.base}${p}`, { headers: h })).body)
      const cli = JSON.parse((await f.ws.dacli(...argv)).stderr)
      expect(near.suggestions, p).toEqual(cli.suggestions)
      expect(near.suggestions.length, p).toBeGreaterThan(0)
    }
    const bad = await request(`${b.base}/api/task/list?projct=alpha`, { headers: h })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.body)).toMatchObject({
      schema: 'error/v1',
      kind: 'usage',
      details: { unknown_flags: ['--projct'] },
    })
    // The token may also come as ?t= (scripts), and is never taken for a flag.
    expect((await request(`${b.base}/api/task/list?t=${b.token}`)).body).toBe(
      (await f.ws.dacli('task', 'list', '--json')).stdout,
    )
  })

  test('a verdict command’s report comes with the HTTP status of its exit code, not 200', async () => {
    const h = { 'X-Dacli-Token': b.token }
    const api = await request(`${b.base}/api/capabilities?require=cli.command.nope`, { headers: h })
    const cli = await f.ws.dacli('capabilities', '--require', 'cli.command.nope', '--json')
    expect(cli.code).toBe(3)
    expect(api.headers['x-dacli-exit-code']).toBe('3')
    expect(api.status).toBe(403)
    expect(api.body).toBe(cli.stdout)
    const ok = await request(`${b.base}/api/capabilities?require=cli.command.task.list`, { headers: h })
    expect([ok.status, ok.headers['x-dacli-exit-code']]).toEqual([200, '0'])
  })

  test('every path and parameter is validated: nothing outside the page and the API, no writes over GET', async () => {
    const h = { 'X-Dacli-Token': b.token }
    const notFound = [
      '/assets/../../package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/index.html',
      '/assets/',
      '/package.json',
      '/build/dacli.js',
      '/.dacli/config.yml',
      '/api/',
      '/api/task',
      '/api/task/list/extra',
      '/api/..%2F..%2Fetc%2Fpasswd',
      '/api/board/x',
      '/api/mcp/serve',
    ]
    for (const p of notFound) {
      const r = await request(`${b.base}${p}`, { headers: h })
      expect(r.status, p).toBe(404)
      expect(r.body, p).not.toContain('"name": "dacli"')
    }
    const before = snapshotOf(f.ws.root)
    expect((await request(`${b.base}/api/task/claim?ref=alpha%2F1`, { headers: h })).status).toBe(405)
    expect((await request(`${b.base}/api/glossary?project=alpha&term=x&def=y`, { headers: h })).status).toBe(405)
    expect((await request(`${b.base}/api/task/list?json`, { headers: h })).status).toBe(400)
    expect((await request(`${b.base}/api/task/list?help`, { headers: h })).status).toBe(400)
    expect((await request(`${b.base}/api/task/list?Project=alpha`, { headers: h })).status).toBe(400)
    // A method the board does not serve: 405 naming what it allows, in the API's own document there.
    for (const method of ['DELETE', 'PUT']) {
      const r = await request(`${b.base}/api/task/list`, { method, headers: h })
      expect(r.status).toBe(405)
      expect(r.headers.allow).toBe('GET, POST')
      expect(r.headers['x-dacli-exit-code']).toBe('2')
      expect(JSON.parse(r.body)).toMatchObject({ schema: 'error/v1', kind: 'usage', exit_code: 2 })
    }
    expect((await request(`${b.base}/`, { method: 'PUT', headers: h })).headers.allow).toBe('GET, POST')
    expect((await request(`${b.base}/api/task/claim?ref=alpha%2F1`, { headers: h })).headers.allow).toBe('POST')
    // No command at the path: not found, exit 4, as the status says.
    const none = await request(`${b.base}/api/task/list/extra`, { headers: h })
    expect(none.headers['x-dacli-exit-code']).toBe('4')
    expect(JSON.parse(none.body)).toMatchObject({ schema: 'error/v1', kind: 'not_found', exit_code: 4 })
    expect((await request(`${b.base}/api/task/list?x=${'a'.repeat(9000)}`, { headers: h })).status).toBe(414)
    expect(snapshotOf(f.ws.root)).toEqual(before)
  })

  test('actions need the CSRF token and a JSON body; then they run as the server identity and write the file', async () => {
    const page = await request(b.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': b.token } })
    const csrf = csrfOf(page.body)
    const h = { 'X-Dacli-Token': b.token, 'Content-Type': 'application/json' }
    const body = JSON.stringify({ args: { ref: 'alpha/2' }, flags: { n: [1] } })
    const file = () =>
      fs.readdirSync(path.join(f.ws.root, '.dacli/projects/alpha/tasks/open')).find((n) => n.startsWith('002-'))
    const before = snapshotOf(f.ws.root)
    const noCsrf = await request(`${b.base}/api/task/check`, { method: 'POST', headers: h, body })
    expect(noCsrf.status).toBe(403)
    expect(JSON.parse(noCsrf.body)).toMatchObject({ kind: 'refused', details: { policy: 'csrf' } })
    const wrong = await request(`${b.base}/api/task/check`, {
      method: 'POST',
      headers: { ...h, 'X-Dacli-CSRF': 'x'.repeat(32) },
      body,
    })
    expect(wrong.status).toBe(403)
    const foreign = await request(`${b.base}/api/task/check`, {
      method: 'POST',
      headers: { ...h, 'X-Dacli-CSRF': csrf, Origin: 'http://evil.example' },
      body,
    })
    expect(foreign.status).toBe(403)
    const notJson = await request(`${b.base}/api/task/check`, {
      method: 'POST',
      headers: { 'X-Dacli-Token': b.token, 'X-Dacli-CSRF': csrf, 'Content-Type': 'text/plain' },
      body,
    })
    expect(notJson.status).toBe(415)
    const notAction = await request(`${b.base}/api/task/rm`, {
      method: 'POST',
      headers: { ...h, 'X-Dacli-CSRF': csrf },
      body,
    })
    expect(notAction.status).toBe(405)
    expect(snapshotOf(f.ws.root)).toEqual(before)

    const ok = await request(`${b.base}/api/task/check`, {
      method: 'POST',
      headers: { ...h, 'X-Dacli-CSRF': csrf },
      body,
    })
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.body)).toMatchObject({ schema: 'task-change/v1', action: 'check', outcome: 'changed' })
    const text = fs.readFileSync(path.join(f.ws.root, '.dacli/projects/alpha/tasks/open', file() as string), 'utf8')
    expect(text).toContain('- [x] also')
    expect(text).toMatch(/a-root checked 1/)
  })

  test('each of the page’s actions runs the command as the server identity: claim, release, done, note', async () => {
    const page = await request(b.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': b.token } })
    const post = (p: string, body: unknown) =>
      request(`${b.base}/api/${p}`, {
        method: 'POST',
        headers: { 'X-Dacli-Token': b.token, 'X-Dacli-CSRF': csrfOf(page.body), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    const statusOf = async (ref: string) => (await f.ws.dacli('task', 'show', ref, '--json')).json
    const claim = await post('task/claim', { args: { ref: 'alpha/1' } })
    expect(JSON.parse(claim.body)).toMatchObject({ schema: 'task-change/v1', action: 'claim', outcome: 'changed' })
    expect(await statusOf('alpha/1')).toMatchObject({ status: 'active', owner: 'a-root' })
    expect(fs.readFileSync(path.join(f.ws.root, (await statusOf('alpha/1')).path), 'utf8')).toMatch(/^owner: a-root$/m)
    const release = await post('task/release', { args: { ref: 'alpha/1' } })
    expect(JSON.parse(release.body)).toMatchObject({ action: 'release', outcome: 'changed' })
    expect(await statusOf('alpha/1')).toMatchObject({ status: 'open', owner: null })
    const done = await post('task/done', { args: { ref: 'alpha/4' } })
    expect(done.status).toBe(200)
    expect(await statusOf('alpha/4')).toMatchObject({ status: 'done' })
    const unmet = await post('task/done', { args: { ref: 'alpha/1' } })
    expect(unmet.status).toBe(403)
    expect(JSON.parse(unmet.body)).toMatchObject({ kind: 'refused', details: { policy: 'acceptance' } })
    const note = await post('note/add', {
      args: { kind: 'finding', title: 'Seen from the board' },
      flags: { project: 'alpha', about: 'alpha/1', body: 'it works', severity: 'minor' },
    })
    expect(note.status).toBe(200)
    const doc = JSON.parse(note.body)
    expect(doc).toMatchObject({ schema: 'note/v1', title: 'Seen from the board', created_by: 'a-root' })
    expect(fs.readFileSync(path.join(f.ws.root, doc.path), 'utf8')).toContain('it works')
    expect((await post('note/add', { args: { kind: 'finding' }, extra: 1 })).status).toBe(400)
    expect((await post('note/add', { args: { kind: { nested: true } } })).status).toBe(400)
  })

  test('the page’s other actions: task add, edit, block, unblock, reopen and answer, each as the CLI would', async () => {
    const page = await request(b.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': b.token } })
    const post = async (p: string, body: unknown) => {
      const r = await request(`${b.base}/api/${p}`, {
        method: 'POST',
        headers: { 'X-Dacli-Token': b.token, 'X-Dacli-CSRF': csrfOf(page.body), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { status: r.status, exit: r.headers['x-dacli-exit-code'], doc: JSON.parse(r.body) }
    }
    const show = async (ref: string) => (await f.ws.dacli('task', 'show', ref, '--json')).json
    const disk = async (ref: string) => fs.readFileSync(path.join(f.ws.root, (await show(ref)).path), 'utf8')
    const add = await post('task/add', {
      args: { title: 'Added over the API' },
      flags: { project: 'alpha', priority: 'could', accept: ['one', 'two'] },
    })
    expect(add).toMatchObject({ status: 200, exit: '0', doc: { schema: 'task/v1', title: 'Added over the API' } })
    const ref = add.doc.ref as string
    expect(await disk(ref)).toContain('- [ ] two')
    const edit = await post('task/edit', {
      args: { ref },
      flags: { title: 'Edited over the API', 'if-version': add.doc.version },
    })
    expect(edit.doc).toMatchObject({ schema: 'task-change/v1', action: 'edit', outcome: 'changed' })
    expect(await disk(ref)).toMatch(/^# Edited over the API$/m)
    // A stale version is the CLI's conflict: exit 5, HTTP 409, nothing written.
    const before = await disk(ref)
    const stale = await post('task/edit', { args: { ref }, flags: { title: 'Lost', 'if-version': add.doc.version } })
    expect(stale).toMatchObject({ status: 409, exit: '5', doc: { schema: 'error/v1', exit_code: 5 } })
    expect(await disk(ref)).toBe(before)
    const block = await post('task/block', { args: { ref }, flags: { why: 'waits for the API' } })
    expect(block.doc).toMatchObject({ action: 'block', task: { status: 'blocked' } })
    expect(await disk(ref)).toContain('waits for the API')
    expect((await post('task/unblock', { args: { ref } })).doc).toMatchObject({ task: { status: 'open' } })
    const done = await post('task/done', { args: { ref } })
    expect(done.doc).toMatchObject({ schema: 'error/v1', details: { policy: 'acceptance' } })
    await f.ws.ok('task', 'check', ref, '--all')
    expect((await post('task/done', { args: { ref } })).doc).toMatchObject({ task: { status: 'done' } })
    const reopen = await post('task/reopen', { args: { ref }, flags: { reason: 'one more thing' } })
    expect(reopen.doc).toMatchObject({ action: 'reopen', task: { status: 'open' } })
    expect(await disk(ref)).toContain('one more thing')
    // An agent asks; the board answers; the agent's task goes back to work.
    await f.ws.ok('task', 'claim', ref, { as: f.rw.token })
    const q = (await f.ws.dacli('ask', 'Which rounding?', '--about', ref, '--json', { as: f.rw.token })).json
    const ans = await post('answer', { args: { 'question-id': q.id, answer: 'Half-even' } })
    expect(ans.doc).toMatchObject({ schema: 'answer/v1', task: { unblocked: true, status: 'active' } })
    const threads = (await f.ws.dacli('threads', '--about', ref, '--json', { as: f.rw.token })).json
    expect(threads.threads[0]).toMatchObject({ id: q.id, state: 'answered', answer: { text: 'Half-even' } })
    expect(fs.readFileSync(path.join(f.ws.root, ans.doc.note.path), 'utf8')).toContain('Half-even')
  })

  test('live: a change by another process reaches the page as an event within two seconds', async () => {
    const stream = await eventStream(b)
    expect(stream.events.headers['content-type']).toBe('text/event-stream')
    await new Promise((r) => setTimeout(r, 200))
    expect(stream.text()).toContain('event: hello')
    const child = f.ws.spawn(['task', 'claim', 'alpha/2'], { as: f.rw.token })
    expect(child.code).toBe(0)
    const t0 = Date.now()
    while (!stream.text().includes('event: change') && Date.now() - t0 < 2000)
      await new Promise((r) => setTimeout(r, 25))
    expect(stream.text()).toContain('event: change')
    stream.events.destroy()
  })

  test('one change by another process is one change event (the periodic rescan does not report it again)', async () => {
    const stream = await eventStream(b)
    await new Promise((r) => setTimeout(r, 3_500)) // past a rescan: what came before is reported
    stream.clear()
    const made = f.ws.spawn(['note', 'add', 'finding', 'One change', '--project', 'alpha'])
    expect(made.code, made.stderr).toBe(0)
    await new Promise((r) => setTimeout(r, 4_000)) // past the next rescan
    expect(stream.text().match(/event: change/g)?.length).toBe(1)
    stream.events.destroy()
  })

  test('a code edit in a task worktree is no change to the backlog: no event (the watch leaves worktrees out)', async () => {
    const src = path.join(f.ws.root, '.dacli', 'worktrees', 'alpha-009-code', 'src')
    fs.mkdirSync(src, { recursive: true })
    await new Promise((r) => setTimeout(r, 3_500)) // past a rescan: a watched folder made now would be watched by then
    const stream = await eventStream(b)
    await new Promise((r) => setTimeout(r, 200))
    for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(src, `main${i}.ts`), `export const x = ${i}\n`)
    await new Promise((r) => setTimeout(r, 1_000))
    expect(stream.text()).toContain('event: hello')
    expect(stream.text()).not.toContain('event: change')
    stream.events.destroy()
    fs.rmSync(path.join(f.ws.root, '.dacli', 'worktrees', 'alpha-009-code'), { recursive: true, force: true })
  })
})

describe('dacli board: modes and process', () => {
  let f: Fixture
  beforeAll(async () => {
    f = await fixture()
  })

  test('--read-only refuses every action with its policy, writing nothing', async () => {
    const b = await startBoard(f, ['--read-only'])
    try {
      expect(b.doc.read_only).toBe(true)
      const page = await request(b.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': b.token } })
      const before = snapshotOf(f.ws.root)
      const r = await request(`${b.base}/api/task/claim`, {
        method: 'POST',
        headers: { 'X-Dacli-Token': b.token, 'X-Dacli-CSRF': csrfOf(page.body), 'Content-Type': 'application/json' },
        body: JSON.stringify({ args: { ref: 'alpha/1' } }),
      })
      expect(r.status).toBe(403)
      expect(JSON.parse(r.body)).toMatchObject({ kind: 'refused', details: { policy: 'read-only' } })
      expect(snapshotOf(f.ws.root)).toEqual(before)
    } finally {
      b.stop()
    }
  })

  test('a read-only server identity is refused by the command table, with the policy and next actions', async () => {
    const b = await startBoard(f, [], f.ro.token)
    try {
      const page = await request(b.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': b.token } })
      const r = await request(`${b.base}/api/task/check`, {
        method: 'POST',
        headers: { 'X-Dacli-Token': b.token, 'X-Dacli-CSRF': csrfOf(page.body), 'Content-Type': 'application/json' },
        body: JSON.stringify({ args: { ref: 'alpha/1' }, flags: { n: 1 } }),
      })
      expect(r.status).toBe(403)
      const cli = await f.ws.dacli('task', 'check', 'alpha/1', '--n', '1', '--json', { as: f.ro.token })
      expect(r.body).toBe(cli.stderr)
      expect(JSON.parse(r.body)).toMatchObject({ kind: 'refused', details: { policy: 'grant' } })
    } finally {
      b.stop()
    }
  })

  test('it listens only where told: 127.0.0.1 by default, another interface only with --host', async () => {
    const refused = (url: string) =>
      request(url).then(
        () => false,
        (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED',
      )
    const d = await startBoard(f)
    const other = await startBoard(f, ['--host', '127.0.0.2'])
    try {
      expect(d.doc.host).toBe('127.0.0.1')
      expect(await refused(`http://127.0.0.2:${d.doc.port}/`)).toBe(true)
      expect(other.doc).toMatchObject({ host: '127.0.0.2' })
      expect(other.doc.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/\?t=/)
      expect(await refused(`http://127.0.0.1:${other.doc.port}/`)).toBe(true)
      const r = await request(`http://127.0.0.2:${other.doc.port}/api/board`, {
        headers: { 'X-Dacli-Token': other.token },
      })
      expect(r.status).toBe(200)
      expect((await request(`http://127.0.0.2:${other.doc.port}/api/board`)).status).toBe(403)
    } finally {
      d.stop()
      other.stop()
    }
  })

  test('--host must be a host; it is never bound beyond loopback by default', async () => {
    expect((await f.ws.dacli('board', '--host', 'a b', '--json')).code).toBe(2)
    expect((await f.ws.dacli('board', '--host=-x', '--json')).code).toBe(2)
    // Without a terminal to interrupt it (the MCP server, a test without the hook), it refuses to start.
    expect((await f.ws.dacli('board', '--json')).code).toBe(1)
  })

  test('Ctrl-C answers an action under way before the board closes; the board then takes no new connection', async () => {
    const d = await startBoard(f)
    const page = await request(d.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': d.token } })
    const body = JSON.stringify({ args: { ref: 'alpha/4' }, flags: { why: 'stopped mid-request' } })
    // The request's head and part of its body: the server is reading the rest when the board is stopped.
    const post = await splitPost(
      new URL(`${d.base}/api/task/block`),
      { 'X-Dacli-Token': d.token, 'X-Dacli-CSRF': csrfOf(page.body), 'Content-Type': 'application/json' },
      body,
      10,
    )
    await new Promise((r) => setTimeout(r, 200))
    d.stop()
    await new Promise((r) => setTimeout(r, 200))
    post.rest()
    const reply = await post.reply
    expect(reply).toMatch(/^HTTP\/1\.1 200 /)
    expect(documentIn(reply)).toMatchObject({ schema: 'task-change/v1', action: 'block' })
    expect((await f.ws.dacli('task', 'show', 'alpha/4', '--json')).json.status).toBe('blocked')
    await expect(request(`${d.base}/api/task/list`, { headers: { 'X-Dacli-Token': d.token } })).rejects.toThrow(
      /ECONNREFUSED/,
    )
  })

  test('Ctrl-C stops the bin cleanly (exit 0); kill -9 leaves the workspace exactly as it was', async () => {
    const run = async (signal: NodeJS.Signals) => {
      const child = spawn(process.execPath, [BIN, 'board', '--json'], { cwd: f.ws.root, env: baseEnv() })
      const line = await new Promise<string>((resolve) => {
        let out = ''
        child.stdout.on('data', (c) => {
          out += c
          if (out.includes('\n')) resolve(out)
        })
      })
      const doc = JSON.parse(line)
      const t = new URL(doc.url).searchParams.get('t') as string
      expect(
        (await request(`http://127.0.0.1:${doc.port}/api/task/list`, { headers: { 'X-Dacli-Token': t } })).status,
      ).toBe(200)
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
      child.kill(signal)
      return exit
    }
    expect(await run('SIGINT')).toBe(0)
    const before = snapshotOf(f.ws.root)
    expect(await run('SIGKILL')).toBe(null)
    expect(snapshotOf(f.ws.root)).toEqual(before)
    const locks = path.join(f.ws.root, '.dacli', 'locks')
    expect(fs.existsSync(locks) ? fs.readdirSync(locks) : []).toEqual([])
    const doctor = (await f.ws.dacli('doctor', '--json')).json
    expect(doctor.findings ?? []).toEqual([])
  })
})

describe('dacli board: the label filter over the API', () => {
  let f: Fixture
  let b: Started
  beforeAll(async () => {
    f = await fixture()
    await f.ws.ok('task', 'edit', 'alpha/1', '--label', 'backend')
    await f.ws.ok('task', 'edit', 'alpha/2', '--label', 'backend', '--label', 'ui')
    b = await startBoard(f)
  })
  afterAll(() => b.stop())

  test('GET /api/task/list?label=… and /api/next?label=… answer what the CLI does: only the labelled tasks', async () => {
    const h = { 'X-Dacli-Token': b.token }
    const cases: [string, string[]][] = [
      ['/api/task/list?label=backend', ['task', 'list', '--label', 'backend', '--json']],
      ['/api/task/list?label=backend&label=ui', ['task', 'list', '--label', 'backend', '--label', 'ui', '--json']],
      ['/api/next?label=backend', ['next', '--label', 'backend', '--json']],
    ]
    for (const [p, argv] of cases) {
      const api = await request(`${b.base}${p}`, { headers: h })
      expect(api.status, p).toBe(200)
      expect(api.body, p).toBe((await f.ws.dacli(...argv)).stdout)
    }
    const refs = (p: string) =>
      request(`${b.base}${p}`, { headers: h }).then((r) => JSON.parse(r.body).tasks.map((t: { ref: string }) => t.ref))
    expect(await refs('/api/task/list?label=backend')).toEqual(['alpha/001-first-thing', 'alpha/002-second-thing'])
    expect(await refs('/api/task/list?label=ui')).toEqual(['alpha/002-second-thing'])
    expect(await refs('/api/task/list?label=nothing-has-it')).toEqual([])
  })
})
