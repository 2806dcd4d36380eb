// Resident memory of a warm `dacli mcp serve` (quality.md: ≤ 150 MB at 10,000 tasks): the SDK's client calls
// list_tasks, next_tasks, show_task and get_context in turn, 50 times each, then reads the server's VmRSS
// (resident now) and VmHWM (the high-water mark) from /proc.
//
//   node bench/mcp-memory.mjs <workspace> <ref>     (prints the figures as JSON)

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export async function serverMemory({ bin, cwd, env, ref, rounds = 50 }) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', 'serve', '--quiet'],
    cwd,
    env,
    stderr: 'ignore',
  })
  const client = new Client({ name: 'bench-rss', version: '0' })
  await client.connect(transport)
  const kib = (status, k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN)
  try {
    for (let i = 0; i < rounds; i++) {
      for (const [name, args] of [
        ['list_tasks', {}],
        ['next_tasks', {}],
        ['show_task', { ref }],
        ['get_context', { ref }],
      ]) {
        const r = await client.callTool({ name, arguments: { schema_version: 1, ...args } })
        if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`)
      }
    }
    const status = readFileSync(`/proc/${transport.pid}/status`, 'utf8')
    const mib = (k) => Math.round((kib(status, k) / 1024) * 10) / 10
    return { rss_mib: mib('VmRSS'), peak_rss_mib: mib('VmHWM') }
  } finally {
    await client.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [cwd, ref] = process.argv.slice(2)
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'dacli.js')
  const env = { ...process.env, NO_COLOR: '1' }
  delete env.DACLI_AGENT
  process.stdout.write(`${JSON.stringify(await serverMemory({ bin, cwd, env, ref }))}\n`)
}
