// A long-running server (`mcp serve`, `board`) keeps a small heap: the bin holds V8's young generation at the size
// it has when the server starts (cmd/dacli.ts serverHeap), where a one-shot command lets it grow to 16 MB
// semi-spaces. Seen from outside the process: a probe loaded with --require makes the same surviving allocations
// as the process exits and writes the young generation's size, in a server and in a plain command.

import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { BIN, baseEnv, tempDir, type Workspace, workspace } from '../testkit/ws.js'

let ws: Workspace
let probe: string

beforeAll(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  probe = path.join(tempDir('dacli-heap-probe-'), 'probe.cjs')
  // 400,000 small objects kept alive: enough survivors for V8 to grow a young generation that may grow.
  fs.writeFileSync(
    probe,
    [
      "const v8 = require('node:v8')",
      "const fs = require('node:fs')",
      "process.on('exit', () => {",
      '  const kept = []',
      "  for (let i = 0; i < 400000; i++) kept.push({ i, s: 'x' + i })",
      "  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')",
      '  fs.writeFileSync(process.env.DACLI_HEAP_PROBE, JSON.stringify({ young: young.space_size, kept: kept.length }))',
      '})',
      '',
    ].join('\n'),
  )
})

/** The environment that loads the probe, writing to `out`. */
const probed = (out: string) => ({ ...baseEnv(), NODE_OPTIONS: `--require ${probe}`, DACLI_HEAP_PROBE: out })
const youngOf = (out: string) => (JSON.parse(fs.readFileSync(out, 'utf8')) as { young: number; kept: number }).young
const MB = 1024 * 1024
/** The young generation of a plain command after the probe's allocations (the control), once measured. */
let plain = 0

test('a plain command lets the young generation grow (the control)', () => {
  const out = path.join(tempDir(), 'plain.json')
  const r = spawnSync(process.execPath, [BIN, 'task', 'list', '--json'], { cwd: ws.root, env: probed(out) })
  expect(r.status, String(r.stderr)).toBe(0)
  plain = youngOf(out)
  // V8 lets it grow to its largest size (two 16 MB halves on a 64-bit machine with memory to spare).
  expect(plain).toBeGreaterThanOrEqual(16 * MB)
})

test('mcp serve over stdio holds the young generation at its size when it started', async () => {
  const out = path.join(tempDir(), 'mcp.json')
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--quiet'], { cwd: ws.root, env: probed(out) })
  const hello = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'heap', version: '0' } },
  }
  const answered = new Promise<void>((res) => child.stdout.once('data', () => res()))
  child.stdin.write(`${JSON.stringify(hello)}\n`)
  await answered // serving: the heap is set before the first answer
  child.stdin.end()
  expect(await new Promise((res) => child.on('close', res))).toBe(0)
  expect(youngOf(out)).toBeLessThanOrEqual(Math.min(8 * MB, plain / 2))
})

test('board holds the young generation at its size when it started', async () => {
  const out = path.join(tempDir(), 'board.json')
  const child = spawn(process.execPath, [BIN, 'board', '--json'], { cwd: ws.root, env: probed(out) })
  await new Promise<void>((res, rej) => {
    let text = ''
    child.stdout.on('data', (d) => {
      text += String(d)
      if (text.includes('\n')) res()
    })
    child.on('close', (c) => rej(new Error(`board exited ${c} before listening`)))
  })
  child.kill('SIGINT')
  expect(await new Promise((res) => child.on('close', res))).toBe(0)
  expect(youngOf(out)).toBeLessThanOrEqual(Math.min(8 * MB, plain / 2))
})
