// The long-lived servers on a benchmark workspace, each call right after another process edited a task (quality.md:
// "MCP at 10k, a tool call right after another process edited a task"; "board at 10k: a change visible on the
// page"). Used by bench/run.mjs; run alone with `node bench/servers.mjs <workspace> [calls]`.
//
//   mcpAfterEdits({ bin, cwd, env, calls })  the built `dacli mcp serve` spoken to by the SDK's own client over
//       stdio; before every timed call a `dacli task edit` in another process changes one task (its title), then one
//       call of the judged mix is timed from the client's side (request out, result parsed). Median, p99, and the
//       server's resident memory (VmRSS, and its peak VmHWM) read from /proc after the calls; then the floor: an MCP
//       ping after each of a quarter as many edits (the transport and the SDK on both sides, no dacli code); then a
//       control: a quarter as many calls of the same mix, each after a pause as long as the median edit took and no
//       edit at all (what the calls cost when the machine has idled as long, with nothing in the workspace changed).
//   boardAfterEdits({ bin, cwd, env, edits })  `dacli board`: the first page over HTTP from a warm server, then for
//       each edit by another process, the time from the edit's end until the page can show it: the change event
//       on the page's event stream, and the page's fetch of that project's task list returning the new title.

import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d

function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN)
    return { rss_mb: round(kb('VmRSS') / 1024), peak_mb: round(kb('VmHWM') / 1024) }
  } catch {
    return { rss_mb: null, peak_mb: null }
  }
}

/** This run's mark in the titles it writes: a second run on the same workspace must change the bytes too. */
const RUN = Date.now().toString(36)

/** Edit task `ref` in another process (its title, so the file's bytes change; a title it already has is no edit). */
function editIn(bin, cwd, env, ref, n) {
  const t0 = performance.now()
  const r = spawnSync(
    process.execPath,
    [bin, 'task', 'edit', ref, '--title', `Edited ${n} by another process ${RUN}`],
    {
      cwd,
      env,
      encoding: 'utf8',
    },
  )
  if (r.status !== 0) throw new Error(`task edit ${ref}: ${r.stderr}`)
  return performance.now() - t0
}

