// Resources over the built bin, spoken to by the SDK's Client over stdio: list (paged), templates, read (the bytes
// on disk), subscribe → a change by hand or by a dacli command in another process arrives as
// notifications/resources/updated within two seconds; unsubscribe stops them; list_changed when a task appears.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PAGE } from '../features/mcp/resources.js'
import { BIN, baseEnv, type Workspace, workspace } from '../testkit/ws.js'

/** How long a notification may take (the watch settles for a moment; the spec of the issue says ~1–2 s). */
const WITHIN_MS = 2_000

interface Served {
  client: Client
  /** Notifications received so far, in order: `updated <uri>` or `list_changed`. */
  seen: string[]
  /** Resolves when `what` has been seen (from `from` on), or rejects after WITHIN_MS. */
  until(what: string, from?: number): Promise<number>
  close(): Promise<void>
}

async function serve(ws: Workspace, env: Record<string, string> = {}): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'serve', '--quiet'],
    cwd: ws.root,
    env: { ...(baseEnv() as Record<string, string>), ...env },
  })
  const client = new Client({ name: 'resources', version: '0' })
  const seen: string[] = []
  const waiters: (() => void)[] = []
  const note = (s: string) => {
    seen.push(s)
    for (const w of waiters.splice(0)) w()
  }
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => note(`updated ${n.params.uri}`))
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => note('list_changed'))
  await client.connect(transport)
  return {
    client,
    seen,
    async until(what, from = 0) {
      const started = Date.now()
      for (;;) {
        const at = seen.indexOf(what, from)
        if (at !== -1) return Date.now() - started
        const left = WITHIN_MS - (Date.now() - started)
        if (left <= 0) throw new Error(`no "${what}" within ${WITHIN_MS} ms; seen: ${JSON.stringify(seen)}`)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left)
          waiters.push(() => {
            clearTimeout(t)
            resolve()
          })
        })
      }
    },
    close: () => client.close(),
  }
}

const dacliElsewhere = (ws: Workspace, ...args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ws.root, env: baseEnv(), encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

/** The text of a read's one content (a text resource, never a blob). */
const textOf = (r: { contents: ({ text: string } | { blob: string })[] }) => {
  const c = r.contents[0]
  return c !== undefined && 'text' in c ? c.text : undefined
}

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (e) {
    return e as { code: number; message: string; data?: unknown }
  }
  throw new Error('expected a JSON-RPC error')
}

