// Parallel agents across worktrees and clones (coordination.md), with real git
// and real processes: the helpers that build linked worktrees, bare remotes and
// clones, and the races sized by the caller (small in `npm test`, full counts in
// `npm run stress`).

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Figures } from './stress.js'
import { dacliIn, git, type Run, type RunOpts, spawnBin, tempDir, type Workspace } from './ws.js'

/** A checkout dacli runs in: a linked worktree or a clone. */
export interface Checkout {
  root: string
  dacli(...args: (string | RunOpts)[]): Promise<Run>
  file(rel: string): string
}

export function checkoutAt(root: string): Checkout {
  return {
    root,
    dacli(...args) {
      const last = args[args.length - 1]
      const o = typeof last === 'object' ? (last as RunOpts) : {}
      return dacliIn(
        root,
        args.filter((a): a is string => typeof a === 'string'),
        o,
      )
    },
    file: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
  }
}

/** Commit `.dacli/` (and a README) on the main worktree's branch, as the README recommends. */
export function commitStore(ws: Workspace, message = 'track the workspace'): void {
  if (!fs.existsSync(path.join(ws.root, 'README.md'))) ws.write('README.md', 'the code\n')
  git(ws.root, 'add', 'README.md', '.dacli')
  git(ws.root, 'commit', '-q', '-m', message)
}

/** `git worktree add <tmp> -b <branch>`: a linked worktree (with its own checked-out copy of what is committed). */
export function linkedWorktree(ws: Workspace, branch: string): Checkout {
  const dir = path.join(tempDir('dacli-wt-'), branch.replace(/\//g, '-'))
  git(ws.root, 'worktree', 'add', '-q', dir, '-b', branch)
  return checkoutAt(dir)
}

/**
 * Two linked worktrees of one clone, `.dacli/` committed: each round two identities (one per worktree)
 * claim the same fresh task at once. Exactly one wins; both worktrees see the same owner.
 */
export async function worktreeClaimRace(ws: Workspace, rounds: number): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Race', '--slug', 'race')).expectExit(0)
  const a = await ws.agent('rw', 'left')
  const b = await ws.agent('rw', 'right')
  commitStore(ws)
  const left = linkedWorktree(ws, 'left')
  const right = linkedWorktree(ws, 'right')
  let wrong = 0
  let disagree = 0
  const t0 = Date.now()
  for (let round = 1; round <= rounds; round++) {
    ;(
      await ws.dacli('task', 'add', `Contested ${round}`, '--project', 'race', '--force', '--accept', 'x', '--quiet')
    ).expectExit(0)
    const runs = await Promise.all([
      spawnBin(['task', 'claim', `race/${round}`, '--json'], { cwd: left.root, as: a.token }),
      spawnBin(['task', 'claim', `race/${round}`, '--json'], { cwd: right.root, as: b.token }),
    ])
    const codes = runs.map((r) => r.code).sort()
    if (codes.join() !== '0,5') wrong++
    const owners = await Promise.all(
      [left, right].map(async (c) => (await c.dacli('task', 'show', `race/${round}`, '--json')).json.owner),
    )
    const winner = runs.find((r) => r.code === 0)?.json.task.owner
    if (owners[0] !== winner || owners[1] !== winner) disagree++
  }
  return {
    worktrees: 2,
    rounds,
    rounds_with_other_than_one_winner: wrong,
    rounds_where_worktrees_disagree: disagree,
    seconds: (Date.now() - t0) / 1000,
  }
}

/** A bare repository to use as `origin`. */
export function bareRemote(): string {
  const remote = tempDir('dacli-remote-')
  git(remote, 'init', '-q', '--bare', '-b', 'main')
  return remote
}

/** A clone of `remote` with the workspace pulled from its record branch. */
export async function pulledClone(remote: string): Promise<Checkout> {
  const dir = tempDir('dacli-clone-')
  git(dir, 'clone', '-q', remote, '.')
  const c = checkoutAt(dir)
  ;(await c.dacli('record', 'pull')).expectExit(0)
  return c
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * `task claim` racing `record pull` of a diverged record: each round the other clone changes the task
 * and pushes, then this clone claims it while pulling. Whatever the pull does (merge, or a conflict that
 * keeps both versions), the claim must survive in the working file.
 */
export async function pullClaimRace(ws: Workspace, rounds: number): Promise<Figures> {
  const remote = bareRemote()
  ws.write('README.md', 'the code\n')
  git(ws.root, 'add', 'README.md')
  git(ws.root, 'commit', '-q', '-m', 'code')
  git(ws.root, 'remote', 'add', 'origin', remote)
  git(ws.root, 'push', '-q', 'origin', 'main')
  ;(await ws.dacli('project', 'add', 'Race', '--slug', 'race')).expectExit(0)
  for (let i = 1; i <= rounds; i++) {
    ;(
      await ws.dacli('task', 'add', `Pulled ${i}`, '--project', 'race', '--force', '--accept', 'x', '--quiet')
    ).expectExit(0)
  }
  const claimer = await ws.agent('rw', 'claimer')
  ;(await ws.dacli('record', 'push')).expectExit(0)
  const b = await pulledClone(remote)
  // b's record diverges from the remote's from the start.
  ;(await b.dacli('project', 'add', 'Local', '--slug', 'local')).expectExit(0)
  ;(await b.dacli('record')).expectExit(0)
  let lost = 0
  const pulls: Record<string, number> = {}
  let claimFailures = 0
  const t0 = Date.now()
  for (let round = 1; round <= rounds; round++) {
    ;(
      await ws.dacli('task', 'edit', `race/${round}`, '--context', `changed by the other clone in round ${round}`)
    ).expectExit(0)
    ;(await ws.dacli('record', 'push')).expectExit(0)
    const [claim, pull] = await Promise.all([
      sleep(Math.floor(Math.random() * 250)).then(() =>
        spawnBin(['task', 'claim', `race/${round}`, '--json'], { cwd: b.root, as: claimer.token }),
      ),
      spawnBin(['record', 'pull', '--json'], { cwd: b.root }),
    ])
    if (claim.code !== 0) claimFailures++
    pulls[String(pull.code)] = (pulls[String(pull.code)] ?? 0) + 1
    const t = (await b.dacli('task', 'show', `race/${round}`, '--json')).json
    if (claim.code === 0 && t.owner !== claimer.id) lost++
  }
  return {
    rounds,
    claims_lost: lost,
    claims_failed: claimFailures,
    pull_exit_codes: Object.entries(pulls)
      .map(([k, v]) => `${k}×${v}`)
      .join(' '),
    seconds: (Date.now() - t0) / 1000,
  }
}
