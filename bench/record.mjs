// Benchmark of the git-backed record (quality.md: ratios to `node -e 0`, paired,
// median of at least 5 runs after a warm-up). Builds a workspace of 1,000 tasks
// across 10 projects in a temporary git repository, then measures:
//   - `record` after one task file changed (incremental);
//   - `task log <ref>` on a record branch with a few hundred commits.
// Usage: npm run build && node bench/record.mjs [--runs N] [--commits N]

import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const BIN = path.join(root, 'build', 'dacli.js')
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? def : Number(process.argv[i + 1])
}
const RUNS = arg('runs', 11)
const COMMITS = arg('commits', 300)
const TASKS = 1000
const PROJECTS = 10

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  NO_COLOR: '1',
}
delete env.DACLI_AGENT

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dacli-bench-record-')))
const git = (...a) => execFileSync('git', a, { cwd: dir, env, encoding: 'utf8' })
const dacli = (...a) => {
  const r = spawnSync(process.execPath, [BIN, ...a], { cwd: dir, env, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`dacli ${a.join(' ')}: exit ${r.status}\n${r.stderr}`)
  return r.stdout
}

git('init', '-q', '-b', 'main')
dacli('init', '--name', 'bench')
for (let p = 0; p < PROJECTS; p++) dacli('project', 'add', `Project ${p}`, '--slug', `p${p}`)
// One real task per project shows the file format; the rest are written from it.
const template = JSON.parse(dacli('task', 'add', 'Template task', '--project', 'p0', '--accept', 'works', '--json'))
const text = fs.readFileSync(path.join(dir, template.path), 'utf8')
fs.rmSync(path.join(dir, template.path))
let n = 0
for (let p = 0; p < PROJECTS; p++) {
  fs.mkdirSync(path.join(dir, '.dacli', 'projects', `p${p}`, 'tasks', 'open'), { recursive: true })
  for (let s = 1; s <= TASKS / PROJECTS; s++) {
    const id = `t-01J${String(n++).padStart(23, '0')}`
    const body = text.replace(/^id: .*$/m, `id: ${id}`).replace('# Template task', `# Task ${s} of p${p}`)
    fs.writeFileSync(
      path.join(dir, '.dacli', 'projects', `p${p}`, 'tasks', 'open', `${String(s).padStart(3, '0')}-task-${s}.md`),
      body,
    )
  }
}
dacli('record', '--message', 'bench: initial')

const ms = (f) => {
  const t = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - t) / 1e6
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
const floor = () => ms(() => spawnSync(process.execPath, ['-e', '0']))

function paired(name, prepare, run) {
  const base = []
  const cmd = []
  prepare(-1)
  run() // warm-up
  for (let i = 0; i < RUNS; i++) {
    prepare(i)
    base.push(floor())
    cmd.push(ms(run))
  }
  const ratios = base.map((b, i) => cmd[i] / b)
  const r = { name, floor_ms: median(base), median_ms: median(cmd), ratio: median(ratios) }
  console.log(
    `${r.name}: median ${r.median_ms.toFixed(1)} ms, floor ${r.floor_ms.toFixed(1)} ms, ratio ${r.ratio.toFixed(2)}×`,
  )
  return r
}

const target = path.join(dir, '.dacli', 'projects', 'p3', 'tasks', 'open', '042-task-42.md')
const touch = (i) => fs.appendFileSync(target, `- 2026-01-01T00:00:00Z a-root edited bench ${i}\n`)
const results = []
results.push(paired('record (1 file changed, 1,000 tasks)', touch, () => dacli('record')))

const historyWanted = !process.argv.includes('--only-record')
// History: COMMITS record commits, every tenth touching the measured task.
for (let i = 0; historyWanted && i < COMMITS; i++) {
  const p = i % PROJECTS
  const s = (i % 97) + 1
  const f =
    i % 10 === 0
      ? target
      : path.join(dir, '.dacli', 'projects', `p${p}`, 'tasks', 'open', `${String(s).padStart(3, '0')}-task-${s}.md`)
  fs.appendFileSync(f, `- 2026-01-01T00:00:00Z a-root edited history ${i}\n`)
  dacli('record', '--message', `bench ${i}`)
}
if (historyWanted)
  results.push(
    paired(
      `task log (record branch of ${COMMITS + RUNS + 2} commits)`,
      () => {},
      () => dacli('task', 'log', 'p3/42'),
    ),
  )

if (historyWanted) {
  const cache = path.join(dir, '.dacli', 'cache', 'history.json')
  results.push(
    paired(
      'task log, history cache deleted before each run',
      () => fs.rmSync(cache, { force: true }),
      () => dacli('task', 'log', 'p3/42'),
    ),
  )
}
if (process.argv.includes('--keep')) console.log(`kept ${dir}`)
else fs.rmSync(dir, { recursive: true, force: true })
