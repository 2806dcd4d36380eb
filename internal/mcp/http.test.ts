// `dacli mcp serve --http`: the built bin on 127.0.0.1, driven by the SDK's own client over real HTTP
// (StreamableHTTPClientTransport) and by plain fetch where a check is about the bytes of an answer.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { killServed, type Served, serveHttp } from '../testkit/mcphttp.js'
import { documentIn, splitPost } from '../testkit/splitpost.js'
import { dacliIn, type Fixture, fixture, table, testConfigHome } from '../testkit/ws.js'
import { buildToolset } from './call.js'

const FULL = buildToolset(table, 'full').definitions.length

async function connect(url: string, token: string, sessionId?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    ...(sessionId === undefined ? {} : { sessionId }),
  })
  const client = new Client({ name: 'http-test', version: '0' })
  await client.connect(transport)
  return { client, transport }
}

/** Every task file of the workspace, by path from its root, with its text. */
function taskTexts(root: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out.set(path.relative(root, p), fs.readFileSync(p, 'utf8'))
    }
  }
  walk(path.join(root, '.dacli', 'projects'))
  return out
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: { schema_version: 1, ...args } })) as {
    isError?: boolean
    structuredContent?: any
  }

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
}

/** A raw POST of one message to the endpoint. */
function post(url: string, body: unknown, headers: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
}

let fx: Fixture
let shared: Served
beforeAll(async () => {
  fx = await fixture()
  shared = await serveHttp(fx.copy())
}, 60_000)
afterAll(() => {
  killServed()
})

describe('mcp serve --http: the flags', () => {
  test.each([
    [['--http', 'nope'], /--http takes \[HOST:\]PORT/],
    [['--http', '127.0.0.1:70000'], /--http takes \[HOST:\]PORT/],
    [['--http', '0.0.0.0:0'], /listens on 0\.0\.0\.0, which other machines may reach; add --allow-remote/],
    [['--allow-remote'], /--allow-remote goes with --http/],
  ])('%j is a usage error (2), nothing served', async (args, message) => {
    const r = await dacliIn(fx.ws.root, ['mcp', 'serve', ...args], { onInterrupt: () => {} })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(r.stdout).toBe('')
  })

  test('the URL is the one line on stdout; the launch token is shown once on stderr', () => {
    expect(shared.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(Number(new URL(shared.url).port)).toBeGreaterThan(0)
    expect(shared.token).toMatch(/^[0-9a-f]{48}$/)
    expect(shared.stderr().split(shared.token)).toHaveLength(2)
    expect(shared.stderr()).toMatch(/serving full tools on http:\/\/127\.0\.0\.1:\d+\/mcp as a-root \(rw\)/)
  })

  test.each([['127.1:0'], ['0x7f.1:0'], ['[0:0:0:0:0:0:0:1]:0']])(
    '--http %s is a loopback address in a short form: served as the network reads it, no --allow-remote',
    async (listen) => {
      const s = await serveHttp(fx.copy(), ['--http', listen])
      const host = listen.startsWith('[') ? '\\[::1\\]' : '127\\.0\\.0\\.1'
      expect(s.url).toMatch(new RegExp(`^http://${host}:\\d+/mcp$`))
      const r = await post(s.url, INIT, { Authorization: `Bearer ${s.token}` })
      expect(r.status).toBe(200)
      await r.body?.cancel()
    },
  )

  test('the launch token is nowhere on disk', () => {
    const hits: string[] = []
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name)
        if (e.isDirectory()) walk(p)
        else if (fs.readFileSync(p, 'latin1').includes(shared.token)) hits.push(p)
      }
    }
    walk(shared.root)
    walk(testConfigHome())
    expect(hits).toEqual([])
  })
})

