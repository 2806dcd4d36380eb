// The token is never printed, logged, written to the workspace or put in a
// document — not even when GitHub echoes it back in an error message.

import { afterEach, describe, expect, test } from 'vitest'
import { FakeGitHub } from '../../testkit/fakegithub.js'
import { allFiles } from '../../testkit/ghworkspace.js'
import { type Run, spawnBin, workspace } from '../../testkit/ws.js'

// Not shaped like a GitHub token, so only the explicit masking of the token in use can hide it.
const TOKEN = 'plain-secret-credential-7f3a9c1e5b'

let gh: FakeGitHub

/** A workspace with project alpha whose `run` (with `env`) keeps every run, for the final look at all output. */
async function recording(env: Record<string, string | undefined>) {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  const runs: Run[] = []
  const run = async (...argv: string[]) => {
    const r = await ws.dacli(...argv, { env })
    runs.push(r)
    return r
  }
  return { ws, runs, run }
}
afterEach(async () => {
  await gh.close()
})

describe('the token never leaves the process', () => {
  test('success and failure, human and --json, with DACLI_DEBUG: no output and no file carries it', async () => {
    gh = await FakeGitHub.start({ token: TOKEN })
    gh.addRepo('acme/widgets')
    gh.addIssue('acme/widgets', { title: 'Adopt me', body: 'text' })
    const env = { ...gh.env(), DACLI_DEBUG: '1' }
    const { ws, runs, run } = await recording(env)
    ;(await ws.dacli('task', 'add', 'Local work', '--project', 'alpha')).expectExit(0)
    for (const json of [[], ['--json']]) {
      ;(await run('github', 'link', 'alpha', '--repo', 'acme/widgets', ...json)).expectExit(0)
      ;(await run('github', 'doctor', ...json)).expectExit(0)
      ;(await run('github', 'pull', 'alpha', '--dry-run', ...json)).expectExit(0)
      ;(await run('github', 'sync', 'alpha', '--dry-run', ...json)).expectExit(0)
      ;(await run('github', 'push', 'alpha', '--dry-run', ...json)).expectExit(0)
    }
    ;(await run('github', 'sync', 'alpha')).expectExit(0)
    ;(await run('github', 'push', 'alpha', '--json')).expectExit(0)

    // GitHub answers with the credential in its error text, on every kind of call.
    // (403 without rate-limit signs is answered at once: no retry wait in this test.)
    gh.fail({ status: 403, times: 1000, message: `token ${TOKEN} is not allowed here` })
    for (const json of [[], ['--json']]) {
      expect((await run('github', 'doctor', ...json)).code).toBe(1)
      expect((await run('github', 'push', 'alpha', ...json)).code).toBe(1)
      expect((await run('github', 'pull', 'alpha', '--dry-run', ...json)).code).toBe(1)
      expect((await run('github', 'link', 'alpha', '--repo', 'acme/widgets', ...json)).code).toBe(1)
    }
    gh.clearFaults()
    // A rejected token.
    const wrong = await ws.dacli('github', 'push', 'alpha', '--json', { env: { ...env, GH_TOKEN: `${TOKEN}-revoked` } })
    expect(wrong.code).toBe(1)
    runs.push(wrong)

    const echoed = runs.find((r) => r.stderr.includes('is not allowed here'))
    expect(echoed?.stderr).toContain('token [redacted] is not allowed here')
    for (const r of runs) {
      expect(r.stdout, r.argv.join(' ')).not.toContain(TOKEN)
      expect(r.stderr, r.argv.join(' ')).not.toContain(TOKEN)
    }
    for (const [file, text] of allFiles(ws.root)) expect(text, file).not.toContain(TOKEN)
    expect(gh.calls.some((c) => c.authorization === `token ${TOKEN}`)).toBe(true)
  })

  test('GitHub text carrying the token (an issue pasted with it, a server echoing it) is masked before it is printed or written', async () => {
    gh = await FakeGitHub.start({ token: TOKEN })
    gh.addRepo('acme/widgets')
    gh.addIssue('acme/widgets', {
      title: `Rotate ${TOKEN} now`,
      body: `Leaked: ${TOKEN}\n\n## Acceptance\n\n- [ ] ${TOKEN} is revoked\n`,
      labels: [`label-${TOKEN}`],
      user: TOKEN,
    })
    const { ws, runs, run } = await recording(gh.env())
    ;(await run('github', 'link', 'alpha', '--repo', 'acme/widgets')).expectExit(0)
    for (const json of [[], ['--json']]) {
      ;(await run('github', 'pull', 'alpha', '--dry-run', '--include-acceptance', ...json)).expectExit(0)
      ;(await run('github', 'sync', 'alpha', '--dry-run', '--include-acceptance', ...json)).expectExit(0)
    }
    const pulled = (await run('github', 'pull', 'alpha')).expectExit(0)
    expect(pulled.stdout).toContain('alpha/001-rotate-redacted-now')
    ;(await run('github', 'push', 'alpha', '--json')).expectExit(0)
    const shown = (await run('task', 'show', 'alpha/1', '--json')).expectExit(0).json
    expect(shown.acceptance).toEqual([{ n: 1, text: '[redacted] is revoked', checked: false }])
    for (const r of runs) expect(r.stdout + r.stderr, r.argv.join(' ')).not.toContain(TOKEN)
    for (const [file, text] of allFiles(ws.root)) expect(text, file).not.toContain(TOKEN)
  })

  test('the built binary: the same, and it exits promptly (no timer keeps it alive)', async () => {
    gh = await FakeGitHub.start({ token: TOKEN })
    gh.addRepo('acme/widgets')
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    const env = gh.env()
    const t0 = Date.now()
    const link = await spawnBin(['github', 'link', 'alpha', '--repo', 'acme/widgets', '--json'], { cwd: ws.root, env })
    expect(link.code).toBe(0)
    const push = await spawnBin(['github', 'push', 'alpha', '--json'], { cwd: ws.root, env })
    expect(push.code).toBe(0)
    expect(JSON.parse(push.stdout).schema).toBe('github-push-result/v1')
    // A timer left behind keeps a process alive for minutes (retry and throttle timers); a machine shared by many
    // test runs takes tens of seconds for two short commands, so the bound sits between the two.
    expect(Date.now() - t0).toBeLessThan(60_000)
    gh.fail({ status: 422, times: 100, message: `bad ${TOKEN}` })
    const failed = await spawnBin(['github', 'doctor', '--json'], { cwd: ws.root, env })
    expect(failed.code).toBe(1)
    for (const r of [link, push, failed]) expect(r.stdout + r.stderr).not.toContain(TOKEN)
  })
})
