// A hostile or broken API server (issue 12, items 12–14): the token goes only to
// the API's origin, answers that are not GitHub's API are refused for what they
// are, and text from GitHub never becomes structure in a task file.

import { afterEach, describe, expect, test } from 'vitest'
import { FakeGitHub } from '../../testkit/fakegithub.js'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'

let w: GitHubWorkspace
let evil: FakeGitHub | null = null
afterEach(async () => {
  await w.close()
  await evil?.close()
  evil = null
})

const byName = (doc: { checks: { name: string; ok: boolean; detail: string }[] }) =>
  Object.fromEntries(doc.checks.map((c) => [c.name, c]))

describe('a hostile API server', () => {
  test('a Link or a redirect to another host never receives the token: the run stops, exit 1', async () => {
    w = await githubWorkspace()
    evil = await FakeGitHub.start()
    evil.addRepo('acme/widgets')
    for (let i = 1; i <= 120; i++) w.gh.addIssue('acme/widgets', { title: `Issue ${i}` })
    w.gh.linkBase = evil.url
    const before = w.ws.snapshot()
    const r = (await w.run('github', 'pull', 'alpha', '--dry-run', '--json')).expectExit(1)
    expect(r.error.message).toMatch(/another host/)
    expect(r.error.message).toContain(evil.url.replace('http://', ''))
    expect(evil.calls).toEqual([])
    // The first page did reach the API, with the token.
    expect(w.gh.calls.some((c) => c.path.endsWith('/issues') && c.authorization !== null)).toBe(true)

    w.gh.linkBase = null
    w.gh.fail({
      path: /^\/repos\/acme\/widgets$/,
      status: 302,
      headers: { location: `${evil.url}/repos/acme/widgets` },
    })
    const redirected = (await w.run('github', 'push', 'alpha', '--dry-run', '--json')).expectExit(1)
    expect(redirected.error.message).toMatch(/another host/)
    expect(evil.calls).toEqual([])
    expect(w.ws.snapshot()).toEqual(before)
  })

  test('answers that are not GitHub’s API: doctor says null (exit 1), push exits 1 not 3, pull never says unreachable', async () => {
    w = await githubWorkspace()
    const html = { status: 200, body: '<html><body>Sign in to the proxy</body></html>', contentType: 'text/html' }
    w.gh.fail({ path: /^\/rate_limit$/, times: 100, ...html })
    const d = (await w.run('github', 'doctor', '--json')).expectExit(1)
    expectValid(d.json)
    expect(d.json.rate_limit).toBeNull()
    expect(byName(d.json).api).toMatchObject({ ok: false, detail: expect.stringMatching(/not GitHub’s API/) })
    expect(byName(d.json).rate_limit?.detail).not.toMatch(/0 of 0|undefined/)
    w.gh.clearFaults()

    // A repository answer of the wrong shape: no invented visibility, no "undefined is public".
    w.gh.fail({ path: /^\/repos\/acme\/widgets$/, times: 100, status: 200, body: '{"full_name": 42}' })
    const shape = (await w.run('github', 'doctor', '--json')).expectExit(1)
    expectValid(shape.json)
    expect(shape.json.visibility).toBeNull()
    expect(byName(shape.json).repository?.detail).toMatch(/not GitHub’s API/)
    const push = (await w.run('github', 'push', 'alpha', '--json')).expectExit(1)
    expect(push.error.message).toMatch(/not GitHub’s API/)
    expect(push.error.message).not.toMatch(/undefined|public/)
    expect(w.gh.writes()).toEqual([])
    w.gh.clearFaults()

    // The issues list as HTML, or as issues of the wrong shape.
    for (const bad of [html, { status: 200, body: '[{"number": "one", "title": null}]' }, { status: 200, body: '{' }]) {
      w.gh.fail({ path: /\/issues$/, times: 100, ...bad })
      const pull = (await w.run('github', 'pull', 'alpha', '--dry-run', '--json')).expectExit(1)
      expect(pull.error.message).not.toMatch(/unreachable/)
      expect(pull.error.message).toMatch(/not GitHub’s API/)
      expect(pull.error.details.status).toBe(200)
      w.gh.clearFaults()
    }
  })

  test('a hostile login cannot inject a checked criterion or a section into the adopted task', async () => {
    w = await githubWorkspace()
    w.gh.addIssue('acme/widgets', {
      title: 'Looks harmless',
      body: 'Please fix.\n\n## Acceptance\n\n- [ ] it is fixed',
      user: 'mallory\n\n## Acceptance\n\n- [x] shipped to production\n\n## Log\n',
    })
    w.gh.addIssue('acme/widgets', { title: 'Second report', body: 'x', user: 'eve*_[x]_<b>`' })
    ;(await w.run('github', 'pull', 'alpha')).expectExit(0)
    const t = (await w.ws.dacli('task', 'show', 'alpha/1', '--json')).expectExit(0).json
    expect(t.acceptance).toEqual([{ n: 1, text: 'it is fixed', checked: false }])
    const file = w.ws.file('.dacli/projects/alpha/tasks/open/001-looks-harmless.md')
    expect(file.match(/^## /gm)).toEqual(['## ', '## ', '## '])
    expect(file).not.toMatch(/^- \[x\]/m)
    expect(file).toContain(
      'by @mallory \\#\\# Acceptance \\- \\[x\\] shipped to production \\#\\# Log (acme/widgets#1)',
    )
    const second = w.ws.file('.dacli/projects/alpha/tasks/open/002-second-report.md')
    expect(second).toContain('by @eve\\*\\_\\[x\\]\\_\\<b\\>\\` (acme/widgets#2)')
  })
})