describe('mcp serve --http: the SDK client over HTTP', () => {
  test('lists the tools, reads, writes (the bytes on disk change), and a refusal is a result', async () => {
    const root = fx.copy()
    const s = await serveHttp(root)
    const { client, transport } = await connect(s.url, s.token)
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(client.getServerVersion()?.name).toBe('dacli')
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(FULL)

    const shown = await call(client, 'show_task', { ref: 'alpha/1' })
    expect(shown.structuredContent).toMatchObject({ schema: 'task/v1', title: 'First thing' })

    const before = taskTexts(root)
    const claimed = await call(client, 'claim_task', { ref: 'alpha/1', lease: '1h' })
    expect(claimed.structuredContent).toMatchObject({ outcome: 'changed', task: { owner: 'a-root', status: 'active' } })
    const after = taskTexts(root)
    expect(after).not.toEqual(before)
    const claimedText = after.get(claimed.structuredContent.task.path) as string
    expect(claimedText).toMatch(/^owner: a-root$/m)
    expect(claimedText).toMatch(/^# First thing$/m)

    const early = await call(client, 'finish_task', { ref: 'alpha/1' })
    expect(early.isError).toBeFalsy()
    expect(early.structuredContent.refused).toMatchObject({ policy: 'acceptance' })
    await client.close()
  })

  test('an agent token acts as that agent: a read-only one is refused a write by its grant, nothing written', async () => {
    const root = fx.copy()
    const s = await serveHttp(root)
    const ro = await connect(s.url, fx.ro.token)
    expect((await call(ro.client, 'whoami', {})).structuredContent).toMatchObject({ id: fx.ro.id, grant: 'ro' })
    const before = taskTexts(root)
    const refused = await call(ro.client, 'add_task', { title: 'Not mine to add', project: 'alpha' })
    expect(refused.isError).toBeFalsy()
    expect(refused.structuredContent.refused.policy).toBe('grant')
    expect(taskTexts(root)).toEqual(before)

    const rw = await connect(s.url, fx.rw.token)
    const added = await call(rw.client, 'add_task', { title: 'Added over HTTP', project: 'alpha' })
    expect(added.structuredContent).toMatchObject({ schema: 'task/v1', created_by: fx.rw.id })
    const text = taskTexts(root).get(added.structuredContent.path) as string
    expect(text).toMatch(/^# Added over HTTP$/m)
    expect(text).toContain(`created_by: ${fx.rw.id}`)
    await ro.client.close()
    await rw.client.close()
  })

  test('resources over HTTP: listed and read as the session’s caller', async () => {
    const { client } = await connect(shared.url, fx.ro.token)
    const { resources } = await client.listResources()
    const task = resources.find((r) => r.uri.startsWith('dacli://task/alpha/'))
    expect(task).toBeDefined()
    const read = await client.readResource({ uri: (task as { uri: string }).uri })
    expect((read.contents[0] as { text: string }).text).toMatch(/^---\nid: t-/)
    await client.close()
  })

  test('a session is reused by its id with the same token, refused with another, unknown → 404', async () => {
    const first = await connect(shared.url, shared.token)
    const sid = first.transport.sessionId as string
    // A second transport on the same session (no initialize): its calls are answered in that session.
    const again = new StreamableHTTPClientTransport(new URL(shared.url), {
      sessionId: sid,
      requestInit: { headers: { Authorization: `Bearer ${shared.token}` } },
    })
    const raw = new Client({ name: 'again', version: '0' })
    // Connecting with a session id skips initialize (the SDK's resumption of a known session).
    await raw.connect(again)
    const r = await raw.request(
      { method: 'tools/call', params: { name: 'whoami', arguments: { schema_version: 1 } } },
      CallToolResultSchema,
    )
    expect((r.structuredContent as any).id).toBe('a-root')

    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }
    const other = await post(shared.url, list, { Authorization: `Bearer ${fx.rw.token}`, 'Mcp-Session-Id': sid })
    expect(other.status).toBe(403)
    expect(((await other.json()) as any).error.message).toMatch(/opened with another token/)
    const unknown = await post(shared.url, list, {
      Authorization: `Bearer ${shared.token}`,
      'Mcp-Session-Id': '00000000-0000-0000-0000-000000000000',
    })
    expect(unknown.status).toBe(404)
    const none = await post(shared.url, list, { Authorization: `Bearer ${shared.token}` })
    expect(none.status).toBe(400)
    await first.client.close()
  })

  test('a malformed tools/call is a JSON-RPC error (-32602), as on stdio; a body that is not JSON is -32700', async () => {
    const { client, transport } = await connect(shared.url, shared.token)
    const headers = {
      Authorization: `Bearer ${shared.token}`,
      'Mcp-Session-Id': transport.sessionId as string,
      'Mcp-Protocol-Version': '2025-11-25',
    }
    const bad = await post(shared.url, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 3 } }, headers)
    expect((await bad.json()) as any).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: 'invalid params for tools/call: params.name must be the tool name (a string)' },
    })
    const proto = await fetch(shared.url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"status","arguments":{"schema_version":1,"__proto__":{}}}}',
    })
    expect((await proto.json()) as any).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32602,
        message: 'invalid params for tools/call: params.arguments holds "__proto__", no argument',
      },
    })
    const garbled = await fetch(shared.url, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "id": 6,',
    })
    expect(garbled.status).toBe(400)
    expect(((await garbled.json()) as any).error.code).toBe(-32700)
    await client.close()
  })

  test('a stream cut after its first event is resumed with Last-Event-ID: the response is sent on reconnect', async () => {
    const { client, transport } = await connect(shared.url, shared.token)
    const sid = transport.sessionId as string
    const ac = new AbortController()
    const res = await fetch(shared.url, {
      method: 'POST',
      signal: ac.signal,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${shared.token}`,
        'Mcp-Session-Id': sid,
        'Mcp-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 41,
        method: 'tools/call',
        params: { name: 'show_task', arguments: { schema_version: 1, ref: 'alpha/2' } },
      }),
    })
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/)
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    let seen = ''
    while (!/\n\n/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value)
    // The priming event: an id, the retry hint, no data.
    const primed = /^id: (\S+)\nretry: (\d+)\ndata: \n\n/.exec(seen) as RegExpExecArray
    expect(primed).not.toBeNull()
    ac.abort()

    // The SDK client resumes the stream from that event id and gets the response to request 41.
    const resumed = await client.request(
      { method: 'tools/call', params: { name: 'show_task', arguments: { schema_version: 1, ref: 'alpha/2' } } },
      CallToolResultSchema,
      { resumptionToken: primed[1] as string },
    )
    expect((resumed.structuredContent as any).title).toBe('Second thing')

    // An event id this server never issued cannot be resumed.
    const bad = await fetch(shared.url, {
      headers: {
        Accept: 'text/event-stream',
        Authorization: `Bearer ${shared.token}`,
        'Mcp-Session-Id': sid,
        'Mcp-Protocol-Version': '2025-11-25',
        'Last-Event-ID': 'nope#99',
      },
    })
    expect(bad.status).toBe(400)
    await client.close()
  })
})

describe('mcp serve --http: who may ask', () => {
  test.each([
    ['no token', {}, /missing bearer token/, 'Bearer realm="dacli"'],
    [
      'an unknown token',
      { Authorization: `Bearer ${'f'.repeat(48)}` },
      /bearer token is not recognized/,
      'invalid_token',
    ],
    ['not a bearer token', { Authorization: 'Basic dXNlcjpwYXNz' }, /missing bearer token/, 'Bearer realm="dacli"'],
  ])('%s → 401 with a JSON error and WWW-Authenticate', async (_w, headers, message, challenge) => {
    const r = await post(shared.url, INIT, headers)
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toContain(challenge)
    const body: any = await r.json()
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { kind: 'refused', policy: 'identity' } } })
    expect(body.error.message).toMatch(message)
    // What the HTTP caller can change is its header; the server's environment is not its to set.
    expect(JSON.stringify(body)).not.toMatch(/DACLI_AGENT/)
  })

  test('an identity retired during a session: its next call is refused (a result), naming the bearer token', async () => {
    const root = fx.copy()
    const s = await serveHttp(root)
    const agent = (await dacliIn(root, ['agent', 'spawn', '--grant', 'rw', '--json'])).expectExit(0).json
    const { client } = await connect(s.url, agent.token)
    expect((await call(client, 'whoami', {})).structuredContent).toMatchObject({ id: agent.id })
    ;(await dacliIn(root, ['agent', 'retire', agent.id])).expectExit(0)
    for (const [tool, args] of [
      ['whoami', {}],
      ['cli', { argv: ['whoami'] }],
    ] as const) {
      const r = await call(client, tool, args)
      expect(r.isError).toBeFalsy()
      const { refused } = r.structuredContent
      expect(refused.policy).toBe('identity')
      expect(refused.reason).toBe(`the bearer token belongs to ${agent.id}, which is retired`)
      expect(refused.next[0]).toMatch(/Authorization: Bearer <token>/)
      expect(JSON.stringify(r)).not.toMatch(/DACLI_AGENT/)
    }
    await client.close()
  })

  test('a retired agent’s token → 401', async () => {
    const root = fx.copy()
    const s = await serveHttp(root)
    const gone = (await dacliIn(root, ['agent', 'spawn', '--grant', 'rw', '--json'])).expectExit(0).json
    ;(await dacliIn(root, ['agent', 'retire', gone.id])).expectExit(0)
    const r = await post(s.url, INIT, { Authorization: `Bearer ${gone.token}` })
    expect(r.status).toBe(401)
    const body = (await r.json()) as any
    expect(body.error.message).toBe(`the bearer token belongs to ${gone.id}, which is retired`)
    expect(body.error.data.next).toEqual([
      'ask a live parent identity for a new token (`dacli agent spawn`) and open a new session with it in `Authorization: Bearer <token>`',
    ])
  })

  test.each([
    ['a foreign Origin', { Origin: 'http://evil.example.com' }, /Origin http:\/\/evil\.example\.com/],
    ['the null Origin', { Origin: 'null' }, /Origin "null"|Origin null/],
  ])('%s → 403 even with a valid token', async (_w, headers, message) => {
    const r = await post(shared.url, INIT, { Authorization: `Bearer ${shared.token}`, ...headers })
    expect(r.status).toBe(403)
    expect(((await r.json()) as any).error.message).toMatch(message)
  })

  test('a foreign Host header (DNS rebinding) → 403; a loopback Origin is accepted', async () => {
    const http = await import('node:http')
    const u = new URL(shared.url)
    const status = await new Promise<number>((resolve, reject) => {
      const q = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            Host: 'evil.example.com',
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            Authorization: `Bearer ${shared.token}`,
          },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      q.on('error', reject)
      q.end(JSON.stringify(INIT))
    })
    expect(status).toBe(403)
    const ok = await post(shared.url, INIT, { Authorization: `Bearer ${shared.token}`, Origin: `http://${u.host}` })
    expect(ok.status).toBe(200)
    await ok.body?.cancel()
  })

  test('another path → 404', async () => {
    const r = await fetch(shared.url.replace(/\/mcp$/, '/other'))
    expect(r.status).toBe(404)
  })
})

