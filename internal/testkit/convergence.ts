// Several clones kept converged by `record sync` (issue 29): a randomized run of claims, ticks, edits, adds,
// status moves and answers in three real clones of one bare remote, each syncing at random moments, and
// `record sync` killed with SIGKILL at random points. Real git, real processes (the CLI in process for the
// many small commands, the built bin for syncs that race or get killed). Sized by the caller: small in
// `npm test` (internal/features/record/convergence.test.ts), full in `npm run stress` (bench/stress.test.ts).

import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { type Checkout, checkoutAt, commitStore, originWithCode } from './coordination.js'
import { gitHttpServer } from './githttp.js'
import type { Figures } from './stress.js'
import { BIN, baseEnv, git, type Run, snapshotOf, spawnBin, tempDir, type Workspace, workspace } from './ws.js'

/** What a run found: its figures (for the stress report) and every failure, each naming the seed. */
export interface Outcome {
  seed: number
  figures: Figures
  failures: string[]
}

/** A small seeded PRNG (mulberry32): the same seed replays the same choices. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A seed: CONVERGENCE_SEED when set (to replay a failure), else a random one. */
export const seedFromEnv = (): number =>
  process.env.CONVERGENCE_SEED !== undefined
    ? Number(process.env.CONVERGENCE_SEED)
    : Math.floor(Math.random() * 2 ** 31)

/**
 * How `.dacli/` travels (README, "Several clones"): `ignored` — git-ignored, the record branch is the only
 * carrier and a fresh clone starts with `record pull`; `committed` — committed with the code, so a fresh clone
 * has it from `git clone`.
 */
export type Workflow = 'ignored' | 'committed'
export type Transport = 'file' | 'http'

export interface Clones {
  /** The first clone, where the workspace was made. */
  a: Workspace
  /** Every clone, `a` first. */
  clones: Checkout[]
  url: string
  /** The bare remote's path. */
  bare: string
  /** The ids of the tasks made so far. */
  ids: Set<string>
  close(): Promise<void>
}

const PROJECT = 'api'
const CRITERIA = ['--accept', 'first box', '--accept', 'second box', '--accept', 'third box']

/** `n` clones of a bare remote, `.dacli/` travelling as `workflow` says, `tasks` tasks to start with, all synced. */
export async function clonesOf(o: {
  n: number
  tasks: number
  workflow: Workflow
  transport: Transport
  /** `claims: {remote: origin}` in config.yml: every claim goes through the remote's claim refs. */
  arbiter?: boolean | undefined
}): Promise<Clones> {
  const root = tempDir('dacli-team-')
  git(root, 'init', '-q', '--bare', '-b', 'main', 'team.git')
  const bare = path.join(root, 'team.git')
  let close = async () => {}
  let url = `file://${bare}`
  if (o.transport === 'http') {
    git(bare, 'config', 'http.receivepack', 'true')
    const server = await gitHttpServer(root)
    url = server.url('team.git')
    close = () => server.close()
  }
  const a = await workspace()
  if (o.workflow === 'ignored') {
    a.write('.gitignore', '.dacli/\n')
    git(a.root, 'add', '.gitignore')
  }
  originWithCode(a, url)
  if (o.arbiter === true) {
    const config = path.join(a.root, '.dacli', 'config.yml')
    fs.appendFileSync(config, 'claims:\n  remote: origin\n')
  }
  await a.ok('project', 'add', 'API', '--slug', PROJECT)
  const ids = new Set<string>()
  for (let i = 1; i <= o.tasks; i++) {
    const r = await a.ok('task', 'add', `Starting task ${i}`, '--project', PROJECT, '--force', ...CRITERIA, '--json')
    ids.add(r.json.id)
  }
  if (o.workflow === 'committed') {
    commitStore(a)
    git(a.root, 'push', '-q', 'origin', 'main')
  }
  await a.ok('record', 'sync')
  const clones: Checkout[] = [checkoutAt(a.root)]
  for (let i = 1; i < o.n; i++) {
    const dir = tempDir('dacli-clone-')
    git(dir, 'clone', '-q', url, '.')
    const c = checkoutAt(dir)
    if (o.workflow === 'ignored') {
      if (fs.existsSync(path.join(dir, '.dacli'))) throw new Error('.dacli/ is git-ignored, yet the clone has it')
      ;(await c.dacli('record', 'pull')).expectExit(0)
    } else if (!fs.existsSync(path.join(dir, '.dacli', 'config.yml'))) {
      throw new Error('.dacli/ is committed, yet the clone lacks it')
    }
    ;(await c.dacli('record', 'sync')).expectExit(0)
    clones.push(c)
  }
  return { a, clones, url, bare, ids, close }
}

