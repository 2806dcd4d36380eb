// dacli upgraded under a running `mcp serve`: the server loads a command's module on its first call, from the files
// of the install it started from. When those were replaced meanwhile, the call cannot run — an operational failure
// (1) that a restart of the server cures, said as such, never "a bug in dacli". Shown with the built bin, copied,
// whose chunks are taken away while it serves (what an upgrade does to the files it ran from), then put back.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { describe, expect, test } from 'vitest'
import { servedOverStdio } from '../testkit/mcp.js'
import { REPO_ROOT, snapshotOf, tempDir, workspace } from '../testkit/ws.js'

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: { schema_version: 1, ...args } })) as {
    isError?: boolean
    content: { type: string; text: string }[]
    structuredContent?: any
  }

describe('mcp serve after its install was replaced', () => {
  test('a call whose module is gone says to restart the server (exit 1), writes nothing; a restart cures it', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
    const install = tempDir('dacli-install-')
    fs.cpSync(path.join(REPO_ROOT, 'build'), install, { recursive: true })
    const bin = path.join(install, 'dacli.js')
    const chunks = path.join(install, 'chunks')
    const kept = tempDir('dacli-chunks-')

    const client = await servedOverStdio(ws.root, 'upgrade-test', bin)
    try {
      expect((await call(client, 'whoami', {})).structuredContent).toMatchObject({ id: 'a-root' })
      // The upgrade: the files this server started from are gone (the new install's have other names).
      fs.cpSync(chunks, kept, { recursive: true })
      fs.rmSync(chunks, { recursive: true })
      fs.mkdirSync(chunks)
      const before = snapshotOf(ws.root)
      const r = await call(client, 'add_task', { title: 'After the upgrade', project: 'ledger' })
      expect(r.isError).toBe(true)
      const env = JSON.parse(r.content[0]?.text as string)
      expect(env).toMatchObject({ schema: 'error/v1', exit_code: 1, kind: 'failure' })
      expect(env.message).not.toMatch(/bug/)
      expect(env.message).toMatch(/^dacli cannot load its own module \.\/[\w-]+\.js: its installed files changed/)
      expect(env.details.missing_module).toMatch(/^\.\/[\w-]+\.js$/)
      expect(env.next_actions[0]).toMatch(/^restart this dacli process .*dacli mcp serve/)
      expect(snapshotOf(ws.root)).toEqual(before)
    } finally {
      await client.close()
    }

    // The new install in place: a restarted server runs the call.
    fs.rmSync(chunks, { recursive: true })
    fs.cpSync(kept, chunks, { recursive: true })
    const restarted = await servedOverStdio(ws.root, 'upgrade-test', bin)
    try {
      const r = await call(restarted, 'add_task', { title: 'After the upgrade', project: 'ledger' })
      expect(r.structuredContent).toMatchObject({ schema: 'task/v1', title: 'After the upgrade' })
    } finally {
      await restarted.close()
    }
  }, 60_000)
})
