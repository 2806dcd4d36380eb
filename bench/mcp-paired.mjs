// Paired MCP after-edit comparison, robust to load (the method of bench/results/2026-12-02-speed.md): one or more
// `dacli mcp serve` processes (built copies of dacli, e.g. before and after a change) on one workspace; every round
// another process's `dacli task edit` changes a task of the project the next call reads, then the same call goes to
// each server in alternating order. Per call: the server's on-CPU time (/proc/<pid>/schedstat, which load disturbs far
// less than wall time) and the wall time at the client.
//
//   node bench/mcp-paired.mjs <workspace> <rounds> <label=path/to/dacli.js> [<label=path/to/dacli.js> …]
//
// The workspace must be generated beforehand (bench/generate.mjs) and its caches warm. Prints a JSON report per build:
// CPU and wall per call (median / p99) overall and by tool, and each server's resident memory after the calls.

import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const [cwd, roundsArg, ...builds] = process.argv.slice(2)
const rounds = Number(roundsArg)
const env = { ...process.env, NO_COLOR: '1' }
delete env.DACLI_AGENT
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
const r2 = (n) => Math.round(n * 100) / 100
/** The process's on-CPU time so far, in ms (all its threads: the main one does the work). */
function cpuMs(pid) {
  let ns = 0
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0])
  }
  return ns / 1e6
}
function rss(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1])
  return { rss_mb: r2(kb('VmRSS') / 1024), peak_mb: r2(kb('VmHWM') / 1024) }
}
const RUN = Date.now().toString(36)
const projects = readdirSync(`${cwd}/.dacli/projects`).sort()
const ref = (i) => `${projects[i % projects.length]}/${String((i % 97) + 1).padStart(3, '0')}`
const mix = (process.env.MIX ?? 'show_task,next_tasks,list_tasks,whoami,status,get_context').split(',')
const argsOf = {
  show_task: (i) => ({ ref: ref(i) }),
  next_tasks: (i) => ({ project: projects[i % projects.length] }),
  list_tasks: (i) => ({ project: projects[i % projects.length], status: ['open'], limit: 20 }),
  whoami: () => ({}),
  status: () => ({}),
  get_context: (i) => ({ ref: ref(i), budget: 2000 }),
  critical_path: (i) => ({ project: projects[i % projects.length] }),
}
const bin0 = builds[0].split('=')[1]
function editIn(i) {
  const target = `${projects[i % projects.length]}/${String(((i + 1) % 97) + 1).padStart(3, '0')}`
  const r = spawnSync(process.execPath, [bin0, 'task', 'edit', target, '--title', `Paired ${i} ${RUN}`], {
    cwd,
    env,
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`task edit ${target}: ${r.stderr}`)
}
const servers = []
for (const b of builds) {
  const [label, bin] = b.split('=')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(process.env.DACLI_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), bin, 'mcp', 'serve', '--quiet'],
    cwd,
    env,
    stderr: 'inherit',
  })
  const client = new Client({ name: 'paired', version: '0' })
  await client.connect(transport)
  servers.push({ label, client, pid: transport.pid, samples: [] })
}
const call = async (s, name, args) => {
  const c0 = cpuMs(s.pid)
  const t0 = performance.now()
  const r = await s.client.callTool({ name, arguments: { schema_version: 1, ...args } })
  const wall = performance.now() - t0
  const cpu = cpuMs(s.pid) - c0
  if (r.isError) throw new Error(`${s.label} ${name} ${JSON.stringify(args)}: ${r.content[0]?.text}`)
  return { name, cpu, wall }
}
// Warm-up: every tool on every project, twice.
for (let i = 0; i < mix.length * projects.length; i++) {
  for (const s of servers) await call(s, mix[i % mix.length], argsOf[mix[i % mix.length]](i))
}
for (let i = 0; i < rounds; i++) {
  if (process.env.NOEDIT !== '1') editIn(i)
  const name = mix[i % mix.length]
  const order = i % 2 === 0 ? servers : [...servers].reverse()
  for (const s of order) s.samples.push(await call(s, name, argsOf[name](i)))
}
const out = {}
for (const s of servers) {
  const by = {}
  for (const name of mix) {
    const xs = s.samples.filter((x) => x.name === name)
    by[name] = {
      cpu: [
        r2(
          q(
            xs.map((x) => x.cpu),
            50,
          ),
        ),
        r2(
          q(
            xs.map((x) => x.cpu),
            99,
          ),
        ),
      ],
      wall: [
        r2(
          q(
            xs.map((x) => x.wall),
            50,
          ),
        ),
        r2(
          q(
            xs.map((x) => x.wall),
            99,
          ),
        ),
      ],
    }
  }
  out[s.label] = {
    cpu: [
      r2(
        q(
          s.samples.map((x) => x.cpu),
          50,
        ),
      ),
      r2(
        q(
          s.samples.map((x) => x.cpu),
          99,
        ),
      ),
    ],
    wall: [
      r2(
        q(
          s.samples.map((x) => x.wall),
          50,
        ),
      ),
      r2(
        q(
          s.samples.map((x) => x.wall),
          99,
        ),
      ),
    ],
    ...rss(s.pid),
    by,
  }
  await s.client.close()
}
if (process.argv.includes('--json')) console.log(JSON.stringify({ rounds, out }))
console.log(
  `${rounds} rounds, load ${(await import('node:os'))
    .loadavg()
    .map((x) => r2(x))
    .join(' / ')}`,
)
console.log(['build', 'what', 'cpu median', 'cpu p99', 'wall median', 'wall p99'].join('\t'))
for (const [label, o] of Object.entries(out)) {
  console.log([label, `all (rss ${o.rss_mb} MB, peak ${o.peak_mb})`, ...o.cpu, ...o.wall].join('\t'))
  for (const [name, x] of Object.entries(o.by)) console.log([label, name, ...x.cpu, ...x.wall].join('\t'))
}
