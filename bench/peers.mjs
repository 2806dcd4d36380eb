// Peers measured side by side with dacli, in the same run, on equivalent data:
// each tool gets SEED tasks created through its own CLI, then the same operations
// (create, list, show, status change, ready/next) are timed as paired ratios to
// `node -e 0`. A peer that cannot install here is reported as such.

import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { paired, runOnce } from './measure.mjs'

const SEED = 50

/** How each tool does the five operations; `i` is the run number (negative for warm-ups). */
const PEERS = [
  {
    name: 'Backlog.md',
    pkg: 'backlog.md',
    bin: 'backlog',
    init: (b) => [
      [b, 'init', 'bench', '--defaults'],
      [b, 'config', 'set', 'remoteOperations', 'false'],
    ],
    ops: (b) => ({
      create: (i) => [b, 'task', 'create', `Bench item ${i}`, '--plain'],
      list: () => [b, 'task', 'list', '--plain'],
      show: () => [b, 'task', 'view', '1', '--plain'],
      status: (i) => [b, 'task', 'edit', '1', '-s', i % 2 ? 'In Progress' : 'To Do', '--plain'],
      next: null,
    }),
    note: 'no ready/next command',
  },
  {
    name: 'Task Master',
    pkg: 'task-master-ai',
    bin: 'task-master',
    init: (b) => [[b, 'init', '-y']],
    prepare: (dir) => {
      mkdirSync(join(dir, '.taskmaster', 'tasks'), { recursive: true })
      writeFileSync(
        join(dir, '.taskmaster', 'tasks', 'tasks.json'),
        JSON.stringify({ master: { tasks: [], metadata: { description: 'bench' } } }),
      )
    },
    ops: (b) => ({
      create: (i) => [b, 'add-task', '--title', `Bench item ${i}`, '--description', 'bench'],
      list: () => [b, 'list'],
      show: () => [b, 'show', '1'],
      status: (i) => [b, 'set-status', '--id=1', `--status=${i % 2 ? 'in-progress' : 'pending'}`],
      next: () => [b, 'next'],
    }),
  },
  {
    name: 'beads',
    pkg: '@beads/bd',
    bin: 'bd',
    init: (b) => [[b, 'init']],
    ops: (b) => ({
      create: (i) => [b, 'create', `Bench item ${i}`],
      list: () => [b, 'list'],
      show: () => [b, 'show', 'bench-1'],
      status: (i) => [b, 'update', 'bench-1', '--status', i % 2 ? 'in_progress' : 'open'],
      next: () => [b, 'ready'],
    }),
  },
]

function dacliPeer(dacliBin) {
  const d = (...a) => [process.execPath, dacliBin, ...a]
  return {
    name: 'dacli',
    init: () => [d('init'), d('project', 'add', 'Bench', '--slug', 'bench')],
    seed: (i) => d('task', 'add', `Bench item ${i}`, '--project', 'bench', '--force', '--accept', 'done', '--quiet'),
    ops: () => ({
      create: (i) =>
        d('task', 'add', `Bench item extra ${i}`, '--project', 'bench', '--force', '--accept', 'done', '--quiet'),
      list: () => d('task', 'list'),
      show: () => d('task', 'show', 'bench/1'),
      status: (i) => d('task', i % 2 ? 'block' : 'unblock', 'bench/1'),
      next: () => d('next'),
    }),
  }
}

function install(peer, dir) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{"name":"peer-bench","version":"1.0.0","private":true}')
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', peer.pkg], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (r.status !== 0) {
    // npm's own error lines say little; the package's install script usually says what it tried (a download …).
    const lines = `${r.stdout}\n${r.stderr}`.split('\n').map((l) => l.replace(/^npm (error|warn)\s*/, '').trim())
    const telling = lines.filter((l) =>
      /download|fetch|Installing|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|403|404|not found|unsupported/i.test(l),
    )
    const why = (telling.length > 0 ? telling : lines.filter((l) => /error/i.test(l))).slice(0, 4).join(' / ')
    return { ok: false, why: `npm install ${peer.pkg} failed here: ${why.slice(0, 300) || `exit ${r.status}`}` }
  }
  return { ok: true, bin: join(dir, 'node_modules', '.bin', peer.bin) }
}

function measureTool(tool, cwd, env, runs) {
  const ratios = {}
  const errors = []
  for (const [op, argv] of Object.entries(tool.ops)) {
    if (argv === null) {
      ratios[op] = null
      continue
    }
    try {
      ratios[op] = paired(argv, { cwd, env, runs, warmup: 1, check: (r) => r.status === 0 }).ratio
    } catch (e) {
      ratios[op] = null
      errors.push(`${op}: ${(e instanceof Error ? e.message : String(e)).slice(0, 160)}`)
    }
  }
  return { ratios, errors }
}

export async function benchPeers({ work, runs, dacliBin, env }) {
  const out = []
  const base = join(work, 'peers')
  // dacli first, on the same small data the peers get.
  {
    const cwd = join(base, 'dacli-data')
    mkdirSync(cwd, { recursive: true })
    spawnSync('git', ['init', '-q'], { cwd })
    const d = dacliPeer(dacliBin)
    for (const c of d.init()) runOnce(c, { cwd, env, time: false })
    for (let i = 0; i < SEED; i++) runOnce(d.seed(i), { cwd, env, time: false })
    const m = measureTool({ ops: d.ops() }, cwd, env, runs)
    out.push({ name: 'dacli', version: null, ratios: m.ratios, note: m.errors.join('; ') || `${SEED} tasks` })
  }
  for (const peer of PEERS) {
    const inst = install(peer, join(base, 'install', peer.bin))
    if (!inst.ok) {
      out.push({ name: peer.name, ratios: null, note: `not measured: ${inst.why}` })
      continue
    }
    const cwd = join(base, `${peer.bin}-data`)
    mkdirSync(cwd, { recursive: true })
    spawnSync('git', ['init', '-q'], { cwd })
    const penv = { ...env, CI: '1' }
    for (const c of peer.init(inst.bin)) runOnce(c, { cwd, env: penv, time: false })
    peer.prepare?.(cwd)
    const ops = peer.ops(inst.bin)
    let seeded = 0
    for (let i = 0; i < SEED; i++)
      if (runOnce(ops.create(-100 - i), { cwd, env: penv, time: false }).status === 0) seeded++
    const m = measureTool({ ops }, cwd, penv, runs)
    const notes = [
      peer.note,
      seeded < SEED ? `only ${seeded}/${SEED} seed tasks were created` : `${SEED} tasks`,
      ...m.errors,
    ].filter(Boolean)
    out.push({ name: peer.name, ratios: m.ratios, note: notes.join('; ') })
  }
  return out
}