/** Every recordable file of a clone's `.dacli/` (what `record` commits) with its bytes. */
export function recordable(root: string): Map<string, string> {
  const m = snapshotOf(root)
  for (const k of [...m.keys()]) {
    const top = k.split(path.sep)[1] ?? ''
    if (top === 'journal' || top === 'worktrees' || /\.tmp-|\.dacli-tmp/.test(k)) m.delete(k)
  }
  return m
}

/** The task files of a clone: path → id (from the frontmatter), and the files without a readable id. */
export function taskFiles(root: string): { ids: string[]; torn: string[]; copies: string[] } {
  const ids: string[] = []
  const torn: string[] = []
  const copies: string[] = []
  const projects = path.join(root, '.dacli', 'projects')
  for (const p of fs.existsSync(projects) ? fs.readdirSync(projects) : []) {
    const tasks = path.join(projects, p, 'tasks')
    for (const s of fs.existsSync(tasks) ? fs.readdirSync(tasks) : []) {
      for (const f of fs.readdirSync(path.join(tasks, s))) {
        const rel = path.join(p, 'tasks', s, f)
        if (f.includes('.conflict-')) copies.push(rel)
        if (!f.endsWith('.md')) continue
        const text = fs.readFileSync(path.join(tasks, s, f), 'utf8')
        const id = /^id: (t-[0-9A-Z]+)$/m.exec(text)?.[1]
        if (id === undefined || !text.startsWith('---\n') || !/\n---\n/.test(text)) torn.push(rel)
        else ids.push(id)
      }
    }
  }
  return { ids, torn, copies }
}

const recordTree = (root: string) => {
  try {
    return git(root, 'rev-parse', 'dacli/record^{tree}').trim()
  } catch {
    return null
  }
}

interface Decision {
  question: string
  task: string | null
  ref: string | null
  field: string
}

/** The open decisions a sync reported (exit 0: none; exit 5: details.decisions). */
function decisionsOf(r: Run): Decision[] {
  if (r.code === 0) return r.json.decisions
  return r.error.details?.decisions ?? []
}

const STATUS_MOVES = ['block', 'unblock', 'done', 'reopen', 'release'] as const

export interface ConvergenceOptions {
  seed: number
  rounds: number
  workflow: Workflow
  transport: Transport
  /**
   * `disjoint`: each clone changes only its own tasks (every one-sided change: no decision may arise);
   * `contended`: any clone changes any task (genuine conflicts arise and must become open questions).
   */
  mode: 'disjoint' | 'contended'
  tasks?: number
  /** `claims: {remote: origin}`: a claim another clone holds is refused (5), never won twice. */
  arbiter?: boolean
}

/**
 * Three clones × `rounds` rounds: each round every clone (in a random order) does one to three random things —
 * claim, release, tick, edit, add, a status move, answer a decision — and syncs at random moments; some rounds
 * end with the three syncing at once (real processes racing for the push). Then a final sync round; the
 * figures say what went wrong (all zero when it converged). Every failure names the seed.
 */