describe('resources over stdio (the built bin, the SDK client)', () => {
  let ws: Workspace
  let noteId: string
  beforeAll(async () => {
    ws = await workspace()
    await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
    for (let i = 1; i <= PAGE + 3; i++) await ws.ok('task', 'add', `Entry ${i}`, '--project', 'ledger')
    noteId = (await ws.ok('note', 'add', 'decision', 'Use X', '--project', 'ledger', '--rejected', 'Y', '--json')).json
      .id
  }, 60_000)
  afterAll(() => undefined)

  test('list is paged and bounded; templates name the three kinds; read is the file as stored', async () => {
    const s = await serve(ws)
    try {
      const first = await s.client.listResources()
      expect(first.resources).toHaveLength(PAGE)
      expect(first.resources[0]).toEqual({
        uri: 'dacli://project/ledger',
        name: 'ledger',
        title: 'Ledger',
        mimeType: 'text/markdown',
      })
      expect(first.resources[1]).toMatchObject({ uri: 'dacli://task/ledger/1', name: 'ledger/001-entry-1' })
      expect(JSON.stringify(first).length / 4).toBeLessThan(2_000)
      expect(first.nextCursor).toEqual(expect.any(String))
      const second = await s.client.listResources({ cursor: first.nextCursor })
      expect(second.nextCursor).toBeUndefined()
      const uris = [...first.resources, ...second.resources].map((r) => r.uri)
      expect(uris).toHaveLength(1 + PAGE + 3 + 1)
      expect(new Set(uris).size).toBe(uris.length)
      expect(uris.at(-1)).toBe(`dacli://note/${noteId}`)
      expect((await errorOf(s.client.listResources({ cursor: 'nonsense' }))).code).toBe(-32602)

      const { resourceTemplates } = await s.client.listResourceTemplates()
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        'dacli://task/{project}/{n}',
        'dacli://project/{slug}',
        'dacli://note/{id}',
      ])

      const task = await s.client.readResource({ uri: 'dacli://task/ledger/2' })
      const onDisk = fs.readFileSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open/002-entry-2.md'), 'utf8')
      expect(task.contents).toEqual([{ uri: 'dacli://task/ledger/2', mimeType: 'text/markdown', text: onDisk }])
      const project = await s.client.readResource({ uri: 'dacli://project/ledger' })
      expect(textOf(project)).toBe(ws.file('.dacli/projects/ledger/project.md'))
      const note = await s.client.readResource({ uri: `dacli://note/${noteId}` })
      expect(textOf(note)).toBe(ws.file('.dacli/projects/ledger/notes/decisions/use-x.md'))

      const missing = await errorOf(s.client.readResource({ uri: 'dacli://task/ledger/999' }))
      expect(missing.code).toBe(-32002)
      expect((await errorOf(s.client.readResource({ uri: 'dacli://project/nope' }))).code).toBe(-32002)
      expect((await errorOf(s.client.readResource({ uri: 'file:///etc/passwd' }))).code).toBe(-32602)
      expect((await errorOf(s.client.readResource({ uri: 'dacli://task/../../x/1' }))).code).toBe(-32602)
    } finally {
      await s.close()
    }
  })

  test('subscribe: a hand edit and a dacli command in another process notify; unsubscribe stops them', async () => {
    const s = await serve(ws)
    const uri = 'dacli://task/ledger/3'
    const file = path.join(ws.root, '.dacli/projects/ledger/tasks/open/003-entry-3.md')
    try {
      expect((await errorOf(s.client.subscribeResource({ uri: 'dacli://task/ledger/999' }))).code).toBe(-32002)
      await s.client.subscribeResource({ uri })
      // By hand: an fs write, no dacli involved.
      fs.appendFileSync(file, '\nA line written by hand.\n')
      await s.until(`updated ${uri}`)
      const read = await s.client.readResource({ uri })
      expect(textOf(read)).toContain('A line written by hand.')

      // By a dacli command in another process (the task moves to active: same uri, new bytes).
      const from = s.seen.length
      dacliElsewhere(ws, 'task', 'claim', 'ledger/3')
      await s.until(`updated ${uri}`, from)
      expect(fs.existsSync(file)).toBe(false)
      expect(textOf(await s.client.readResource({ uri }))).toMatch(/claim:/)

      // A change to another task is not this uri's.
      const other = s.seen.length
      fs.appendFileSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open/004-entry-4.md'), '\nhand\n')
      await new Promise((r) => setTimeout(r, 1_000))
      expect(s.seen.slice(other).filter((x) => x.startsWith('updated'))).toEqual([])

      // Unsubscribed: nothing more about it.
      await s.client.unsubscribeResource({ uri })
      const after = s.seen.length
      dacliElsewhere(ws, 'task', 'release', 'ledger/3')
      await new Promise((r) => setTimeout(r, WITHIN_MS))
      expect(s.seen.slice(after).filter((x) => x.startsWith('updated'))).toEqual([])
    } finally {
      await s.close()
    }
  })

  test('a task file moved to another status folder by hand (mv, its bytes unchanged) notifies: its status changed', async () => {
    const s = await serve(ws)
    const uri = 'dacli://task/ledger/5'
    const open = path.join(ws.root, '.dacli/projects/ledger/tasks/open')
    const name = fs.readdirSync(open).find((n) => n.startsWith('005-')) as string
    const done = path.join(ws.root, '.dacli/projects/ledger/tasks/done')
    try {
      await s.client.subscribeResource({ uri })
      fs.mkdirSync(done, { recursive: true })
      fs.renameSync(path.join(open, name), path.join(done, name))
      await s.until(`updated ${uri}`)
      const from = s.seen.length
      fs.renameSync(path.join(done, name), path.join(open, name))
      await s.until(`updated ${uri}`, from)
    } finally {
      await s.close()
    }
  })

  test('a project and a note edited by hand notify their subscribers too', async () => {
    const s = await serve(ws)
    const project = 'dacli://project/ledger'
    const note = `dacli://note/${noteId}`
    try {
      await s.client.subscribeResource({ uri: project })
      await s.client.subscribeResource({ uri: note })
      fs.appendFileSync(path.join(ws.root, '.dacli/projects/ledger/project.md'), '\nEdited by hand.\n')
      await s.until(`updated ${project}`)
      const from = s.seen.length
      fs.appendFileSync(path.join(ws.root, '.dacli/projects/ledger/notes/decisions/use-x.md'), '\nAlso by hand.\n')
      await s.until(`updated ${note}`, from)
      expect(textOf(await s.client.readResource({ uri: note }))).toContain('Also by hand.')
    } finally {
      await s.close()
    }
  })

  test('list_changed when a task appears (another process) or a task file is removed by hand', async () => {
    const s = await serve(ws)
    try {
      await s.client.listResources()
      dacliElsewhere(ws, 'task', 'add', 'Brand new', '--project', 'ledger')
      await s.until('list_changed')
      const from = s.seen.length
      const n = PAGE + 4
      fs.rmSync(path.join(ws.root, `.dacli/projects/ledger/tasks/open/0${n}-brand-new.md`))
      await s.until('list_changed', from)
      expect((await errorOf(s.client.readResource({ uri: `dacli://task/ledger/${n}` }))).code).toBe(-32002)
    } finally {
      await s.close()
    }
  })

  test('a retired identity reads nothing more (re-resolved on every request, as a tool call is)', async () => {
    const agent = await ws.agent('ro', 'reader')
    const s = await serve(ws, { DACLI_AGENT: agent.token })
    try {
      expect((await s.client.readResource({ uri: 'dacli://project/ledger' })).contents).toHaveLength(1)
      dacliElsewhere(ws, 'agent', 'retire', agent.id)
      const refused = await errorOf(s.client.readResource({ uri: 'dacli://project/ledger' }))
      // A refusal by policy, as the HTTP server's refusals are: -32000, the error/v1 envelope (kind refused) as data.
      expect(refused.code).toBe(-32000)
      expect(refused.message).toMatch(/retired|not recognized/)
      expect(refused.data).toMatchObject({ kind: 'refused' })
      expect((await errorOf(s.client.listResources())).code).toBe(-32000)
    } finally {
      await s.close()
    }
  })
})

