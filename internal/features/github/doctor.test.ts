import { afterEach, describe, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, tempDir } from '../../testkit/ws.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

const byName = (doc: { checks: { name: string; ok: boolean; detail: string }[] }) =>
  Object.fromEntries(doc.checks.map((c) => [c.name, c]))

describe('github doctor', () => {
  test('all five checks pass: exit 0, the token source but never the token', async () => {
    w = await githubWorkspace()
    const r = (await w.run('github', 'doctor', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json).toMatchObject({
      ok: true,
      project: 'alpha',
      repository: 'acme/widgets',
      repository_source: 'only-linked-project',
      token_source: 'GH_TOKEN',
      visibility: 'private',
      api_url: w.gh.url,
    })
    expect(r.json.checks.map((c: { name: string }) => c.name)).toEqual([
      'token',
      'api',
      'repository',
      'visibility',
      'rate_limit',
    ])
    expect(r.json.rate_limit.remaining).toBeGreaterThan(0)
    expect(r.stdout + r.stderr).not.toContain(w.gh.token)
    const human = (await w.run('github', 'doctor', 'alpha')).expectExit(0)
    expect(human.stdout).toMatch(/ok +token +from GH_TOKEN, accepted by GitHub/)
    expect(w.gh.writes()).toEqual([])
  })

  test('a failed check is exit 1 with the report printed anyway', async () => {
    w = await githubWorkspace()
    // No token at all: the API still answers /rate_limit, the private repository is invisible.
    const none = { GH_TOKEN: undefined, GITHUB_TOKEN: undefined, PATH: tempDir('dacli-nogh-') }
    const r = (await w.run('github', 'doctor', '--json', { env: none })).expectExit(1)
    expectValid(r.json)
    const c = byName(r.json)
    expect(r.json.ok).toBe(false)
    expect(r.json.token_source).toBeNull()
    expect(c.token?.ok).toBe(false)
    expect(c.api?.ok).toBe(true)
    expect(c.repository?.ok).toBe(false)
    expect(c.visibility).toEqual({ name: 'visibility', ok: false, detail: 'unknown: the repository was not resolved' })
    expect(r.stderr).toBe('')

    // A wrong token: reachable API, rejected token.
    const bad = (
      await w.run('github', 'doctor', '--json', { env: { GH_TOKEN: 'ghp_definitelyWrongTokenValue000000' } })
    ).expectExit(1)
    expect(byName(bad.json).token?.detail).toMatch(/rejected it \(401\)/)
    expect(bad.stdout).not.toContain('definitelyWrong')

    // Human mode prints the report on stdout too.
    const h = (await w.run('github', 'doctor', { env: none })).expectExit(1)
    expect(h.stdout).toMatch(/FAIL +token/)
    expect(h.stdout).toMatch(/\d+ checks? failed/)
  })

  test('an unreachable API, an exhausted quota, a public repository without consent', async () => {
    w = await githubWorkspace()
    w.gh.rateLimit.remaining = 0
    const low = (await w.run('github', 'doctor', '--json')).expectExit(1)
    expect(byName(low.json).rate_limit).toMatchObject({ ok: false, detail: expect.stringMatching(/^0 of 5000/) })

    w.gh.rateLimit.remaining = 5000
    w.gh.repo('acme/widgets').visibility = 'public'
    const pub = (await w.run('github', 'doctor', '--json')).expectExit(1)
    expect(byName(pub.json).visibility?.detail).toMatch(
      /no consent recorded for acme\/widgets: github push will refuse/,
    )

    const url = w.gh.url
    await w.gh.close()
    const down = (await w.run('github', 'doctor', '--json', { env: { GITHUB_API_URL: url } })).expectExit(1)
    expectValid(down.json)
    const c = byName(down.json)
    expect(c.api?.ok).toBe(false)
    expect(c.api?.detail).toContain('unreachable')
    expect(c.repository?.detail).toMatch(/not checked/)
    expect(down.json.rate_limit).toBeNull()
  })

  test('which repository: the named project, else the origin remote, else none', async () => {
    w = await githubWorkspace({ link: false })
    const none = (await w.run('github', 'doctor', '--json')).expectExit(1)
    expect(none.json.repository).toBeNull()
    expect(byName(none.json).repository?.detail).toMatch(/no project is linked and the git repository has no `origin`/)
    git(w.ws.root, 'remote', 'add', 'origin', 'https://github.com/acme/widgets.git')
    const origin = (await w.run('github', 'doctor', '--json')).expectExit(0)
    expect(origin.json).toMatchObject({ repository: 'acme/widgets', repository_source: 'origin', project: null })
    // A named project that is not linked does not fall back to the remote.
    const named = (await w.run('github', 'doctor', 'alpha', '--json')).expectExit(1)
    expect(named.json).toMatchObject({ project: 'alpha', repository: null, repository_source: null })
    expect(byName(named.json).repository?.detail).toMatch(/project "alpha" is not linked/)
    ;(await w.run('github', 'link', 'alpha')).expectExit(0)
    const linked = (await w.run('github', 'doctor', 'alpha', '--json')).expectExit(0)
    expect(linked.json.repository_source).toBe('project')
  })
})
