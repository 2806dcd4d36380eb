// A command that streams documents under --json (`pr wait`: a pr-diagnosis/v1 line per change, then pr-wait/v1)
// run through the `cli` tool of `mcp serve` on stdio: the answer is one JSON-RPC line whose structuredContent and
// text are the final document, and nothing else ever reaches the protocol stream.

import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace } from '../testkit/deliveryws.js'
import { INITIALIZE, serveInProcess, toolCall } from '../testkit/mcpserve.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

test('cli pr wait --json: one well-formed answer carrying the pr-wait/v1 document', async () => {
  w = await deliveryWorkspace()
  const ref = await w.task('Wait for me')
  const { dir } = await w.worktree(ref)
  w.commit(dir, 'wait.txt', 'wait\n', 'Wait for me')
  ;(await w.run('pr', 'open', ref)).expectExit(0)
  const s = serveInProcess(w.ws.root, ['--quiet'], { env: w.gh.env() })
  s.send(INITIALIZE)
  await s.response(0)
  s.send(toolCall(1, 'cli', { schema_version: 1, argv: ['pr', 'wait', ref, '--timeout', '10s', '--interval', '10ms'] }))
  const r = await s.response(1).catch((e: unknown) => ({ unreadable: String(e) }))
  await s.end()
  // Every line the server wrote is one JSON-RPC message.
  for (const line of s.lines()) expect(() => JSON.parse(line), line.slice(0, 200)).not.toThrow()
  expect(r.result.structuredContent).toMatchObject({ schema: 'pr-wait/v1', outcome: 'reached' })
  expect(JSON.parse(r.result.content[0].text)).toEqual(r.result.structuredContent)
}, 30_000)
