// `npm run bench`: the scenarios of quality.md on generated workspaces of 1,000 and 10,000 tasks (and a
// 50,000-task growth point), every figure a paired ratio to `node -e 0`; the whole suite runs three times in a
// row so the report shows the spread, and the latest run decides the targets. Peers where they install, and the
// MCP server's latency and memory. Writes bench/results/latest.{md,json}.
//
// Options (environment): BENCH_REPEAT (whole-suite runs, default 3), BENCH_RUNS (runs per scenario, default 7),
// BENCH_ADDS (the task add series, default 1000), BENCH_SIZES (default 1k,10k,100k), BENCH_PEERS=0 to skip
// peers, BENCH_GITHUB=0 to skip the github scenarios, BENCH_MCP=0 to skip the MCP figures, BENCH_QUICK=1 for a
// fast smoke run (one run of 1k). BENCH_MERGE=1 keeps, from the previous latest.json, what this run did not
// measure (other sizes such as the 100k growth point, the peers, the MCP figures), each marked with its run's date.
// BENCH_ONLY=sync runs only the `record sync` rows and the visibility figure (bench/sync.mjs), keeping every
// other figure from the previous latest.json as BENCH_MERGE=1 does (BENCH_ONLY=core: everything but those).
// `node bench/run.mjs --report` re-renders latest.md from latest.json.

import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startFakeGitHub } from './fakegh.mjs'
import { generate } from './generate.mjs'
import { median, paired, runOnce } from './measure.mjs'
import { benchPeers } from './peers.mjs'
import { analysisOf, report } from './report.mjs'
import { BENCH_REPO, editedFile, SIZES, scenariosOf, someRef, targetOf } from './scenarios.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
// DACLI_BENCH_BIN: a copy of the build to measure (so a rebuild meanwhile does not change what is measured).
const BIN = process.env.DACLI_BENCH_BIN ?? join(root, 'build', 'dacli.js')
const results = join(here, 'results')
if (process.argv.includes('--report')) {
  writeFileSync(
    join(results, 'latest.md'),
    report(JSON.parse(readFileSync(join(results, 'latest.json'), 'utf8')), analysisOf(results)),
  )
  process.exit(0)
}

const quick = process.env.BENCH_QUICK === '1'
const RUNS = Number(process.env.BENCH_RUNS ?? (quick ? 3 : 7))
const REPEAT = Number(process.env.BENCH_REPEAT ?? (quick ? 1 : 3))
const ADDS = Number(process.env.BENCH_ADDS ?? (quick ? 50 : 1000))
const SIZE_NAMES = (process.env.BENCH_SIZES ?? (quick ? '1k' : '1k,10k,100k')).split(',').filter((z) => SIZES[z])
/** The groups of figures this run takes: `core` (everything that is not `sync`) and `sync` (bench/sync.mjs). */
const ONLY = process.env.BENCH_ONLY?.split(',').filter((g) => g !== '') ?? null
const wants = (group) => ONLY === null || ONLY.includes(group)
const CORE = wants('core')
const GITHUB = process.env.BENCH_GITHUB !== '0' && CORE
const env = { ...process.env, NO_COLOR: '1' }
delete env.DACLI_AGENT
const dacli = (...args) => [process.execPath, BIN, ...args]
const ok = (r) => r.status === 0
const work = realpathSync(mkdtempSync(join(tmpdir(), 'dacli-bench-')))
const log = (m) => process.stderr.write(`${m}\n`)
const round = (n, d = 1) => (n === null || Number.isNaN(n) ? null : Math.round(n * 10 ** d) / 10 ** d)

const out = {
  generated_at: new Date().toISOString(),
  // The load average (1, 5, 15 min) when the run started and ended: a busy machine inflates the floor, and the
  // ratios of long commands more than those of short ones.
  machine: { cpus: cpus().length, node: process.version, load_start: loadavg().map((l) => round(l, 2)) },
  runs: RUNS,
  repeats: REPEAT,
  scenarios: [],
  growth: [],
  peers: [],
  mcp: null,
}

/** Record one measurement of a scenario; the latest one decides its target. */
function record(name, size, m, probe) {
  let s = out.scenarios.find((x) => x.name === name && x.size === size)
  if (s === undefined) {
    s = { name, size, target: targetOf(name, size), each: [] }
    out.scenarios.push(s)
  }
  s.each.push(m)
  Object.assign(s, m, { met: m.ratio !== null && s.target !== null ? m.ratio <= s.target : null })
  if (probe) probes.set(s, probe)
  log(
    `  ${name} [${size}]: ${m.ratio}×${s.target === null ? '' : ` (≤ ${s.target}×)`} — ${m.median_ms} ms vs ${m.floor_ms} ms${s.met === false ? '  ✗' : ''}`,
  )
}
/** How to run a scenario again (to trace a missed target). */
const probes = new Map()

