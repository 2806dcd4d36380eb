import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { dacliIn, git, tempDir } from '../../testkit/ws.js'

describe('init and discovery', () => {
  test('inside a git work tree, init places .dacli at the repository root; commands find it from subfolders', async () => {
    const root = tempDir()
    git(root, 'init', '-q')
    fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true })
    const r = (await dacliIn(path.join(root, 'src'), ['init', '--name', 'demo', '--json'])).expectExit(0)
    expect(r.json).toMatchObject({
      schema: 'init/v1',
      name: 'demo',
      root,
      in_git: true,
      format: 0,
      record_branch: 'dacli/record',
    })
    expect(fs.existsSync(path.join(root, '.dacli', 'config.yml'))).toBe(true)
    expect(fs.readFileSync(path.join(root, '.dacli', '.gitignore'), 'utf8')).toMatch(/locks\/\ncache\//)
    expect(fs.existsSync(path.join(root, '.dacli', 'agents', 'a-root.md'))).toBe(true)
    ;(await dacliIn(path.join(root, 'src', 'deep'), ['project', 'add', 'X'])).expectExit(0)
    expect(fs.existsSync(path.join(root, '.dacli', 'projects', 'x', 'project.md'))).toBe(true)
  })

  test('a --name that is empty or holds a control character is a usage error (2) naming the flag; nothing is made', async () => {
    const root = tempDir()
    git(root, 'init', '-q')
    for (const name of ['bad\nname', 'bell\u0007', '', '  ']) {
      const r = (await dacliIn(root, ['init', '--name', name, '--json'])).expectExit(2)
      expect(r.error).toMatchObject({ kind: 'usage', details: { flag: '--name' } })
    }
    expect(fs.existsSync(path.join(root, '.dacli'))).toBe(false)
  })

  test('--here creates it in the current folder; an existing workspace is a conflict (5)', async () => {
    const root = tempDir()
    git(root, 'init', '-q')
    fs.mkdirSync(path.join(root, 'sub'))
    ;(await dacliIn(path.join(root, 'sub'), ['init', '--here'])).expectExit(0)
    expect(fs.existsSync(path.join(root, 'sub', '.dacli'))).toBe(true)
    const again = await dacliIn(path.join(root, 'sub'), ['init', '--here', '--json'])
    expect(again.code).toBe(5)
    expect(again.error.kind).toBe('conflict')
  })

  test('discovery stops at the repository root', async () => {
    const outer = tempDir()
    ;(await dacliIn(outer, ['init'])).expectExit(0) // not a git repo: .dacli in outer
    const repo = path.join(outer, 'repo')
    fs.mkdirSync(repo)
    git(repo, 'init', '-q')
    const r = await dacliIn(repo, ['task', 'list', '--json'])
    expect(r.code).toBe(4)
  })

  test('a linked worktree resolves to the main worktree’s workspace', async () => {
    const root = tempDir()
    git(root, 'init', '-q', '-b', 'main')
    git(root, 'commit', '-q', '--allow-empty', '-m', 'root')
    ;(await dacliIn(root, ['init'])).expectExit(0)
    ;(await dacliIn(root, ['project', 'add', 'Shared'])).expectExit(0)
    const wt = path.join(tempDir(), 'wt')
    git(root, 'worktree', 'add', '-q', wt)
    const r = (await dacliIn(wt, ['project', 'list', '--json'])).expectExit(0)
    expect(r.json.projects.map((p: { slug: string }) => p.slug)).toEqual(['shared'])
  })

  test('a workspace whose format is newer refuses to open (exit 1, "upgrade dacli")', async () => {
    const root = tempDir()
    ;(await dacliIn(root, ['init'])).expectExit(0)
    const cfg = path.join(root, '.dacli', 'config.yml')
    fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('format: 0', 'format: 1'))
    const r = await dacliIn(root, ['task', 'list', '--json'])
    expect(r.code).toBe(1)
    expect(r.error.message).toMatch(/upgrade dacli/)
  })

  test('a .dacli that is a symbolic link out of the tree is refused, never followed', async () => {
    const elsewhere = tempDir()
    ;(await dacliIn(elsewhere, ['init'])).expectExit(0)
    const root = tempDir()
    fs.symlinkSync(path.join(elsewhere, '.dacli'), path.join(root, '.dacli'))
    const r = await dacliIn(root, ['task', 'list', '--json'])
    expect(r.code).toBe(1)
    expect(r.error.message).toMatch(/symbolic link/)
  })
})