test('resources/list pages by key: an object removed from a page already read does not make the next page skip one', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  for (let i = 1; i <= PAGE + 3; i++) await ws.ok('task', 'add', `Entry ${i}`, '--project', 'ledger')
  const s = await serve(ws)
  try {
    const first = await s.client.listResources()
    const last = first.resources.at(-1)?.uri
    expect(last).toBe(`dacli://task/ledger/${PAGE - 1}`)
    // Another process removes a task the first page showed.
    dacliElsewhere(ws, 'task', 'rm', 'ledger/2', '--force')
    const second = await s.client.listResources({ cursor: first.nextCursor })
    expect(second.resources.map((r) => r.uri)).toEqual(
      [PAGE, PAGE + 1, PAGE + 2, PAGE + 3].map((n) => `dacli://task/ledger/${n}`),
    )
    expect(second.nextCursor).toBeUndefined()
    // A cursor of the earlier form is still read as an offset; one that names no entry's key is -32602.
    expect((await s.client.listResources({ cursor: `p${PAGE}` })).resources[0]?.uri).toBe(
      `dacli://task/ledger/${PAGE + 1}`,
    )
    const bogus = `k.${Buffer.from(JSON.stringify([1, 'x'])).toString('base64url')}`
    expect((await errorOf(s.client.listResources({ cursor: bogus }))).code).toBe(-32602)
  } finally {
    await s.close()
  }
}, 60_000)

test('resources/list: two tasks of one number (a sequence collision) on either side of a page both get listed', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  for (let i = 1; i <= PAGE + 1; i++) await ws.ok('task', 'add', `Entry ${i}`, '--project', 'ledger')
  // A second task numbered PAGE - 1, as a merge of two clones can leave (doctor: sequence-collision).
  const n = PAGE - 1
  const file = path.join(ws.root, '.dacli/projects/ledger/tasks/open', `0${n}-entry-${n}.md`)
  fs.writeFileSync(
    path.join(path.dirname(file), `0${n}-entry-${n}b.md`),
    fs.readFileSync(file, 'utf8').replace(/^id: t-[0-9A-Z]{26}$/m, 'id: t-01M99HZZZZZZZZZZZZZZZZZZZZ'),
  )
  const s = await serve(ws)
  try {
    const first = await s.client.listResources()
    expect(first.resources.at(-1)?.name).toBe(`ledger/0${n}-entry-${n}`)
    const second = await s.client.listResources({ cursor: first.nextCursor })
    expect(second.resources.map((r) => r.name)).toEqual([
      `ledger/0${n}-entry-${n}b`,
      `ledger/0${PAGE}-entry-${PAGE}`,
      `ledger/0${PAGE + 1}-entry-${PAGE + 1}`,
    ])
  } finally {
    await s.close()
  }
}, 60_000)