// ------------------------------------------------------------------ workspaces

const ws = {}
const gh = {}
for (const size of CORE ? SIZE_NAMES : []) {
  const s = SIZES[size]
  ws[size] = join(work, size)
  log(`generating ${s.tasks} tasks in ${s.projects} projects`)
  generate(ws[size], s)
  if (GITHUB) {
    // One project holding every task of the size, linked to the fake's repository.
    gh[size] = join(work, `gh-${size}`)
    generate(gh[size], { projects: 1, tasksPerProject: s.tasks, notes: 0, events: 0, githubRepo: BENCH_REPO })
  }
  runOnce(dacli('task', 'list', '--json'), { cwd: ws[size], env }) // a user's first command warms the caches
}
const fake = GITHUB ? await startFakeGitHub(work, BENCH_REPO) : null
const ghEnv = fake === null ? null : { ...env, ...fake.env }

// ------------------------------------------------------------------ one run of the suite

function measureSize(size, runs) {
  for (const sc of scenariosOf(size, dacli)) {
    if (sc.on === 'gh' && ghEnv === null) continue
    const cwd = sc.on === 'gh' ? gh[size] : ws[size]
    const e = sc.on === 'gh' ? ghEnv : env
    const setup =
      sc.kind === 'cold'
        ? () => rmSync(join(cwd, '.dacli', 'cache'), { recursive: true, force: true })
        : sc.kind === 'edited'
          ? () => edit(editedFile(cwd, size))
          : undefined
    const m = paired(sc.argv, { cwd, env: e, runs, setup, check: ok })
    record(sc.name, size, m, { argv: sc.argv, cwd, env: e, setup })
  }
}

/**
 * Change a task file by hand, as an editor saves it: rewritten in place with its own bytes, so its modification and
 * change times move (now: racily fresh, so it is parsed on every read until it settles) and its index entry no
 * longer matches.
 */
function edit(file) {
  writeFileSync(file, readFileSync(file))
}

function addSeries() {
  const cwd = join(work, `adds-${Date.now()}`)
  generate(cwd, { projects: 1, tasksPerProject: 0, notes: 0, events: 0 })
  const walls = []
  const floors = []
  for (let i = 0; i < ADDS; i++) {
    if (i % 10 === 0) floors.push(runOnce([process.execPath, '-e', '0'], { cwd, env, time: false }).wall)
    const r = runOnce(
      dacli('task', 'add', `Item ${i} of the series`, '--project', 'proj000', '--force', '--accept', 'done', '--quiet'),
      { cwd, env, time: false },
    )
    if (r.status !== 0) throw new Error(`task add failed: ${r.stderr}`)
    walls.push(r.wall)
  }
  const m = {
    runs: ADDS,
    floor_ms: round(median(floors)),
    median_ms: round(median(walls)),
    ratio: round(median(walls) / median(floors), 2),
    cpu_ratio: null,
    peak_rss_kib: null,
  }
  const argv = dacli('task', 'add', 'Traced item', '--project', 'proj000', '--force', '--accept', 'done', '--quiet')
  record('task add (one process per task, in a row)', `0→${ADDS}`, m, { argv, cwd, env })
}

/** task claim while 7 other processes claim other tasks (a fresh 1k workspace each run: claims change it). */
async function claimRace() {
  const cwd = join(work, `claims-${Date.now()}`)
  generate(cwd, SIZES['1k'])
  const stop = { done: false }
  const loops = []
  for (let p = 1; p <= 7; p++) {
    loops.push(
      (async () => {
        let seq = 1
        while (!stop.done) {
          const ref = `proj00${p}/${String(seq++).padStart(3, '0')}`
          await new Promise((res) =>
            spawn(process.execPath, [BIN, 'task', 'claim', ref, '--quiet'], { cwd, env, stdio: 'ignore' }).on(
              'close',
              res,
            ),
          )
          if (seq > 99) seq = 1
        }
      })(),
    )
  }
  // The measured claims take fresh tasks of a project the other processes do not touch; every fifth is done.
  const claimOf = (i) =>
    dacli('task', 'claim', `proj009/${String(i < 0 ? 90 - i : i + 1 + Math.floor(i / 4)).padStart(3, '0')}`, '--quiet')
  const m = paired(claimOf, { cwd, env, runs: RUNS, check: ok })
  stop.done = true
  await Promise.all(loops)
  record('task claim (7 other processes claiming)', '1k', m)
  rmSync(cwd, { recursive: true, force: true })
}

