// Benchmark of `record sync` (issue 29; quality.md: ratios to `node -e 0`, paired): two clones of a generated
// workspace (`.dacli/` git-ignored, the record branch its only carrier) and a bare remote over file://.
//   - `record sync` with nothing to do;
//   - `record sync` with 10 tasks changed here and 10 others changed on the remote (by the other clone): a fetch,
//     a field-by-field merge, a record and a push;
//   - the visibility figure: with each clone running `record sync --watch 1s`, the seconds from `task claim`
//     returning in one clone to `task show` in the other showing the owner (target: 5 s).
// Used by bench/run.mjs (BENCH_ONLY=sync runs only these); standalone:
//   npm run build && node bench/sync.mjs [--size 1k] [--runs N] [--trials N]

import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generate } from './generate.mjs'
import { median, paired } from './measure.mjs'
import { SIZES } from './scenarios.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const DEFAULT_BIN = join(here, '..', 'build', 'dacli.js')

export const SYNC_NOTHING = 'record sync, nothing to do'
export const SYNC_CHANGED = 'record sync, 10 tasks changed here and 10 on the remote'
export const VISIBILITY_TARGET_S = 5

const gitEnvOf = (env) => ({
  ...env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
})

/**
 * Two clones `a` and `b` of a generated workspace of `size` tasks and their bare remote, under `work`: `a` made
 * the workspace and synced it; `b` is a fresh clone that pulled it.
 */
export function syncPair({ work, size, env, bin = DEFAULT_BIN }) {
  const genv = gitEnvOf(env)
  const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: genv, stdio: 'pipe', encoding: 'utf8' })
  const dacli = (cwd, ...args) => {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd, env: genv, encoding: 'utf8' })
    if (r.status !== 0)
      throw new Error(`dacli ${args.join(' ')} in ${cwd}: exit ${r.status}: ${r.stderr.slice(0, 500)}`)
    return r.stdout
  }
  const root = join(work, `sync-${size}`)
  const a = join(root, 'a')
  const b = join(root, 'b')
  const remote = join(root, 'remote.git')
  mkdirSync(root, { recursive: true })
  git(root, 'init', '-q', '--bare', '-b', 'main', 'remote.git')
  generate(a, SIZES[size])
  git(a, 'checkout', '-q', '-b', 'main')
  writeFileSync(join(a, '.gitignore'), '.dacli/\n')
  writeFileSync(join(a, 'README.md'), 'bench\n')
  git(a, 'add', '.gitignore', 'README.md')
  git(a, 'commit', '-q', '-m', 'code')
  git(a, 'remote', 'add', 'origin', `file://${remote}`)
  git(a, 'push', '-q', 'origin', 'main')
  dacli(a, 'record', 'sync', '--quiet')
  git(root, 'clone', '-q', `file://${remote}`, 'b')
  dacli(b, 'record', 'pull', '--quiet')
  dacli(b, 'record', 'sync', '--quiet')
  dacli(a, 'record', 'sync', '--quiet')
  return { a, b, remote, env: genv, dacli }
}

/** The open task files of one project of a generated workspace (hand-edit targets). */
function openTasks(cwd, project) {
  const dir = join(cwd, '.dacli', 'projects', project, 'tasks', 'open')
  return readdirSync(dir)
    .filter((n) => n.endsWith('.md'))
    .sort()
    .map((n) => join(dir, n))
}

