// Benchmark: `task claim --remote origin` against a local bare remote (quality.md: ≤ 4× `node -e 0` per claim).
// Each measured claim takes a fresh task, so every run pushes a new claim ref (the create-if-absent lease).
// Used by bench/run.mjs; standalone: npm run build && node bench/claims.mjs [--runs N]

import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { paired } from './measure.mjs'

const here = dirname(fileURLToPath(import.meta.url))

/** Measure the claim; `work` is a scratch folder, `env` the environment every process gets. */
export function remoteClaim({ work, runs, env, bin = join(here, '..', 'build', 'dacli.js') }) {
  const genv = {
    ...env,
    GIT_AUTHOR_NAME: 'Bench',
    GIT_AUTHOR_EMAIL: 'bench@example.invalid',
    GIT_COMMITTER_NAME: 'Bench',
    GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  }
  const root = join(work, 'remote-claims')
  const cwd = join(root, 'clone')
  mkdirSync(cwd, { recursive: true })
  const git = (dir, ...a) => execFileSync('git', a, { cwd: dir, env: genv, stdio: 'pipe' })
  git(root, 'init', '-q', '--bare', '-b', 'main', 'remote.git')
  git(cwd, 'init', '-q', '-b', 'main')
  writeFileSync(join(cwd, 'README.md'), 'bench\n')
  git(cwd, 'add', 'README.md')
  git(cwd, 'commit', '-q', '-m', 'bench')
  git(cwd, 'remote', 'add', 'origin', join(root, 'remote.git'))
  git(cwd, 'push', '-q', 'origin', 'main')
  const dacli = (...a) => {
    const r = spawnSync(process.execPath, [bin, ...a], { cwd, env: genv, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`dacli ${a.join(' ')}: exit ${r.status}: ${r.stderr}`)
  }
  dacli('init')
  dacli('project', 'add', 'Claims', '--slug', 'claims')
  const warmup = 2
  for (let i = 1; i <= runs + warmup; i++)
    dacli('task', 'add', `Claimed over the remote ${i}`, '--project', 'claims', '--force', '--quiet')
  // Warm-ups get -1, -2 (the last tasks); measured runs 0.. take tasks 1..runs.
  return paired(
    (i) => [
      process.execPath,
      bin,
      'task',
      'claim',
      `claims/${i < 0 ? runs - i : i + 1}`,
      '--remote',
      'origin',
      '--quiet',
    ],
    {
      cwd,
      env: genv,
      runs,
      warmup,
      check: (r) => r.status === 0,
    },
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs')
  const runs = i === -1 ? 7 : Number(process.argv[i + 1])
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'dacli-bench-claims-')))
  const env = { ...process.env, NO_COLOR: '1' }
  delete env.DACLI_AGENT
  try {
    const m = remoteClaim({ work, runs, env })
    process.stdout.write(`${JSON.stringify({ name: 'task claim --remote (local bare remote)', target: 4, ...m })}\n`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
