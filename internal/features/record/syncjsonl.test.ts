// record sync --watch --jsonl: every line of stdout is one record-sync/v1 object, up to and after the stop — the
// round's lines are the stream, and stopping (SIGTERM, exit 0) adds no closing human line a JSONL reader would
// choke on.

import { spawn } from 'node:child_process'
import { expect, test } from 'vitest'
import { originWithCode } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { BIN, baseEnv, workspace } from '../../testkit/ws.js'

test('stdout holds only record-sync/v1 lines, the last round included, after SIGTERM', async () => {
  const ws = await workspace()
  originWithCode(ws)
  ;(await ws.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  const child = spawn(process.execPath, [BIN, 'record', 'sync', '--watch', '200ms', '--jsonl'], {
    cwd: ws.root,
    env: baseEnv(),
  })
  let stdout = ''
  child.stdout.on('data', (d) => {
    stdout += d
  })
  child.stderr.on('data', () => {})
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  const end = Date.now() + 20_000
  while (Date.now() < end && stdout.split('\n').filter(Boolean).length < 2) await new Promise((r) => setTimeout(r, 50))
  child.kill('SIGTERM')
  expect(await exited).toBe(0)
  const lines = stdout.trimEnd().split('\n')
  expect(lines.length).toBeGreaterThanOrEqual(2)
  for (const l of lines) {
    const d = JSON.parse(l)
    expectValid(d)
    expect(d.schema).toBe('record-sync/v1')
  }
}, 30_000)
