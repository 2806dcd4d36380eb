// Parallel agents across worktrees and clones, with real git
// and real processes: the helpers that build linked worktrees, bare remotes and
// clones, and the races sized by the caller (small in `npm test`, full counts in
// `npm run stress`).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { type Figures, raceTask } from './stress.js'
import { dacliIn, git, type Run, type RunOpts, spawnBin, tempDir, type Workspace, workspace } from './ws.js'

/** A checkout dacli runs in: a linked worktree or a clone. */
export interface Checkout {
  root: string
  dacli(...args: (string | RunOpts)[]): Promise<Run>
  file(rel: string): string
  write(rel: string, text: string): void
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
    write(rel, text) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
      fs.writeFileSync(path.join(root, rel), text)
    },
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
    await raceTask(ws, 'race', `Contested ${round}`)
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

/** `ws`'s code (a README, committed on main) pushed to `url` (a new bare repository unless given), its origin. */
export function originWithCode(ws: Workspace, url = bareRemote()): string {
  ws.write('README.md', 'the code\n')
  git(ws.root, 'add', 'README.md')
  git(ws.root, 'commit', '-q', '-m', 'code')
  git(ws.root, 'remote', 'add', 'origin', url)
  git(ws.root, 'push', '-q', 'origin', 'main')
  return url
}

/**
 * Two clones of one bare remote with `.dacli/` committed with the code: `build` makes `a`'s workspace (projects,
 * tasks, config), which is then committed, pushed and recorded on the remote; `b` is a plain clone of it whose own
 * record is not made yet (its first `record sync` makes it).
 */
