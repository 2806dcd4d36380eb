// A workspace for delivery tests: the GitHub workspace (project `alpha` linked to acme/widgets on the fake), a
// commit on main, and a bare `origin` repository that also backs the fake's acme/widgets — so the fake's pull
// requests read real heads, compute mergeability from real merges, and merge for real.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { type GitHubWorkspace, githubWorkspace } from './ghworkspace.js'
import { git, tempDir, type Workspace } from './ws.js'

export const REPO = 'acme/widgets'

export interface DeliveryWorkspace extends GitHubWorkspace {
  /** The bare repository behind `origin` and the fake's acme/widgets. */
  origin: string
  /** Add a task to `alpha` with one criterion; its qualified reference. */
  task(title: string): Promise<string>
  /** Give the task a worktree (`dacli worktree add`); its absolute path and branch. */
  worktree(ref: string): Promise<{ dir: string; branch: string }>
  /** Commit a file in a work tree; the new commit's sha. */
  commit(dir: string, file: string, text: string, subject?: string): string
  /** Push a branch of a work tree to origin. */
  push(dir: string, branch: string): void
  /** A task with a worktree holding one commit (a file named after its branch): ref, work tree, branch, commit. */
  worked(title: string): Promise<{ ref: string; dir: string; branch: string; sha: string }>
  /** A task whose one commit landed through its pull request (`pr open`, criteria checked, `pr land`): its ref. */
  landed(title: string): Promise<string>
}

export async function deliveryWorkspace(): Promise<DeliveryWorkspace> {
  const w = await githubWorkspace()
  const root = w.ws.root
  const origin = tempDir('dacli-origin-')
  git(origin, 'init', '-q', '--bare', '-b', 'main')
  fs.writeFileSync(path.join(root, 'README.md'), 'widgets\n')
  git(root, 'add', 'README.md')
  git(root, 'commit', '-q', '-m', 'init')
  git(root, 'remote', 'add', 'origin', origin)
  git(root, 'push', '-q', 'origin', 'main')
  git(root, 'remote', 'set-head', 'origin', 'main')
  w.gh.useGit(REPO, origin)
  const commit = (dir: string, file: string, text: string, subject = `Change ${file}`) => {
    fs.writeFileSync(path.join(dir, file), text)
    git(dir, 'add', file)
    git(dir, 'commit', '-q', '-m', subject)
    return git(dir, 'rev-parse', 'HEAD').trim()
  }
  const task = async (title: string) => {
    const r = (
      await w.ws.dacli('task', 'add', title, '--project', 'alpha', '--accept', 'it works', '--force', '--json')
    ).expectExit(0)
    return r.json.ref as string
  }
  const worktree = async (ref: string) => {
    const r = (await w.ws.dacli('worktree', 'add', ref, '--json')).expectExit(0)
    return { dir: path.resolve(root, r.json.path) as string, branch: r.json.branch as string }
  }
  const worked = async (title: string) => {
    const ref = await task(title)
    const { dir, branch } = await worktree(ref)
    const sha = commit(dir, `${branch.replace(/\W/g, '_')}.txt`, `${title}\n`, title)
    return { ref, dir, branch, sha }
  }
  return {
    ...w,
    origin,
    task,
    worktree,
    commit,
    push: (dir, branch) => void git(dir, 'push', '-q', 'origin', branch),
    worked,
    async landed(title) {
      const { ref } = await worked(title)
      ;(await w.run('pr', 'open', ref)).expectExit(0)
      ;(await w.ws.dacli('task', 'check', ref, '--all')).expectExit(0)
      ;(await w.run('pr', 'land', ref)).expectExit(0)
      return ref
    },
  }
}

/**
 * In a fresh `ws` (no GitHub): project ledger, task ledger/1 with a worktree whose one commit adds `file` (`text`),
 * fast-forwarded into main, criteria checked and the task done — a finished worktree, as cleanup and prune find it.
 */
export async function finishedWorktree(
  ws: Workspace,
  file: string,
  text: string,
): Promise<{ dir: string; branch: string; path: string }> {
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Shim', '--project', 'ledger', '--accept', 'x')
  const wt = (await ws.dacli('worktree', 'add', 'ledger/1', '--json')).expectExit(0).json
  const dir = path.resolve(ws.root, wt.path)
  fs.writeFileSync(path.join(dir, file), text)
  git(dir, 'add', file)
  git(dir, 'commit', '-q', '-m', file)
  git(ws.root, 'merge', '-q', '--ff-only', wt.branch)
  await ws.ok('task', 'check', 'ledger/1', '--all')
  await ws.ok('task', 'done', 'ledger/1')
  return { dir, branch: wt.branch, path: wt.path }
}
