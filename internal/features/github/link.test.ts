import { afterEach, describe, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, tempDir } from '../../testkit/ws.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

const PROJECT = '.dacli/projects/alpha/project.md'

describe('github link', () => {
  test('defaults to the origin remote, records the canonical name, keeps every other byte', async () => {
    w = await githubWorkspace({ link: false })
    git(w.ws.root, 'remote', 'add', 'origin', 'git@github.com:ACME/Widgets.git')
    const original = w.ws.file(PROJECT)
    const edited = original.replace('status: active', '# hand-written note\nstatus: active\nowner_team: payments')
    w.ws.write(PROJECT, edited)
    const r = (await w.run('github', 'link', 'alpha', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json.github).toEqual({ repo: 'acme/widgets', public_confirmed: null })
    const after = w.ws.file(PROJECT)
    expect(after).toContain('# hand-written note\nstatus: active\nowner_team: payments\n')
    expect(after).toMatch(/github:\n {2}repo: acme\/widgets\n {2}public_confirmed: null\n---/)
    expect(after.split('---\n')[2]).toBe(edited.split('---\n')[2])
    expect(w.gh.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /repos/ACME/Widgets'])

    // The same answer again changes nothing.
    const again = await w.run('github', 'link', 'alpha')
    expect(again.expectExit(0).stdout).toMatch(/^unchanged: alpha → acme\/widgets/)
    expect(w.ws.file(PROJECT)).toBe(after)
  })

  test('a public repository needs --allow-public, whose consent is for exactly that repository', async () => {
    w = await githubWorkspace({ link: false })
    w.gh.addRepo('acme/site', 'public')
    const before = w.ws.snapshot()
    const r = (await w.run('github', 'link', 'alpha', '--repo', 'acme/site', '--json')).expectExit(3)
    expect(r.error.details).toMatchObject({ policy: 'disclosure', repository: 'acme/site', visibility: 'public' })
    expect(r.error.next_actions[0]).toContain('--allow-public')
    expect(w.ws.snapshot()).toEqual(before)

    const ok = (await w.run('github', 'link', 'alpha', '--repo', 'acme/site', '--allow-public', '--json')).expectExit(0)
    expect(ok.json.github).toEqual({ repo: 'acme/site', public_confirmed: 'acme/site' })
    // Re-linking the same public repository keeps the consent without repeating the flag.
    ;(await w.run('github', 'link', 'alpha', '--repo', 'acme/site')).expectExit(0)
    expect(w.ws.file(PROJECT)).toContain('public_confirmed: acme/site')
    // Moving to another repository drops it: consent never carries over.
    const moved = (await w.run('github', 'link', 'alpha', '--repo', 'acme/widgets', '--json')).expectExit(0)
    expect(moved.json.github).toEqual({ repo: 'acme/widgets', public_confirmed: null })
  })

  test('bad input: malformed --repo 2, unknown repository 4, no origin 2, foreign host 2, no token 1', async () => {
    w = await githubWorkspace({ link: false })
    const before = w.ws.snapshot()
    expect((await w.run('github', 'link', 'alpha', '--repo', 'acme', '--json')).expectExit(2).error.message).toMatch(
      /OWNER\/NAME/,
    )
    ;(await w.run('github', 'link', 'alpha', '--repo', 'acme/nope', '--json')).expectExit(4)
    ;(await w.run('github', 'link', 'nope', '--repo', 'acme/widgets', '--json')).expectExit(4)
    expect((await w.run('github', 'link', 'alpha', '--json')).expectExit(2).error.message).toMatch(/no `origin` remote/)
    git(w.ws.root, 'remote', 'add', 'origin', 'https://user:hunter2secret@gitlab.example.com/acme/widgets.git')
    const foreign = (await w.run('github', 'link', 'alpha', '--json')).expectExit(2)
    expect(foreign.error.message).toMatch(/gitlab\.example\.com, which is not a GitHub host/)
    expect(foreign.stderr).not.toContain('hunter2secret')
    const noToken = { GH_TOKEN: undefined, GITHUB_TOKEN: undefined, PATH: tempDir('dacli-nogh-') }
    const r = (await w.run('github', 'link', 'alpha', '--repo', 'acme/widgets', '--json', { env: noToken })).expectExit(
      1,
    )
    expect(r.error.message).toMatch(/no GitHub token/)
    expect(w.ws.snapshot()).toEqual(before)
  })
})