export async function convergenceRun(o: ConvergenceOptions): Promise<Outcome> {
  const rnd = prng(o.seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T
  const t = await clonesOf({
    n: 3,
    tasks: o.tasks ?? 6,
    workflow: o.workflow,
    transport: o.transport,
    arbiter: o.arbiter,
  })
  const failures: string[] = []
  const fail = (m: string) => failures.push(`seed ${o.seed}: ${m}`)
  /** Which clone may change which task (disjoint mode): the one that made it; the starting tasks round-robin. */
  const mine = new Map<string, number>()
  for (const [i, id] of [...t.ids].entries()) mine.set(id, i % 3)
  /** Which clones changed each task (a decision needs two). */
  const touched = new Map<string, Set<number>>()
  const touch = (id: string, c: number) => {
    const s = touched.get(id) ?? new Set<number>()
    s.add(c)
    touched.set(id, s)
  }
  const counts = { ops: 0, refused: 0, syncs: 0, raced_syncs: 0, decisions_seen: 0, answered: 0 }
  /** With the arbiter: which clone won the live claim of each task, and claims won while another clone held one. */
  const holder = new Map<string, number>()
  let claimsWon = 0
  let wonWhileHeld = 0
  const t0 = Date.now()

  const checkSync = (c: number, r: Run, where: string) => {
    counts.syncs++
    if (r.code !== 0 && r.code !== 5) return fail(`${where}: record sync in clone ${c} exited ${r.code}: ${r.stderr}`)
    const d = decisionsOf(r)
    if (r.code === 5 && r.error.details?.outcome !== 'decisions')
      return fail(
        `${where}: clone ${c} ended its sync with ${r.error.details?.outcome ?? r.stderr} ${JSON.stringify(r.error.details?.conflicts ?? [])}`,
      )
    if (o.mode === 'disjoint' && d.length > 0)
      fail(`${where}: one-sided changes raised decisions in clone ${c}: ${JSON.stringify(d)}`)
    counts.decisions_seen = Math.max(counts.decisions_seen, d.length)
  }

  const sync = async (c: number, where: string) => {
    const r = await (t.clones[c] as Checkout).dacli('record', 'sync', '--json')
    checkSync(c, r, where)
    return r
  }

  for (let round = 1; round <= o.rounds; round++) {
    const order = [0, 1, 2].sort(() => rnd() - 0.5)
    for (const c of order) {
      const clone = t.clones[c] as Checkout
      const steps = 1 + Math.floor(rnd() * 3)
      for (let s = 0; s < steps; s++) {
        const mayChange = [...t.ids].filter((id) => o.mode === 'contended' || mine.get(id) === c)
        const op = pick(['claim', 'release', 'check', 'edit', 'add', 'move', 'move', 'answer', 'sync'] as const)
        const where = `round ${round}, clone ${c}, ${op}`
        if (op === 'sync') {
          await sync(c, where)
          continue
        }
        let argv: string[]
        let id: string | null = mayChange.length > 0 ? pick(mayChange) : null
        if (op === 'add') {
          const title = `Task of clone ${c} round ${round} step ${s}`
          argv = ['task', 'add', title, '--project', PROJECT, '--force', ...CRITERIA, '--json']
          id = null
        } else if (op === 'answer') {
          // Every question of this run is a merge's decision (nobody runs `ask`).
          const open = (await clone.dacli('threads', '--open', '--json')).expectExit(0).json.threads
          if (open.length === 0 || o.mode === 'disjoint') continue
          const decision = pick(open) as { id: string; about: { id: string } | null }
          argv = ['answer', decision.id, pick(['ours', 'theirs'])]
          id = decision.about?.id ?? null
        } else if (id === null) continue
        else if (op === 'claim') argv = ['task', 'claim', id]
        else if (op === 'release') argv = ['task', 'release', id]
        else if (op === 'check') argv = ['task', 'check', id, '--n', String(1 + Math.floor(rnd() * 3))]
        else if (op === 'edit') argv = ['task', 'edit', id, '--priority', pick(['must', 'should', 'could'])]
        else {
          const move = pick(STATUS_MOVES)
          argv =
            move === 'block'
              ? ['task', 'block', id, '--why', `waits (clone ${c}, round ${round})`]
              : move === 'done'
                ? ['accept', id]
                : move === 'reopen'
                  ? ['task', 'reopen', id, '--reason', `again (clone ${c}, round ${round})`]
                  : ['task', move, id]
        }
        const r = await clone.dacli(...argv)
        counts.ops++
        if (r.code === 0 && id !== null && (op === 'claim' || op === 'release' || argv[0] === 'accept')) {
          if (op === 'claim') {
            claimsWon++
            const h = holder.get(id)
            if (o.arbiter === true && h !== undefined && h !== c) {
              wonWhileHeld++
              fail(`${where}: clone ${c} won the claim of ${id} that clone ${h} holds`)
            }
            holder.set(id, c)
          } else holder.delete(id)
        }
        if (r.code === 0) {
          if (op === 'add') {
            const made = r.json.id as string
            t.ids.add(made)
            mine.set(made, c)
            touch(made, c)
          } else if (id !== null) touch(id, c)
          if (op === 'answer') counts.answered++
        } else if (r.code === 3 || r.code === 4 || r.code === 5) counts.refused++
        else fail(`${where}: dacli ${argv.join(' ')} exited ${r.code}: ${r.stderr}`)
      }
    }
    // Now and then the three sync at the same moment: real processes racing for the push.
    if (rnd() < 0.25) {
      counts.raced_syncs++
      const runs = await Promise.all(t.clones.map((c) => spawnBin(['record', 'sync', '--json'], { cwd: c.root })))
      for (const [c, r] of runs.entries()) checkSync(c, r, `round ${round}, racing syncs`)
    }
    if (failures.length > 0) break
  }

  // The final sync round: each clone in turn until a whole pass moves nothing (at most four passes).
  let last: Run[] = []
  for (let pass = 0; pass < 4; pass++) {
    last = []
    for (let c = 0; c < 3; c++) last.push(await sync(c, `final pass ${pass + 1}`))
    const trees = new Set(t.clones.map((c) => recordTree(c.root)))
    if (trees.size === 1 && last.every((r) => (r.code === 0 ? r.json : r.error.details).files_changed.length === 0))
      break
  }
  const figures = converged(t, failures, o.seed)
  // Every genuine conflict is an open question, the same in every clone, on a task two clones changed.
  const decisions = last.map(decisionsOf)
  const open = new Set<string>()
  for (const [c, clone] of t.clones.entries()) {
    const threads = (await clone.dacli('threads', '--open', '--json')).expectExit(0).json.threads
    const ids = new Set(threads.map((q: { id: string }) => q.id))
    for (const d of decisions[c] ?? []) {
      open.add(d.question)
      if (!ids.has(d.question)) fail(`clone ${c}: decision ${d.question} is not an open question`)
      if (o.mode === 'contended' && d.task !== null && (touched.get(d.task)?.size ?? 0) < 2)
        fail(`clone ${c}: decision ${d.question} on ${d.ref} (${d.field}), a task only one clone changed`)
    }
    if (
      JSON.stringify((decisions[c] ?? []).map((d) => d.question).sort()) !==
      JSON.stringify((decisions[0] ?? []).map((d) => d.question).sort())
    )
      fail(`clone ${c} reports other decisions than clone 0`)
  }
  // Answered in one clone, the decisions travel: every clone converges with exit 0.
  let answered = 0
  if (open.size > 0) {
    for (const q of open) {
      const r = await t.a.dacli('answer', q, pick(['ours', 'theirs']))
      if (r.code === 0) answered++
      else fail(`answering ${q} exited ${r.code}: ${r.stderr}`)
    }
    for (let pass = 0; pass < 2; pass++) {
      for (const [c, clone] of t.clones.entries()) {
        const r = await clone.dacli('record', 'sync', '--json')
        if (pass === 1 && r.code !== 0) fail(`after the answers, clone ${c}'s sync exited ${r.code}: ${r.stderr}`)
      }
    }
    converged(t, failures, o.seed)
  }
  await t.close()
  return {
    seed: o.seed,
    failures,
    figures: {
      seed: o.seed,
      workflow: o.workflow,
      transport: o.transport,
      mode: o.mode,
      arbiter: o.arbiter === true,
      clones: 3,
      claims_won: claimsWon,
      claims_won_while_another_clone_held: wonWhileHeld,
      rounds: o.rounds,
      commands: counts.ops,
      refused_or_not_applicable: counts.refused,
      syncs: counts.syncs,
      rounds_with_racing_syncs: counts.raced_syncs,
      answered_during_the_run: counts.answered,
      open_decisions_at_the_end: open.size,
      answered_at_the_end: answered,
      ...figures,
      seconds: (Date.now() - t0) / 1000,
    },
  }
}

/** The checks of a converged team: one tree, every task once, no copy. Failures go to `failures`. */
function converged(t: Clones, failures: string[], seed: number): Figures {
  const fail = (m: string) => failures.push(`seed ${seed}: ${m}`)
  const trees = t.clones.map((c) => recordTree(c.root))
  const remoteTree = git(t.bare, 'rev-parse', 'dacli/record^{tree}').trim()
  if (new Set([...trees, remoteTree]).size !== 1)
    fail(`the record trees differ: ${trees.join(' ')} remote ${remoteTree}`)
  const files = t.clones.map((c) => recordable(c.root))
  const base = files[0] as Map<string, string>
  let differing = 0
  for (const [c, m] of files.entries()) {
    const names = new Set([...base.keys(), ...m.keys()])
    for (const n of names) {
      if (base.get(n) !== m.get(n)) {
        differing++
        if (differing <= 5) fail(`clone ${c}'s ${n} differs from clone 0's`)
      }
    }
  }
  let lost = 0
  let duplicated = 0
  let torn = 0
  let copies = 0
  for (const [c, clone] of t.clones.entries()) {
    const f = taskFiles(clone.root)
    const have = new Set(f.ids)
    const missing = [...t.ids].filter((id) => !have.has(id))
    lost += missing.length
    duplicated += f.ids.length - have.size
    torn += f.torn.length
    copies += f.copies.length
    if (missing.length > 0) fail(`clone ${c} lost ${missing.join(', ')}`)
    if (f.ids.length !== have.size) fail(`clone ${c} holds a task twice`)
    if (f.torn.length > 0) fail(`clone ${c} holds torn task files: ${f.torn.join(', ')}`)
    if (f.copies.length > 0) fail(`clone ${c} holds conflict copies in status folders: ${f.copies.join(', ')}`)
  }
  return {
    tasks: t.ids.size,
    files_differing_between_clones: differing,
    tasks_lost: lost,
    tasks_duplicated: duplicated,
    torn_task_files: torn,
    conflict_copies_in_status_folders: copies,
  }
}

/**
 * `record sync` killed with SIGKILL at random points, `trials` times, in the second of two clones: each trial the
 * other clone changes and pushes, this one changes some tasks, starts a sync and kills it after a random delay.
 * After each: the clone opens (`doctor` and `task list` answer, exit 0), no task is
 * lost or torn, and the next sync converges (exit 0, the remote's record tree, the same working files).
 */
export async function syncKills(o: { trials: number; seed: number; workflow?: Workflow }): Promise<Outcome> {
  const rnd = prng(o.seed)
  const t = await clonesOf({ n: 2, tasks: 12, workflow: o.workflow ?? 'committed', transport: 'file' })
  const [a, b] = t.clones as [Checkout, Checkout]
  const failures: string[] = []
  const fail = (m: string) => failures.push(`seed ${o.seed}: ${m}`)
  const ids = [...t.ids]
  let killed = 0
  let finished = 0
  const doctorCodes = new Map<number, number>()
  const findings = new Map<string, number>()
  const t0 = Date.now()
  // How long a sync takes here, to spread the kills over the whole of it.
  const s0 = Date.now()
  ;(await spawnBin(['record', 'sync'], { cwd: b.root })).expectExit(0)
  const span = Math.max(400, Date.now() - s0)
  for (let trial = 1; trial <= o.trials; trial++) {
    const where = `trial ${trial}`
    // The other clone moves on: a tick and an edit, pushed.
    const other = ids[Math.floor(rnd() * ids.length)] as string
    await a.dacli('task', 'edit', other, '--priority', ['must', 'should', 'could'][trial % 3] as string)
    const ra = await a.dacli('record', 'sync')
    if (ra.code !== 0) fail(`${where}: the other clone's sync exited ${ra.code}: ${ra.stderr}`)
    // This clone changes a few tasks of its own (different ones: nothing to decide) and adds one.
    for (let k = 0; k < 3; k++) {
      const id = ids[(trial * 3 + k) % ids.length] as string
      if (id === other) continue
      await b.dacli('task', 'check', id, '--n', String(1 + (k % 3)))
    }
    const add = await b.dacli('task', 'add', `Added before kill ${trial}`, '--project', PROJECT, '--force', '--json')
    if (add.code === 0) t.ids.add(add.json.id)
    const child: ChildProcess = spawn(process.execPath, [BIN, 'record', 'sync', '--quiet'], {
      cwd: b.root,
      env: baseEnv(),
      stdio: 'ignore',
    })
    const closed = new Promise<void>((r) => child.on('close', () => r()))
    // From start-up to the push: a trial's sync (a fetch, a merge, a record, a push) takes longer than the first.
    await new Promise((r) => setTimeout(r, Math.floor(rnd() * span * 2.5)))
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      killed++
    } else finished++
    await closed
    // The clone opens: doctor answers (exit 0, whatever it finds; the findings are counted), task list answers.
    const doc = await b.dacli('doctor', '--json')
    doctorCodes.set(doc.code, (doctorCodes.get(doc.code) ?? 0) + 1)
    if (doc.code !== 0) fail(`${where}: doctor exited ${doc.code}: ${doc.stderr}`)
    else {
      for (const f of doc.json.findings) findings.set(f.code, (findings.get(f.code) ?? 0) + 1)
    }
    const list = await b.dacli('task', 'list', '--json')
    if (list.code !== 0) fail(`${where}: task list exited ${list.code}: ${list.stderr}`)
    const f = taskFiles(b.root)
    const have = new Set(f.ids)
    const missing = [...t.ids].filter((id) => !have.has(id))
    if (missing.length > 0) fail(`${where}: lost ${missing.join(', ')} after the kill`)
    if (f.torn.length > 0) fail(`${where}: torn task files ${f.torn.join(', ')}`)
    if (f.ids.length !== have.size) fail(`${where}: a task twice after the kill`)
    // The next sync converges.
    const next = await b.dacli('record', 'sync', '--json')
    if (next.code !== 0) fail(`${where}: the next sync exited ${next.code}: ${next.stderr}`)
    const remoteTree = git(t.bare, 'rev-parse', 'dacli/record^{tree}').trim()
    if (recordTree(b.root) !== remoteTree) fail(`${where}: after the next sync the record differs from the remote's`)
    const again = await a.dacli('record', 'sync')
    if (again.code !== 0) fail(`${where}: the other clone's sync after the kill exited ${again.code}: ${again.stderr}`)
    if (failures.length > 0) break
  }
  // Both clones end with the same files.
  const last = await b.dacli('record', 'sync')
  if (last.code !== 0) fail(`the last sync exited ${last.code}: ${last.stderr}`)
  const fa = recordable(a.root)
  const fb = recordable(b.root)
  const differing = [...new Set([...fa.keys(), ...fb.keys()])].filter((k) => fa.get(k) !== fb.get(k))
  if (differing.length > 0) fail(`the clones differ at the end: ${differing.slice(0, 5).join(', ')}`)
  await t.close()
  return {
    seed: o.seed,
    failures,
    figures: {
      seed: o.seed,
      trials: o.trials,
      killed_while_syncing: killed,
      finished_before_the_kill: finished,
      sync_ms: span,
      doctor_exits: [...doctorCodes].map(([k, v]) => `${k}×${v}`).join(' '),
      doctor_findings: [...findings].map(([k, v]) => `${k}×${v}`).join(' ') || 'none',
      tasks: t.ids.size,
      files_differing_at_the_end: differing.length,
      seconds: (Date.now() - t0) / 1000,
    },
  }
}