/** The two `record sync` scenarios at one size: [{ name, m }] with `m` from `paired`. */
export function syncScenarios({ work, size, runs, env, bin = DEFAULT_BIN, pair = syncPair({ work, size, env, bin }) }) {
  const { a, b, env: genv, dacli } = pair
  const sync = [process.execPath, bin, 'record', 'sync', '--quiet']
  const ok = (r) => r.status === 0
  const out = []
  out.push({ name: SYNC_NOTHING, m: paired(sync, { cwd: a, env: genv, runs, check: ok }) })
  // Ten tasks of one project edited by hand in b and synced (not timed), ten of another edited in a: the timed
  // sync in a fetches b's, merges them with its own, records and pushes.
  const here10 = openTasks(a, 'proj002')
  const there10 = openTasks(b, 'proj001')
  let n = 0
  const setup = () => {
    n++
    for (let i = 0; i < 10; i++) appendFileSync(there10[(n * 10 + i) % there10.length], `\nEdited in b, run ${n}.\n`)
    dacli(b, 'record', 'sync', '--quiet')
    for (let i = 0; i < 10; i++) appendFileSync(here10[(n * 10 + i) % here10.length], `\nEdited in a, run ${n}.\n`)
  }
  out.push({ name: SYNC_CHANGED, m: paired(sync, { cwd: a, env: genv, runs, setup, check: ok }) })
  return out
}

/** `record sync --watch 1s` in `cwd`; resolves once its first round is done (its first document printed). */
function watcher(cwd, env, bin) {
  const child = spawn(process.execPath, [bin, 'record', 'sync', '--watch', '1s', '--jsonl'], { cwd, env })
  let stderr = ''
  child.stderr.on('data', (d) => {
    stderr += d
  })
  const ready = new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`record sync --watch exited ${code}: ${stderr.slice(0, 300)}`)))
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    ready,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * With both clones running `record sync --watch 1s`, claim a fresh task in a, then poll `task show` in b until
 * it shows the owner: the seconds from the claim's return, `trials` times (different tasks).
 */
export async function syncVisibility({ pair, trials = 5, bin = DEFAULT_BIN }) {
  const { a, b, env } = pair
  const refs = openTasks(a, 'proj003')
    .slice(0, trials)
    .map((f) => `proj003/${f.split('/').pop().split('-')[0]}`)
  const wa = watcher(a, env, bin)
  const wb = watcher(b, env, bin)
  const seconds = []
  try {
    await Promise.all([wa.ready, wb.ready])
    for (const ref of refs) {
      const claim = spawnSync(process.execPath, [bin, 'task', 'claim', ref, '--quiet'], { cwd: a, env })
      if (claim.status !== 0) throw new Error(`task claim ${ref}: exit ${claim.status}: ${claim.stderr}`)
      const t0 = performance.now()
      for (;;) {
        const r = spawnSync(process.execPath, [bin, 'task', 'show', ref, '--json'], { cwd: b, env, encoding: 'utf8' })
        if (r.status === 0 && JSON.parse(r.stdout).owner !== null) break
        if (performance.now() - t0 > 60_000) throw new Error(`${ref}: not visible in the other clone within 60 s`)
        await sleep(100)
      }
      seconds.push((performance.now() - t0) / 1000)
    }
  } finally {
    await Promise.all([wa.stop(), wb.stop()])
  }
  const r2 = (x) => Math.round(x * 100) / 100
  return {
    transport: 'file://',
    trials: seconds.length,
    median_s: r2(median(seconds)),
    max_s: r2(Math.max(...seconds)),
    target_s: VISIBILITY_TARGET_S,
    met: Math.max(...seconds) <= VISIBILITY_TARGET_S,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`)
    return i === -1 ? def : process.argv[i + 1]
  }
  const size = arg('size', '1k')
  const runs = Number(arg('runs', 5))
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'dacli-bench-sync-')))
  const env = { ...process.env, NO_COLOR: '1' }
  delete env.DACLI_AGENT
  try {
    const pair = syncPair({ work, size, env })
    for (const { name, m } of syncScenarios({ work, size, runs, env, pair }))
      process.stdout.write(`${JSON.stringify({ name, size, ...m })}\n`)
    const v = await syncVisibility({ pair, trials: Number(arg('trials', 3)) })
    process.stdout.write(`${JSON.stringify({ name: 'claim visible in the other clone', size, ...v })}\n`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