/**
 * task claim, task check and task done at 10,000 tasks, one process each (quality.md): each series takes fresh open
 * tasks of one project (not the one the edited scenarios read), the same ones in the same order, so every check
 * follows its claim and every done its check.
 */
function lifecycle(size) {
  const cwd = ws[size]
  const open = join(cwd, '.dacli', 'projects', 'proj007', 'tasks', 'open')
  const picks = readdirSync(open)
    .filter((n) => /^\d{3,}-/.test(n))
    .slice(0, RUNS + 2)
    .map((n) => `proj007/${n.split('-')[0]}`)
  if (picks.length < RUNS + 2) throw new Error(`lifecycle: ${picks.length} open tasks left in proj007`)
  // Warm-ups are runs -1 and -2: the last two picks.
  const refOf = (i) => picks[i < 0 ? RUNS - 1 - i : i]
  const steps = [
    ['task claim (one process)', (r) => dacli('task', 'claim', r, '--quiet')],
    ['task check (one process)', (r) => dacli('task', 'check', r, '--all', '--quiet')],
    ['task done (one process)', (r) => dacli('task', 'done', r, '--quiet')],
  ]
  for (const [name, argv] of steps) {
    const m = paired((i) => argv(refOf(i)), { cwd, env, runs: RUNS, check: ok })
    record(name, size, m, { argv: argv(picks[0]), cwd, env })
  }
}

const measured = SIZE_NAMES.filter((z) => z !== '100k')
const { syncPair, syncScenarios, syncVisibility } = await import('./sync.mjs')
/** The clone pairs of the `record sync` rows, one a size, made once (bench/sync.mjs). */
const pairs = {}
for (let rep = 1; rep <= REPEAT; rep++) {
  log(`run ${rep} of ${REPEAT}`)
  if (wants('sync')) {
    for (const size of measured) {
      pairs[size] ??= syncPair({ work, size, env, bin: BIN })
      for (const { name, m } of syncScenarios({ work, size, runs: RUNS, env, bin: BIN, pair: pairs[size] }))
        record(name, size, m)
    }
  }
  if (!CORE) continue
  const first = ws[measured[0]]
  record('dacli --version', '-', paired(dacli('--version'), { cwd: first, env, runs: RUNS, check: ok }), {
    argv: dacli('--version'),
    cwd: first,
    env,
  })
  record('dacli help', '-', paired(dacli('help'), { cwd: first, env, runs: RUNS, check: ok }), {
    argv: dacli('help'),
    cwd: first,
    env,
  })
  for (const size of measured) measureSize(size, RUNS)
  if (ws['10k']) lifecycle('10k')
  addSeries()
  if (SIZES['1k'] && measured.includes('1k')) await claimRace()
  // task claim --remote against a local bare remote (coordination.md; the scenario lives in bench/claims.mjs).
  const { remoteClaim } = await import('./claims.mjs')
  record(
    'task claim --remote (local bare remote)',
    '-',
    remoteClaim({ work: join(work, `run-${rep}`), runs: RUNS, env, bin: BIN }),
  )
}
// A claim in one clone visible to `task show` in another, both running `record sync --watch 1s` (issue 29: ≤ 5 s).
if (wants('sync') && measured.length > 0) {
  try {
    out.sync_visibility = await syncVisibility({ pair: pairs[measured[0]], trials: quick ? 3 : 5, bin: BIN })
    out.sync_visibility.size = measured[0]
    log(`  claim visible in the other clone: ${JSON.stringify(out.sync_visibility)}`)
  } catch (e) {
    out.sync_visibility = { error: (e instanceof Error ? e.message : String(e)).split('\n')[0] }
  }
}
if (ws['100k']) {
  log('growth point: 100,000 tasks')
  measureSize('100k', Math.max(3, Math.min(RUNS, 5)))
}
fake?.stop()

// ------------------------------------------------------------------ growth

out.machine.load_end = loadavg().map((l) => round(l, 2))

// Figures this run did not take come from the previous report, marked with the date of the run that took them.
const previous = process.env.BENCH_MERGE === '1' || ONLY !== null ? readPrevious() : null
if (previous !== null) {
  for (const s of previous.scenarios ?? []) {
    if (out.scenarios.some((x) => x.name === s.name && x.size === s.size)) continue
    out.scenarios.push({ ...s, from: s.from ?? previous.generated_at })
  }
  for (const key of ['sync_visibility', 'servers', 'pull']) {
    if (out[key] === undefined && previous[key] !== undefined && previous[key] !== null)
      out[key] = { ...previous[key], from: previous[key].from ?? previous.generated_at }
  }
}