export async function committedClones(
  build: (a: Workspace) => Promise<void>,
): Promise<{ a: Workspace; b: Checkout; remote: string }> {
  const a = await workspace()
  const remote = originWithCode(a)
  await build(a)
  commitStore(a)
  git(a.root, 'push', '-q', 'origin', 'main')
  ;(await a.dacli('record', 'sync')).expectExit(0)
  const dir = tempDir('dacli-clone-')
  git(dir, 'clone', '-q', remote, '.')
  return { a, b: checkoutAt(dir), remote }
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
  const remote = originWithCode(ws)
  ;(await ws.dacli('project', 'add', 'Race', '--slug', 'race')).expectExit(0)
  for (let i = 1; i <= rounds; i++) {
    await raceTask(ws, 'race', `Pulled ${i}`)
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

/** A team: a bare remote (`<root>/team.git`), the first clone `a` (with the workspace) and more clones. */
export interface Team {
  root: string
  /** What the clones call origin (a path, a file:// URL or an http:// URL). */
  url: string
  a: Workspace
  clones: Checkout[]
}

/**
 * A workspace `ws` with `tasks` tasks in project `race`, its code pushed to a bare remote under `root` (served
 * as `url`). `cloneTeam` then adds clones that pull its record: the same tasks, agents and workspace id.
 */
export async function team(
  ws: Workspace,
  o: { tasks: number; url?: ((root: string) => string | Promise<string>) | undefined },
): Promise<Team> {
  const root = tempDir('dacli-team-')
  git(root, 'init', '-q', '--bare', '-b', 'main', 'team.git')
  const url = (await o.url?.(root)) ?? path.join(root, 'team.git')
  originWithCode(ws, url)
  ;(await ws.dacli('project', 'add', 'Race', '--slug', 'race')).expectExit(0)
  for (let i = 1; i <= o.tasks; i++) {
    await raceTask(ws, 'race', `Contested ${i}`)
  }
  return { root, url, a: ws, clones: [] }
}

/** Mint agents in `a`, push the record, and clone `n` more checkouts that pull it. */
export async function cloneTeam(t: Team, n: number, agents: number): Promise<{ id: string; token: string }[]> {
  const minted = await Promise.all(Array.from({ length: agents }, (_, i) => t.a.agent('rw', `racer${i}`)))
  ;(await t.a.dacli('record', 'push')).expectExit(0)
  for (let i = 0; i < n; i++) {
    const dir = tempDir('dacli-clone-')
    git(dir, 'clone', '-q', t.url, '.')
    const c = checkoutAt(dir)
    ;(await c.dacli('record', 'pull')).expectExit(0)
    t.clones.push(c)
  }
  return minted
}

/** The claim the remote holds for a task: `by` from its commit message, or null. */
export function remoteHolder(t: Team, taskId: string): string | null {
  try {
    const msg = git(path.join(t.root, 'team.git'), 'log', '-1', '--format=%B', `refs/dacli/claims/${taskId}`)
    return /^by: (\S+)$/m.exec(msg)?.[1] ?? null
  } catch {
    return null
  }
}

/**
 * `clones` × `procs` processes (each its own identity) race `task claim --remote origin` on one fresh task
 * per round: exactly one exit 0, every other exit 5, and the remote's claim names the winner.
 */
export async function remoteClaimRace(
  ws: Workspace,
  o: { clones: number; procs: number; rounds: number; url?: ((root: string) => string | Promise<string>) | undefined },
): Promise<Figures> {
  const t = await team(ws, { tasks: o.rounds, url: o.url })
  const agents = await cloneTeam(t, o.clones, o.clones * o.procs)
  const ids = (await t.a.dacli('task', 'list', '--project', 'race', '--json')).json.tasks.map(
    (x: { id: string }) => x.id,
  )
  let wrong = 0
  let disagree = 0
  const other = new Set<string>()
  const t0 = Date.now()
  for (let round = 1; round <= o.rounds; round++) {
    const runs = await Promise.all(
      agents.map((a, i) =>
        spawnBin(['task', 'claim', `race/${round}`, '--remote', 'origin', '--json'], {
          cwd: (t.clones[i % o.clones] as Checkout).root,
          as: a.token,
        }),
      ),
    )
    const winners = runs.filter((r) => r.code === 0)
    for (const r of runs) if (r.code !== 0 && r.code !== 5) other.add(`${r.code}: ${r.stderr.slice(0, 160)}`)
    if (winners.length !== 1 || runs.filter((r) => r.code === 5).length !== runs.length - 1) wrong++
    const owner = winners[0]?.json.task.owner
    if (owner === undefined || remoteHolder(t, ids[round - 1]) !== owner) disagree++
  }
  return {
    transport: t.url.startsWith('http') ? 'smart HTTP' : 'file',
    clones: o.clones,
    processes_per_clone: o.procs,
    rounds: o.rounds,
    rounds_with_other_than_one_winner: wrong,
    rounds_where_the_remote_disagrees: disagree,
    other_exits: [...other].join(' | ') || 'none',
    seconds: (Date.now() - t0) / 1000,
  }
}

/**
 * Expired-lease takeover with two takers: each round one clone claims a task on the remote with a 1 s
 * lease; once it has expired, two other clones (two identities) take it over at once. Exactly one wins
 * (outcome taken-over), the other exits 5 naming the winner.
 */
export async function takeoverRace(
  ws: Workspace,
  rounds: number,
  url?: (root: string) => string | Promise<string>,
): Promise<Figures> {
  const t = await team(ws, { tasks: rounds, url })
  const [first, left, right] = (await cloneTeam(t, 3, 3)).map((a) => a.token) as [string, string, string]
  let wrong = 0
  const t0 = Date.now()
  for (let round = 1; round <= rounds; round++) {
    const ref = `race/${round}`
    const c = t.clones as [Checkout, Checkout, Checkout]
    const held = (
      await c[0].dacli('task', 'claim', ref, '--remote', 'origin', '--lease', '1s', '--json', { as: first })
    ).expectExit(0)
    // The lease's expiry is rounded up to the whole second, so a 1s lease can
    // run for almost 2s: wait for the expiry the claim reports, not for 1s.
    await sleep(Math.max(0, Date.parse(held.json.task.claim.expires) - Date.now()) + 300)
    const runs = await Promise.all([
      spawnBin(['task', 'claim', ref, '--remote', 'origin', '--json'], { cwd: c[1].root, as: left }),
      spawnBin(['task', 'claim', ref, '--remote', 'origin', '--json'], { cwd: c[2].root, as: right }),
    ])
    const won = runs.filter((r) => r.code === 0)
    const lost = runs.filter((r) => r.code === 5)
    const ok =
      won.length === 1 &&
      lost.length === 1 &&
      won[0]?.json.outcome === 'taken-over' &&
      lost[0]?.error.details.owner === won[0]?.json.task.owner
    if (!ok) wrong++
  }
  return { takers: 2, rounds, rounds_with_other_than_one_winner: wrong, seconds: (Date.now() - t0) / 1000 }
}

/** A workspace with task alpha/1 ("First thing") committed, and the task's worktree added: its folder. */
export async function alphaWorktree(): Promise<{ ws: Workspace; dir: string }> {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')).expectExit(0)
  commitStore(ws)
  ;(await ws.dacli('worktree', 'add', 'alpha/1')).expectExit(0)
  return { ws, dir: path.join(ws.root, '.dacli', 'worktrees', 'alpha-001-first-thing') }
}