/** The project slugs of a generated workspace (proj000 …). */
const projectsOf = (cwd) =>
  spawnSync('ls', [`${cwd}/.dacli/projects`], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((s) => s !== '')

export async function mcpAfterEdits({ bin, cwd, env, calls = 200 }) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(process.env.DACLI_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), bin, 'mcp', 'serve', '--quiet'],
    cwd,
    env,
    stderr: 'inherit',
  })
  const client = new Client({ name: 'bench', version: '0' })
  await client.connect(transport)
  const pid = transport.pid
  const projects = projectsOf(cwd)
  const ref = (i) => `${projects[i % projects.length]}/${String((i % 97) + 1).padStart(3, '0')}`
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: { schema_version: 1, ...args } })
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0]?.text}`)
  }
  // What an agent reads between claim and done (as bench/mcp-latency.mjs), every project in turn.
  const mix = [
    ['show_task', (i) => ({ ref: ref(i) })],
    ['next_tasks', (i) => ({ project: projects[i % projects.length] })],
    ['list_tasks', (i) => ({ project: projects[i % projects.length], status: ['open'], limit: 20 })],
    ['whoami', () => ({})],
    ['status', () => ({})],
    ['get_context', (i) => ({ ref: ref(i), budget: 2000 })],
  ]
  try {
    for (let i = 0; i < mix.length * 2; i++) await call(mix[i % mix.length][0], mix[i % mix.length][1](i))
    const samples = []
    const edits = []
    for (let i = 0; i < calls; i++) {
      // The edited task is another one of the project the call reads (the next number in it): that project changed.
      edits.push(
        editIn(bin, cwd, env, `${projects[i % projects.length]}/${String(((i + 1) % 97) + 1).padStart(3, '0')}`, i),
      )
      const [name, args] = mix[i % mix.length]
      const t0 = performance.now()
      await call(name, args(i))
      samples.push({ name, ms: performance.now() - t0 })
    }
    // The protocol's own floor on this machine in the same state: an MCP ping (no dacli code runs for it) right
    // after the same kind of edit, so the calls' median can be read against it as the commands' are against node -e 0.
    const pings = []
    for (let i = 0; i < Math.max(10, Math.round(calls / 4)); i++) {
      editIn(bin, cwd, env, `${projects[i % projects.length]}/${String(((i + 1) % 97) + 1).padStart(3, '0')}`, `p${i}`)
      const t0 = performance.now()
      await client.ping()
      pings.push(performance.now() - t0)
    }
    // The control: the same calls after the same idle time, nothing edited. Where its median is close to the calls',
    // what an edit costs the next call is mostly the machine waking from idle, not the server reading the change.
    const pause = q(edits, 50)
    const idle = []
    for (let i = 0; i < Math.max(12, Math.round(calls / 4)); i++) {
      await new Promise((resolve) => setTimeout(resolve, pause))
      const [name, args] = mix[i % mix.length]
      const t0 = performance.now()
      await call(name, args(i))
      idle.push(performance.now() - t0)
    }
    const ms = samples.map((s) => s.ms)
    const byTool = {}
    for (const [name] of mix) {
      const xs = samples.filter((s) => s.name === name).map((s) => s.ms)
      byTool[name] = { median_ms: round(q(xs, 50), 2), p99_ms: round(q(xs, 99), 2) }
    }
    return {
      calls,
      median_ms: round(q(ms, 50), 2),
      p99_ms: round(q(ms, 99), 2),
      by_tool: byTool,
      ping_after_edit: { calls: pings.length, median_ms: round(q(pings, 50), 2), p99_ms: round(q(pings, 99), 2) },
      idle_no_edit: {
        calls: idle.length,
        pause_ms: round(pause),
        median_ms: round(q(idle, 50), 2),
        p99_ms: round(q(idle, 99), 2),
      },
      ...rssOf(pid),
    }
  } finally {
    await client.close()
  }
}

function startBoard(bin, cwd, env) {
  const child = spawn(process.execPath, [bin, 'board', '--json'], { cwd, env })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (c) => {
      out += c
      if (out.includes('\n')) resolve({ child, doc: JSON.parse(out) })
    })
    child.on('exit', (code) => reject(new Error(`dacli board exited ${code}`)))
  })
}

export async function boardAfterEdits({ bin, cwd, env, edits = 10 }) {
  const { child, doc } = await startBoard(bin, cwd, env)
  const base = `http://127.0.0.1:${doc.port}`
  const token = new URL(doc.url).searchParams.get('t')
  const headers = { 'X-Dacli-Token': token }
  const get = async (p) => {
    const r = await fetch(`${base}${p}`, { headers })
    if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`)
    return r.text()
  }
  const projects = projectsOf(cwd)
  const firstPage = async () => {
    const t0 = performance.now()
    await get('/')
    await Promise.all([get('/assets/app.js'), get('/assets/app.css')])
    await Promise.all([get('/api/board'), get('/api/project/list')])
    await get(`/api/task/list?project=${projects[0]}`)
    return performance.now() - t0
  }
  try {
    await firstPage() // the server's own warm-up and this one: the page a person opens a moment later
    const warm = []
    for (let i = 0; i < 5; i++) warm.push(await firstPage())
    // The page's event stream: every change event, as it arrives.
    const ac = new AbortController()
    const changes = []
    const waiters = []
    const stream = await fetch(`${base}/api/events`, { headers, signal: ac.signal })
    void (async () => {
      const dec = new TextDecoder()
      try {
        for await (const chunk of stream.body) {
          if (dec.decode(chunk).includes('event: change')) {
            changes.push(performance.now())
            for (const w of waiters.splice(0)) w()
          }
        }
      } catch {
        // aborted at the end
      }
    })()
    const visible = []
    for (let i = 0; i < edits; i++) {
      const project = projects[i % projects.length]
      const ref = `${project}/${String(i + 1).padStart(3, '0')}`
      const seen = changes.length
      editIn(bin, cwd, env, ref, 1000 + i)
      const t0 = performance.now()
      while (changes.length === seen) await new Promise((r) => waiters.push(r))
      // The page fetches what it shows again; the new title must be in it.
      const list = JSON.parse(await get(`/api/task/list?project=${project}`))
      if (!list.tasks.some((t) => t.title === `Edited ${1000 + i} by another process ${RUN}`))
        throw new Error(`board: the edit of ${ref} is not in the page's list after its change event`)
      visible.push(performance.now() - t0)
      await new Promise((r) => setTimeout(r, 300)) // let the watch settle between edits
    }
    ac.abort()
    return {
      first_page_warm_ms: round(q(warm, 50)),
      change_visible_median_ms: round(q(visible, 50)),
      change_visible_max_ms: round(Math.max(...visible)),
      edits,
    }
  } finally {
    await new Promise((resolve) => {
      child.removeAllListeners('exit')
      child.on('exit', resolve)
      child.kill('SIGINT')
    })
  }
}

if (process.argv[1]?.endsWith('servers.mjs')) {
  const { dirname, join } = await import('node:path')
  const { fileURLToPath } = await import('node:url')
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'dacli.js')
  const cwd = process.argv[2]
  const env = { ...process.env, NO_COLOR: '1' }
  delete env.DACLI_AGENT
  console.log(JSON.stringify(await mcpAfterEdits({ bin, cwd, env, calls: Number(process.argv[3] ?? 120) })))
  console.log(JSON.stringify(await boardAfterEdits({ bin, cwd, env })))
}