/** The previous latest.json, or null when there is none to keep figures from. */
function readPrevious() {
  try {
    return JSON.parse(readFileSync(join(results, 'latest.json'), 'utf8'))
  } catch {
    return null
  }
}

for (const name of new Set(out.scenarios.filter((s) => s.size === '10k').map((s) => s.name))) {
  const work_ms = {}
  for (const size of ['1k', '10k', '100k']) {
    const s = out.scenarios.find((x) => x.name === name && x.size === size)
    if (s) work_ms[size] = round(Math.max(0, s.median_ms - s.floor_ms))
  }
  const g10 = work_ms['1k'] > 0 && work_ms['10k'] !== undefined ? round(work_ms['10k'] / work_ms['1k'], 1) : null
  const g100 = work_ms['10k'] > 0 && work_ms['100k'] !== undefined ? round(work_ms['100k'] / work_ms['10k'], 1) : null
  // Worse than linear: more than 1.5 times the linear factor (×10 at each step) at either step.
  const verdict =
    (g10 !== null && g10 > 15) || (g100 !== null && g100 > 15)
      ? '**worse than linear**'
      : g10 === null
        ? '—'
        : 'linear or better'
  out.growth.push({ name, work_ms, g10, g100, verdict })
}

// ------------------------------------------------------------------ missed targets: where the time goes

