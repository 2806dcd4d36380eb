// Repository discovery without git or isomorphic-git (internal/adapters/git/discover.ts).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { git, REPO_ROOT, tempDir } from '../../testkit/ws.js'
import { gitInfoAt, headOf, linkedWorktreeRoots, remotesWithBranch } from './discover.js'

function repo(): string {
  const dir = tempDir('dacli-disc-')
  git(dir, 'init', '-q', '-b', 'main')
  fs.writeFileSync(path.join(dir, 'f'), 'x\n')
  git(dir, 'add', 'f')
  git(dir, 'commit', '-q', '-m', 'one')
  return dir
}

describe('gitInfoAt', () => {
  test('main worktree, linked worktree (from a subfolder), and what each has checked out', () => {
    const main = repo()
    const wt = path.join(tempDir('dacli-disc-wt-'), 'side')
    git(main, 'worktree', 'add', '-q', wt, '-b', 'side')
    fs.mkdirSync(path.join(wt, 'a', 'b'), { recursive: true })
    expect(gitInfoAt(path.join(main))).toEqual({
      workTree: main,
      gitDir: path.join(main, '.git'),
      commonDir: path.join(main, '.git'),
      mainWorkTree: main,
      linked: false,
    })
    const info = gitInfoAt(path.join(wt, 'a', 'b'))
    expect(info).toEqual({
      workTree: wt,
      gitDir: path.join(main, '.git', 'worktrees', 'side'),
      commonDir: path.join(main, '.git'),
      mainWorkTree: main,
      linked: true,
    })
    const head = git(main, 'rev-parse', 'HEAD').trim()
    expect(headOf(info as NonNullable<typeof info>)).toEqual({ branch: 'side', commit: head })
    expect(linkedWorktreeRoots(path.join(main, '.git'))).toEqual([wt])
    git(wt, 'checkout', '-q', '--detach')
    expect(headOf(info as NonNullable<typeof info>)).toEqual({ branch: null, commit: head })
  })

  test('a submodule-style .git file (no commondir) and worktrees of a bare clone stand alone', () => {
    const main = repo()
    const sep = tempDir('dacli-disc-sep-')
    const gitdir = path.join(tempDir('dacli-disc-gd-'), 'modules', 'x')
    fs.mkdirSync(path.dirname(gitdir), { recursive: true })
    git(sep, 'init', '-q', '--separate-git-dir', gitdir)
    expect(gitInfoAt(sep)).toMatchObject({ workTree: sep, gitDir: gitdir, commonDir: gitdir, linked: false })
    const bare = tempDir('dacli-disc-bare-')
    git(bare, 'clone', '-q', '--bare', main, '.')
    const wt = path.join(tempDir('dacli-disc-bwt-'), 'w')
    git(bare, 'worktree', 'add', '-q', wt, '-b', 'w')
    expect(gitInfoAt(wt)).toMatchObject({ workTree: wt, commonDir: bare, mainWorkTree: wt, linked: false })
    expect(gitInfoAt(tempDir('dacli-disc-none-'))).toBeNull()
  })

  test('remotesWithBranch reads loose and packed remote-tracking refs, origin first', () => {
    const main = repo()
    git(main, 'branch', 'dacli/record')
    const clone = tempDir('dacli-disc-clone-')
    git(clone, 'clone', '-q', main, '.')
    git(clone, 'remote', 'add', 'alpha', main)
    git(clone, 'fetch', '-q', 'alpha')
    const common = path.join(clone, '.git')
    expect(remotesWithBranch(common, 'dacli/record')).toEqual(['origin', 'alpha'])
    git(clone, 'pack-refs', '--all')
    expect(remotesWithBranch(common, 'dacli/record')).toEqual(['origin', 'alpha'])
    expect(remotesWithBranch(common, 'nothing/here')).toEqual([])
  })

  test('discovery stays light: only node modules and refs.ts, and nothing outside adapters/git parses .git files', () => {
    const importsOf = (file: string) =>
      [
        ...fs
          .readFileSync(path.join(REPO_ROOT, 'internal', 'adapters', 'git', file), 'utf8')
          .matchAll(/^import\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm),
      ]
        .map((m) => m[1] as string)
        .filter((i) => !i.startsWith('node:'))
    expect(importsOf('discover.ts')).toEqual(['./refs.js'])
    expect(importsOf('refs.ts')).toEqual(['../../base/branchname.js', '../../base/errors.js'])
    const offenders: string[] = []
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name)
        if (e.isDirectory()) walk(p)
        else if (
          /\.ts$/.test(e.name) &&
          !e.name.endsWith('.test.ts') &&
          !p.includes(`${path.sep}adapters${path.sep}git${path.sep}`)
        ) {
          if (/['"]commondir['"]|gitdir:/.test(fs.readFileSync(p, 'utf8'))) offenders.push(path.relative(REPO_ROOT, p))
        }
      }
    }
    walk(path.join(REPO_ROOT, 'internal'))
    expect(offenders).toEqual([])
  })
})