describe('mcp serve --http: other forms', () => {
  test('--quiet: only the URL; no launch token is shown, so agent tokens are the way in', async () => {
    const s = await serveHttp(fx.copy(), ['--quiet'])
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(s.stderr()).toBe('')
    const { client } = await connect(s.url, fx.rw.token)
    expect((await call(client, 'whoami', {})).structuredContent.id).toBe(fx.rw.id)
    await client.close()
  })

  test('--allow-remote listens on every interface, warns, still wants a token and refuses a foreign Origin', async () => {
    const s = await serveHttp(fx.copy(), ['--http', '0.0.0.0:0', '--allow-remote'])
    expect(s.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/)
    expect(s.stderr()).toMatch(/listening on 0\.0\.0\.0: anyone who can reach it and holds a token/)
    const url = s.url.replace('0.0.0.0', '127.0.0.1')
    expect((await post(url, INIT, {})).status).toBe(401)
    const ok = await post(url, INIT, { Authorization: `Bearer ${s.token}` })
    expect(ok.status).toBe(200)
    await ok.body?.cancel()
    const foreign = await post(url, INIT, { Authorization: `Bearer ${s.token}`, Origin: 'http://evil.example.com' })
    expect(foreign.status).toBe(403)
  })

  test('a body over 16 MiB is answered 413, and the server keeps serving', async () => {
    const big = JSON.stringify({ ...INIT, params: { ...INIT.params, pad: 'x'.repeat(17 * 1024 * 1024) } })
    const r = await fetch(shared.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${shared.token}`,
      },
      body: big,
    })
    expect(r.status).toBe(413)
    expect(((await r.json()) as any).error.message).toMatch(/at most 16777216 bytes/)
    const { client } = await connect(shared.url, shared.token)
    expect((await client.listTools()).tools).toHaveLength(FULL)
    await client.close()
  })
})

describe('mcp serve --http: stopping', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)('%s closes the sessions and the listener; exit 0', async (signal) => {
    const s = await serveHttp(fx.copy())
    const { client } = await connect(s.url, s.token)
    await client.listTools()
    s.child.kill(signal)
    expect(await s.exited).toBe(0)
    await expect(fetch(s.url)).rejects.toThrow()
  })

  test('a tool call under way when SIGINT comes is answered before the server exits (0)', async () => {
    const s = await serveHttp(fx.copy())
    const { client, transport } = await connect(s.url, s.token)
    await client.listTools()
    const url = new URL(s.url)
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'show_task', arguments: { schema_version: 1, ref: 'alpha/2' } },
    })
    // The call's head and part of its body: the server is reading the rest when it is told to stop.
    const post = await splitPost(
      url,
      {
        Authorization: `Bearer ${s.token}`,
        'Mcp-Session-Id': transport.sessionId as string,
        'Mcp-Protocol-Version': '2025-11-25',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body,
      20,
    )
    await new Promise((r) => setTimeout(r, 300))
    s.child.kill('SIGINT')
    await new Promise((r) => setTimeout(r, 300))
    post.rest()
    const reply = await post.reply
    expect(reply).toMatch(/^HTTP\/1\.1 200 /)
    expect(documentIn(reply)).toMatchObject({ id: 7, result: { structuredContent: { schema: 'task/v1' } } })
    expect(await s.exited).toBe(0)
  })

  test('SIGTERM while a call waits (a watch of 30 s): the wait ends at once, the call is answered, exit 0', async () => {
    const s = await serveHttp(fx.copy())
    const { client } = await connect(s.url, s.token)
    const call = client.callTool({ name: 'cli', arguments: { schema_version: 1, argv: ['watch', '--timeout', '30s'] } })
    await new Promise((r) => setTimeout(r, 1000))
    s.child.kill('SIGTERM')
    // Answered (before: cut off when the sessions closed, 5 s later, with no answer).
    const r = (await call) as unknown as { structuredContent: { schema: string } }
    expect(r.structuredContent).toMatchObject({ schema: 'watch-event-list/v1', ended: 'interrupted' })
    expect(await s.exited).toBe(0)
  })
})
