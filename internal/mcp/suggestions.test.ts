// A tool call's near miss says what the CLI says: the did-you-mean is the command line a person types
// (`dacli task show ledger/1 --json`), never the argv the server builds from the call.

import { afterAll, beforeAll, expect, test } from 'vitest'
import { servedOverStdio } from '../testkit/mcp.js'
import { type Workspace, workspace } from '../testkit/ws.js'

let ws: Workspace
let client: Awaited<ReturnType<typeof servedOverStdio>>
beforeAll(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('task', 'add', 'Find the refund', '--project', 'ledger', '--accept', 'found')
  client = await servedOverStdio(ws.root, 'suggestions')
})
afterAll(async () => {
  await client.close()
})

test('show_task and list_tasks near misses suggest the CLI’s own command lines', async () => {
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: { schema_version: 1, ...args } })
    expect(r.isError).toBe(true)
    return JSON.parse((r.content as { text: string }[])[0]?.text as string)
  }
  const show = await call('show_task', { ref: 'ledger/find-the-refnd' })
  const cliShow = JSON.parse((await ws.dacli('task', 'show', 'ledger/find-the-refnd', '--json')).stderr)
  expect(show.suggestions).toEqual(cliShow.suggestions)
  expect(show.suggestions).toEqual(['dacli task show ledger/1 --json'])
  const list = await call('list_tasks', { project: 'ledgr' })
  expect(list.suggestions[0]).toMatch(/^dacli task list --project ledger( --limit \d+)? --json$/)
})
