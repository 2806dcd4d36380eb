// `dacli watch` latency (loop.md: a change by any process appears within one second).
//
//   npm run build && node bench/watch-latency.mjs [--changes 40]
//
// Starts the built `dacli watch --jsonl` in a fresh workspace, then makes changes with separate `dacli`
// processes, one at a time, and times each from the moment the writing process exits to the moment its line
// arrives on the watcher's stdout. The line is appended before the writer exits, so this is how long a watcher
// takes to notice. Writes bench/results/watch-latency.{json,md}; exits 1 when the target is missed.

import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(root, 'build', 'dacli.js')
const i = process.argv.indexOf('--changes')
const CHANGES = i === -1 ? 40 : Number(process.argv[i + 1])
const TARGET_MS = 1000

const env = { ...process.env, NO_COLOR: '1' }
delete env.DACLI_AGENT
const dir = mkdtempSync(join(tmpdir(), 'dacli-watch-bench-'))
const run = (...args) => execFileSync(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: 'pipe' })
execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir })
run('init')
run('project', 'add', 'Bench', '--slug', 'bench')

const watcher = spawn(process.execPath, [BIN, 'watch', '--jsonl'], { cwd: dir, env })
let pending = null
let buf = ''
watcher.stdout.on('data', (d) => {
  buf += d
  let nl = buf.indexOf('\n')
  while (nl >= 0) {
    const line = buf.slice(0, nl)
    buf = buf.slice(nl + 1)
    if (pending !== null && JSON.parse(line).kind === 'task.created') pending(performance.now())
    nl = buf.indexOf('\n')
  }
})
await new Promise((resolve) => watcher.stderr.once('data', resolve)) // "watching … from …"

const samples = []
for (let n = 0; n < CHANGES; n++) {
  const arrived = new Promise((resolve) => {
    pending = resolve
  })
  run('task', 'add', `Bench task number ${n}`, '--project', 'bench', '--force')
  const written = performance.now()
  const at = await Promise.race([arrived, new Promise((r) => setTimeout(() => r(null), 10_000))])
  pending = null
  samples.push(at === null ? Number.POSITIVE_INFINITY : Math.max(0, at - written))
}
watcher.kill('SIGINT')
rmSync(dir, { recursive: true, force: true })

samples.sort((a, b) => a - b)
const q = (p) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]
const round = (x) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : null)
const result = {
  generated_at: new Date().toISOString(),
  node: process.version,
  changes: CHANGES,
  median_ms: round(q(0.5)),
  p95_ms: round(q(0.95)),
  max_ms: round(samples.at(-1)),
  target_ms: TARGET_MS,
  met: samples.at(-1) <= TARGET_MS,
}
const out = join(root, 'bench', 'results')
mkdirSync(out, { recursive: true })
writeFileSync(join(out, 'watch-latency.json'), `${JSON.stringify(result, null, 2)}\n`)
writeFileSync(
  join(out, 'watch-latency.md'),
  [
    `# watch latency (${CHANGES} changes, each by its own process, ${process.version})`,
    '',
    `From the writing process's exit to the line on \`dacli watch --jsonl\`'s stdout: median **${result.median_ms} ms**, p95 **${result.p95_ms} ms**, max **${result.max_ms} ms** (target: every change within ${TARGET_MS} ms): ${result.met ? 'pass' : 'MISSED'}.`,
    '',
    'The watcher polls the change journal every 200 ms, so the expected figure is about half of that plus a read.',
    '',
  ].join('\n'),
)
process.stderr.write(`watch latency: median ${result.median_ms} ms, p95 ${result.p95_ms} ms, max ${result.max_ms} ms\n`)
process.exitCode = result.met ? 0 : 1
