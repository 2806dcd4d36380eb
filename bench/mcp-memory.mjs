// Resident memory of a warm `dacli mcp serve` (quality.md: ≤ 150 MB at 10,000 tasks): the SDK's client calls
// list_tasks, next_tasks, show_task and get_context in turn, 50 times each. The server's VmRSS is read from
// /proc after every call of the second half (a single reading lands anywhere in the collector's cycle); the
// report gives their median and their maximum, and the high-water mark (VmHWM).
//
//   node bench/mcp-memory.mjs <workspace> <ref>     (prints the figures as JSON; BIN=<dacli.js> measures another build)

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export async function serverMemory({ bin, cwd, env, ref, rounds = 50 }) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: process.execPath,
    // DACLI_BENCH_NODE_ARGS ("--cpu-prof …") passes node options to the server (diagnosis only).
    args: [...(process.env.DACLI_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), bin, 'mcp', 'serve', '--quiet'],
    cwd,
    env,
    stderr: 'ignore',
  })
  const client = new Client({ name: 'bench-rss', version: '0' })
  await client.connect(transport)
  const kib = (status, k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN)
  try {
    const samples = []
    for (let i = 0; i < rounds; i++) {
      for (const [name, args] of [
        ['list_tasks', {}],
        ['next_tasks', {}],
        ['show_task', { ref }],
        ['get_context', { ref }],
      ]) {
        const r = await client.callTool({ name, arguments: { schema_version: 1, ...args } })
        if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`)
        if (i >= rounds / 2) samples.push(kib(readFileSync(`/proc/${transport.pid}/status`, 'utf8'), 'VmRSS'))
      }
    }
    const status = readFileSync(`/proc/${transport.pid}/status`, 'utf8')
    const mib = (k) => Math.round((k / 1024) * 10) / 10
    samples.sort((a, b) => a - b)
    return {
      rss_mib: mib(samples[Math.floor(samples.length / 2)]),
      rss_max_mib: mib(samples[samples.length - 1]),
      peak_rss_mib: mib(kib(status, 'VmHWM')),
    }
  } finally {
    await client.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [cwd, ref] = process.argv.slice(2)
  const bin = process.env.BIN ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'dacli.js')
  const env = { ...process.env, NO_COLOR: '1' }
  delete env.DACLI_AGENT
  process.stdout.write(`${JSON.stringify(await serverMemory({ bin, cwd, env, ref }))}\n`)
}