for (const s of out.scenarios) {
  const probe = probes.get(s)
  if (s.met !== false || probe === undefined) continue
  probe.setup?.()
  const traced = spawnSync(probe.argv[0], probe.argv.slice(1), {
    cwd: probe.cwd,
    env: { ...probe.env, NODE_DEBUG: 'module' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
  // The chunks of the bundle it loads, as Node names them (NODE_DEBUG=module), then the same chunks required with
  // no command run (our modules do no work when loaded): what is left of the ratio is the command's own work.
  const chunks = [
    ...new Set((traced.stderr ?? '').match(/(?<=MODULE \d+: load ")[^"]*[\\/]chunks[\\/][^"]+(?=")/g) ?? []),
  ]
  const dir = join(work, `chunks-${Date.now()}`)
  mkdirSync(dir, { recursive: true })
  const loader = join(dir, 'load.cjs')
  writeFileSync(
    loader,
    `for (const f of ${JSON.stringify(chunks.filter((c) => !c.endsWith('/main.js')))}) require(f)\n`,
  )
  const loaded = paired([process.execPath, loader], { cwd: dir, env, runs: RUNS, check: ok })
  const growth = out.growth.find((g) => g.name === s.name)
  s.diagnosis = {
    chunks: chunks.length,
    chunks_loaded_ratio: loaded.ratio,
    work_ratio: round(s.ratio - loaded.ratio + 1, 2),
    work_growth_1k_to_10k: growth?.g10 ?? null,
    profile: profileTop(probe),
  }
  log(`  missed: ${s.name} [${s.size}] loads ${chunks.length} chunks; loading them alone measures ${loaded.ratio}×`)
}

/** The functions with the most self time in one profiled run (share of the profile, in percent). */
function profileTop(probe) {
  const dir = join(work, `prof-${Date.now()}`)
  probe.setup?.()
  spawnSync(probe.argv[0], ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...probe.argv.slice(1)], {
    cwd: probe.cwd,
    env: probe.env,
    maxBuffer: 256 * 1024 * 1024,
  })
  try {
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
    const p = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    const self = new Map()
    const dt = new Map()
    for (const [i, id] of p.samples.entries()) dt.set(id, (dt.get(id) ?? 0) + (p.timeDeltas[i] ?? 0))
    for (const n of p.nodes) {
      const name = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop() || 'native'})`
      self.set(name, (self.get(name) ?? 0) + (dt.get(n.id) ?? 0))
    }
    const total = [...self.values()].reduce((a, b) => a + b, 0)
    return [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([name, t]) => ({ name, share: round((100 * t) / total, 0) }))
  } catch {
    return []
  }
}

// ------------------------------------------------------------------ MCP and peers

if (process.env.BENCH_MCP !== '0' && CORE) {
  try {
    out.mcp = await mcpFigures()
  } catch (e) {
    out.mcp = { error: (e instanceof Error ? e.message : String(e)).split('\n')[0] }
  }
} else if (previous?.mcp) out.mcp = { ...previous.mcp, from: previous.mcp.from ?? previous.generated_at }
// The long-lived servers at 10,000 tasks, each call right after another process edited a task (bench/servers.mjs).
if (process.env.BENCH_SERVERS !== '0' && CORE && ws['10k']) {
  const { mcpAfterEdits, boardAfterEdits } = await import('./servers.mjs')
  out.servers = {}
  for (const [key, f] of [
    ['mcp', () => mcpAfterEdits({ bin: BIN, cwd: ws['10k'], env, calls: quick ? 60 : 300 })],
    ['board', () => boardAfterEdits({ bin: BIN, cwd: ws['10k'], env, edits: quick ? 5 : 15 })],
  ]) {
    try {
      out.servers[key] = await f()
      log(`  ${key} after edits: ${JSON.stringify(out.servers[key])}`)
    } catch (e) {
      out.servers[key] = { error: (e instanceof Error ? e.message : String(e)).split('\n')[0] }
    }
  }
}

// github pull a second time against a repository of 50,000 issues with nothing changed: the requests it makes.
if (GITHUB && process.env.BENCH_PULL !== '0') {
  try {
    out.pull = await pullFigures(quick ? 5_000 : 50_000)
    log(`  github pull: ${JSON.stringify(out.pull)}`)
  } catch (e) {
    out.pull = { error: (e instanceof Error ? e.message : String(e)).split('\n')[0] }
  }
}

async function pullFigures(issues) {
  const repo = 'bench/tracker'
  const gh = await startFakeGitHub(join(work, 'pull'), repo, { issues })
  const cwd = join(work, 'pull-ws')
  generate(cwd, { projects: 1, tasksPerProject: 0, notes: 0, events: 0, githubRepo: repo })
  const e = { ...env, ...gh.env }
  const pull = () => {
    const t0 = performance.now()
    const r = runOnce(dacli('github', 'pull', 'proj000', '--dry-run', '--json', '--limit', '10'), {
      cwd,
      env: e,
      time: false,
    })
    if (r.status !== 0) throw new Error(`github pull: ${r.stderr.slice(0, 300)}`)
    return { ms: round(performance.now() - t0), plan: JSON.parse(r.stdout) }
  }
  try {
    await gh.requests()
    const first = pull()
    const firstRequests = await gh.requests()
    const second = pull()
    const secondRequests = await gh.requests()
    await gh.touch(3)
    const third = pull()
    const thirdRequests = await gh.requests()
    return {
      issues,
      first: { requests: firstRequests, ms: first.ms },
      second: {
        requests: secondRequests,
        ms: second.ms,
        same_plan: JSON.stringify(second.plan) === JSON.stringify(first.plan),
      },
      after_three_changed: { requests: thirdRequests, ms: third.ms },
      target_requests: 3,
      met: secondRequests <= 3,
    }
  } finally {
    gh.stop()
  }
}

if (process.env.BENCH_PEERS !== '0' && !quick && CORE) {
  out.peers = await benchPeers({ work, runs: Math.max(3, Math.min(RUNS, 5)), dacliBin: BIN, env })
} else if (previous?.peers?.length > 0) {
  out.peers = previous.peers.map((p) => ({ ...p, from: p.from ?? previous.generated_at }))
}

/** Latency from bench/mcp-latency.mjs (1,000 tasks, 1,000 calls); resident memory of a warm server per workspace. */
async function mcpFigures() {
  const calls = quick ? 200 : 1000
  const r = spawnSync(process.execPath, [join(here, 'mcp-latency.mjs'), '--tasks', '1000', '--calls', String(calls)], {
    env,
    encoding: 'utf8',
    timeout: 1_800_000,
  })
  if (r.status === null) throw new Error('bench/mcp-latency.mjs did not finish')
  const latency = JSON.parse(readFileSync(join(results, 'mcp-latency.json'), 'utf8'))
  const { serverMemory } = await import('./mcp-memory.mjs')
  const memory = []
  for (const size of measured) {
    const m = await serverMemory({ bin: BIN, cwd: ws[size], env, ref: someRef(size) })
    memory.push({ size, ...m, target_mb: size === '10k' ? 150 : null })
  }
  return {
    latency: {
      calls: latency.all.calls,
      median_ms: latency.all.median_ms,
      p99_ms: latency.all.p99_ms,
      pass: latency.pass,
      writes: latency.writes,
    },
    memory,
  }
}

// ------------------------------------------------------------------ report

mkdirSync(results, { recursive: true })
writeFileSync(join(results, 'latest.json'), `${JSON.stringify(out, null, 2)}\n`)
writeFileSync(join(results, 'latest.md'), report(out, analysisOf(results)))
rmSync(work, { recursive: true, force: true })
log('wrote bench/results/latest.md and latest.json')
