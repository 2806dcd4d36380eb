import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { dacliIn, git, setAutorecord, spawnBin, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace

/** A repository with one code commit on main, so HEAD, the index and `git status` have something to lose. */
async function repoWithCode(): Promise<Workspace> {
  const w = await workspace()
  w.write('src/app.txt', 'code\n')
  w.write('notes.txt', 'untracked\n')
  git(w.root, 'add', 'src/app.txt')
  git(w.root, 'commit', '-q', '-m', 'code')
  w.write('src/app.txt', 'code, edited but not staged\n')
  ;(await w.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  ;(await w.dacli('task', 'add', 'Audit writes', '--project', 'ledger', '--accept', 'listed')).expectExit(0)
  return w
}

const recordTip = (w: Workspace) => git(w.root, 'rev-parse', 'refs/heads/dacli/record').trim()

beforeEach(async () => {
  ws = await repoWithCode()
})

describe('record', () => {
  test('commits .dacli/ onto dacli/record and leaves HEAD, the index and the working tree alone', async () => {
    const head = git(ws.root, 'rev-parse', 'HEAD')
    const index = fs.readFileSync(path.join(ws.root, '.git', 'index'))
    const status = git(ws.root, 'status', '--porcelain')
    const before = ws.snapshot()

    const r = (await ws.dacli('record', '--json')).expectExit(0)
    expectValid(r.json)
    expect(r.json).toMatchObject({ outcome: 'recorded', parent: null, branch: 'dacli/record', agent: 'a-root' })
    expect(r.json.commit).toBe(recordTip(ws))
    expect(r.json.files_changed).toContainEqual({ path: '.dacli/config.yml', change: 'added' })

    expect(git(ws.root, 'rev-parse', 'HEAD')).toBe(head)
    expect(git(ws.root, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main')
    expect(fs.readFileSync(path.join(ws.root, '.git', 'index')).equals(index)).toBe(true)
    expect(git(ws.root, 'status', '--porcelain')).toBe(status)
    expect(ws.snapshot()).toEqual(before)
    git(ws.root, 'fsck', '--strict', '--no-progress')
  })

  test('the tree mirrors the repository layout, without locks/, cache/ or temp files', async () => {
    ws.write('.dacli/locks/stray.lock', '{}')
    ws.write('.dacli/cache/junk.json', '{}')
    ws.write('.dacli/projects/ledger/.project.md.dacli-tmp-1-00000000-ab', 'half written')
    ;(await ws.dacli('record')).expectExit(0)
    const files = git(ws.root, 'ls-tree', '-r', '--name-only', 'dacli/record').trim().split('\n')
    // The root key init published (agents/a-root.keys/<fingerprint>.pub) is recorded with the rest.
    expect(files.map((f) => f.replace(/a-root\.keys\/[0-9a-f]{16}\.pub$/, 'a-root.keys/<fp>.pub'))).toEqual([
      '.dacli/.gitignore',
      '.dacli/agents/a-root.keys/<fp>.pub',
      '.dacli/agents/a-root.md',
      '.dacli/config.yml',
      '.dacli/projects/ledger/project.md',
      '.dacli/projects/ledger/tasks/open/001-audit-writes.md',
    ])
    // Checking the branch out gives a working workspace.
    const out = tempDir()
    git(ws.root, 'worktree', 'add', '-q', '--detach', out, 'dacli/record')
    const list = (await dacliIn(out, ['task', 'list', '--json'])).expectExit(0)
    expect(list.json.tasks.map((t: { ref: string }) => t.ref)).toEqual(['ledger/001-audit-writes'])
    expect(git(ws.root, 'show', 'dacli/record:.dacli/projects/ledger/tasks/open/001-audit-writes.md')).toBe(
      ws.file('.dacli/projects/ledger/tasks/open/001-audit-writes.md'),
    )
  })

  test('an unchanged workspace makes no commit; a change makes exactly one on top', async () => {
    const first = (await ws.dacli('record', '--json')).expectExit(0).json.commit
    const again = (await ws.dacli('record', '--json')).expectExit(0).json
    expect(again).toMatchObject({ outcome: 'unchanged', commit: null, parent: first, files_changed: [] })
    fs.appendFileSync(path.join(ws.root, '.dacli/projects/ledger/project.md'), '\nMore vision.\n')
    fs.rmSync(path.join(ws.root, '.dacli/agents/a-root.md'))
    const next = (await ws.dacli('record', '--message', 'Sprint planning', '--json')).expectExit(0).json
    expect(next.parent).toBe(first)
    expect(next.message).toBe('Sprint planning')
    expect(next.files_changed).toEqual([
      { path: '.dacli/agents/a-root.md', change: 'deleted' },
      { path: '.dacli/projects/ledger/project.md', change: 'modified' },
    ])
    expect(git(ws.root, 'rev-list', '--count', 'dacli/record').trim()).toBe('2')
    expect(git(ws.root, 'diff', '--name-status', `${first}`, 'dacli/record').trim().split('\n')).toEqual([
      'D\t.dacli/agents/a-root.md',
      'M\t.dacli/projects/ledger/project.md',
    ])
  })

  test('author is the acting identity, committer is dacli, trailers name the agent and command', async () => {
    ;(await ws.dacli('record', '--message', 'by root')).expectExit(0)
    expect(git(ws.root, 'log', '-1', '--format=%an <%ae>|%cn <%ce>', 'dacli/record').trim()).toBe(
      'Test Person <test@example.invalid>|dacli <dacli@dacli.invalid>',
    )
    expect(git(ws.root, 'log', '-1', '--format=%(trailers:key=Dacli-Agent,valueonly)', 'dacli/record').trim()).toBe(
      'a-root',
    )
    const agent = await ws.agent('rw', 'implementer')
    ws.write('.dacli/projects/ledger/notes.txt', 'agent was here\n')
    const r = (await ws.dacli('record', '--json', { as: agent.token })).expectExit(0).json
    expect(r.author).toEqual({ name: `${agent.id} (implementer)`, email: `${agent.id}@dacli.invalid` })
    expect(git(ws.root, 'log', '-1', '--format=%an|%B', 'dacli/record')).toBe(
      `${agent.id} (implementer)|dacli: record\n\nDacli-Agent: ${agent.id}\nDacli-Command: record\n\n`,
    )
    git(ws.root, 'fsck', '--strict', '--no-progress')
  })

  test("root's git identity: GIT_AUTHOR_*, then the repository config, then a-root", async () => {
    const noEnv = { GIT_AUTHOR_NAME: undefined, GIT_AUTHOR_EMAIL: undefined, HOME: tempDir(), XDG_CONFIG_HOME: '' }
    ;(await ws.dacli('record', { env: noEnv })).expectExit(0)
    expect(git(ws.root, 'log', '-1', '--format=%an <%ae>', 'dacli/record').trim()).toBe('a-root <a-root@dacli.invalid>')
    git(ws.root, 'config', 'user.name', 'Repo Person')
    git(ws.root, 'config', 'user.email', 'repo@example.invalid')
    ws.write('.dacli/projects/ledger/x.txt', '1')
    ;(await ws.dacli('record', { env: noEnv })).expectExit(0)
    expect(git(ws.root, 'log', '-1', '--format=%an <%ae>', 'dacli/record').trim()).toBe(
      'Repo Person <repo@example.invalid>',
    )
    const home = tempDir()
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Home Person\n\temail = home@example.invalid\n')
    git(ws.root, 'config', '--unset', 'user.name')
    git(ws.root, 'config', '--unset', 'user.email')
    ws.write('.dacli/projects/ledger/x.txt', '2')
    ;(await ws.dacli('record', { env: { ...noEnv, HOME: home } })).expectExit(0)
    expect(git(ws.root, 'log', '-1', '--format=%an <%ae>', 'dacli/record').trim()).toBe(
      'Home Person <home@example.invalid>',
    )
  })

  test('record_branch in config.yml names the branch; an invalid name is refused at load (exit 1, as any bad value of config.yml)', async () => {
    const cfg = path.join(ws.root, '.dacli', 'config.yml')
    fs.writeFileSync(
      cfg,
      fs.readFileSync(cfg, 'utf8').replace('record_branch: dacli/record', 'record_branch: team/log'),
    )
    expect((await ws.dacli('record', '--json')).expectExit(0).json.branch).toBe('team/log')
    expect(git(ws.root, 'for-each-ref', '--format=%(refname)', 'refs/heads/').trim().split('\n')).toEqual([
      'refs/heads/main',
      'refs/heads/team/log',
    ])
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('record_branch: team/log', 'record_branch: "bad..name"'))
    const bad = (await ws.dacli('record', '--json')).expectExit(1)
    expect(bad.error.message).toContain('bad..name')
    // A number YAML reads as Infinity is named as it reads, not as null.
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace(/^format: .*$/m, 'format: 1e400'))
    const huge = (await ws.dacli('record', '--json')).expectExit(1)
    expect(huge.error.message).toContain('format is "Infinity"')
    expect(huge.error.details.value).toBe('Infinity')
  })

  test('outside a git repository: exit 1, "not inside a git repository"', async () => {
    const plain = await workspace({ git: false })
    const r = (await plain.dacli('record', '--json')).expectExit(1)
    expect(r.error.message).toContain('not inside a git repository')
    expect((await plain.dacli('record', 'log', '--json')).code).toBe(1)
  })

  test('a control character in --message is a usage error and nothing is committed', async () => {
    ;(await ws.dacli('record', '--message', 'bad\u0007bell', '--json')).expectExit(2)
    expect(git(ws.root, 'for-each-ref', 'refs/heads/dacli/').trim()).toBe('')
  })

  test('record push, pull and sync refuse a REMOTE that is an option or not a remote (2), before running git', async () => {
    git(ws.root, 'remote', 'add', 'origin', tempDir('dacli-no-remote-'))
    for (const verb of ['push', 'pull', 'sync']) {
      for (const bad of ['--upload-pack=touch pwned', '-x', '', 'two words']) {
        const r = (await ws.dacli('record', verb, '--json', '--', bad)).expectExit(2)
        expect(r.error.kind).toBe('usage')
        expect(r.error.message).toContain('is not a git remote name or URL')
        expect(r.error.details).toEqual({ remote: bad })
      }
    }
    expect(git(ws.root, 'for-each-ref', 'refs/heads/dacli/').trim()).toBe('')
    expect(fs.existsSync(path.join(ws.root, 'pwned'))).toBe(false)
  })

  test('a packed repository (after git gc) still records and reads history', async () => {
    ;(await ws.dacli('record')).expectExit(0)
    git(ws.root, 'gc', '-q', '--prune=now')
    expect(fs.existsSync(path.join(ws.root, '.git', 'refs', 'heads', 'dacli', 'record'))).toBe(false)
    ws.write('.dacli/projects/ledger/x.txt', 'after gc')
    const r = (await ws.dacli('record', '--json')).expectExit(0).json
    expect(r.files_changed).toEqual([{ path: '.dacli/projects/ledger/x.txt', change: 'added' }])
    const log = (await ws.dacli('record', 'log', '--json')).expectExit(0).json
    expect(log.commits).toHaveLength(2)
    expect(log.commits[1].files_changed).toHaveLength(6) // with the root key init published
    git(ws.root, 'fsck', '--strict', '--no-progress')
  })
})

describe('record log', () => {
  test('lists commits newest first with trailers and files changed; --limit truncates', async () => {
    expect((await ws.dacli('record', 'log', '--json')).expectExit(0).json).toMatchObject({
      tip: null,
      commits: [],
      truncated: false,
    })
    ;(await ws.dacli('record', '--message', 'one')).expectExit(0)
    ws.write('.dacli/projects/ledger/a.txt', 'a')
    ;(await ws.dacli('record', '--message', 'two')).expectExit(0)
    const all = (await ws.dacli('record', 'log', '--json')).expectExit(0).json
    expectValid(all)
    expect(all.commits.map((c: { message: string }) => c.message)).toEqual(['two', 'one'])
    expect(all.commits[0]).toMatchObject({
      agent: 'a-root',
      command: 'record',
      author: { name: 'Test Person', email: 'test@example.invalid' },
      files_changed: [{ path: '.dacli/projects/ledger/a.txt', change: 'added' }],
    })
    expect(all.commits[0].parents).toEqual([all.commits[1].id])
    expect(all.commits[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const one = (await ws.dacli('record', 'log', '--limit', '1', '--json')).expectExit(0).json
    expect(one).toMatchObject({ limit: 1, truncated: true })
    expect(one.commits).toHaveLength(1)
  })
})

describe('autorecord', () => {
  test('every successful mutating command records itself: one commit, `dacli: <path> <ref>`', async () => {
    setAutorecord(ws)
    ;(await ws.dacli('task', 'add', 'Add the shim', '--project', 'ledger', '--accept', 'covered')).expectExit(0)
    ;(await ws.dacli('project', 'add', 'Billing', '--slug', 'billing')).expectExit(0)
    ;(await ws.dacli('task', 'list')).expectExit(0) // a read records nothing
    ;(await ws.dacli('task', 'add', 'x', '--project', 'nope')).expectExit(4) // a failure records nothing
    const agent = await ws.agent('rw', 'worker')
    const log = git(ws.root, 'log', '--format=%s|%(trailers:key=Dacli-Command,valueonly,separator=)', 'dacli/record')
    expect(log.trim().split('\n')).toEqual([
      `dacli: agent spawn ${agent.id}|agent spawn ${agent.id}`,
      'dacli: project add billing|project add billing',
      'dacli: task add ledger/002-add-the-shim|task add ledger/002-add-the-shim',
    ])
    expect(git(ws.root, 'show', '--name-only', '--format=', 'dacli/record~2').trim()).toContain(
      '.dacli/projects/ledger/tasks/open/002-add-the-shim.md',
    )
    git(ws.root, 'fsck', '--strict', '--no-progress')
  })

  test('a mutation that cannot be recorded still succeeds, with a warning', async () => {
    const plain = await workspace({ git: false })
    setAutorecord(plain)
    const r = (await plain.dacli('project', 'add', 'Solo', '--json')).expectExit(0)
    expect(r.json.slug).toBe('solo')
    expect(r.stderr).toContain('not recorded')
  })
})

describe('concurrency', () => {
  test('processes recording at once never lose a commit', async () => {
    setAutorecord(ws)
    ;(await ws.dacli('record')).expectExit(0)
    // Six processes each add a task (which autorecords), while six more run `record` with a message.
    const adds = Array.from({ length: 6 }, (_, i) =>
      spawnBin(['task', 'add', `Parallel task ${i}`, '--project', 'ledger', '--force', '--accept', 'ok', '--json'], {
        cwd: ws.root,
      }),
    )
    const records = Array.from({ length: 6 }, (_, i) =>
      spawnBin(['record', '--message', `explicit ${i}`, '--json'], { cwd: ws.root }),
    )
    const done = await Promise.all([...adds, ...records])
    for (const r of done) expect(r.stderr).toBe('')
    for (const r of done) r.expectExit(0)
    const reported = done.slice(6).flatMap((r) => (r.json.commit === null ? [] : [r.json.commit as string]))
    const reachable = new Set(git(ws.root, 'rev-list', 'dacli/record').trim().split('\n'))
    for (const c of reported) expect(reachable.has(c)).toBe(true)
    // Linear history: every commit's parent is the commit before it.
    expect(git(ws.root, 'rev-list', '--merges', 'dacli/record').trim()).toBe('')
    // The tip holds every task, and equals the workspace (nothing left unrecorded).
    const tip = git(ws.root, 'ls-tree', '-r', '--name-only', 'dacli/record')
    for (const a of done.slice(0, 6)) expect(tip).toContain(a.json.path)
    expect((await ws.dacli('record', '--json')).expectExit(0).json.outcome).toBe('unchanged')
    git(ws.root, 'fsck', '--strict', '--no-progress')
  })
})
