// What a board token can do (SECURITY.md, "a board token"): call the page's actions as the server identity, never
// run a program (a flag whose value is a command, `--verify`, is refused with exit 3 whatever the action), and an
// oversize body is answered with 413 and a JSON error, not an empty reply.

import * as fs from 'node:fs'
import * as http from 'node:http'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ACTIONS } from '../board/api.js'
import { csrfOf, request, type Started, startBoard } from '../testkit/board.js'
import { type Fixture, fixture, snapshotOf, table } from '../testkit/ws.js'

describe('a board token is not a shell', () => {
  let f: Fixture
  let b: Started
  let post: (p: string, body: string) => ReturnType<typeof request>
  beforeAll(async () => {
    f = await fixture()
    b = await startBoard(f)
    const page = await request(b.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': b.token } })
    const csrf = csrfOf(page.body)
    post = (p, body) =>
      request(`${b.base}/api/${p}`, {
        method: 'POST',
        headers: { 'X-Dacli-Token': b.token, 'X-Dacli-CSRF': csrf, 'Content-Type': 'application/json' },
        body,
      })
  })
  afterAll(() => b.stop())

  test('every flag whose value is a command is declared `executes` (the board reads the declaration)', () => {
    const cmdFlags = table.flatMap((c) =>
      Object.entries(c.flags)
        .filter(([, s]) => s.valueName === 'CMD' || /shell command/.test(s.description))
        .map(([k, s]) => [`${c.path} --${k}`, s.executes === true] as const),
    )
    expect(cmdFlags.length).toBeGreaterThan(0)
    expect(cmdFlags.filter(([, ex]) => !ex)).toEqual([])
  })

  test.each(
    table
      .filter((c) => Object.values(c.flags).some((s) => s.executes === true))
      .map((c) => [c.path, Object.keys(c.flags).find((k) => c.flags[k]?.executes === true) as string] as const),
  )(
    '%s --%s through the board: refused (exit 3, 403 or 405 when not an action), nothing run, nothing written',
    async (cmdPath, flag) => {
      const proof = path.join(f.ws.root, 'ran-by-the-board')
      const before = snapshotOf(f.ws.root)
      const body = JSON.stringify({ args: { ref: 'alpha/1' }, flags: { n: [1], [flag]: `touch ${proof}` } })
      const r = await post(cmdPath.replace(/ /g, '/'), body)
      if (ACTIONS.has(cmdPath)) {
        expect(r.status).toBe(403)
        expect(r.headers['x-dacli-exit-code']).toBe('3')
        expect(JSON.parse(r.body)).toMatchObject({
          schema: 'error/v1',
          exit_code: 3,
          kind: 'refused',
          details: { policy: 'board-runs-no-command' },
        })
      } else expect(r.status).toBe(405)
      expect(fs.existsSync(proof)).toBe(false)
      expect(snapshotOf(f.ws.root)).toEqual(before)
    },
  )

  test('a GET naming an executing flag is refused too', async () => {
    const r = await request(`${b.base}/api/task/check?ref=alpha%2F1&verify=true`, {
      headers: { 'X-Dacli-Token': b.token },
    })
    expect(r.status).not.toBe(200)
  })

  test('a body over 64 KiB: 413 with an error/v1 document (sent with a length and without one)', async () => {
    const before = snapshotOf(f.ws.root)
    const big = JSON.stringify({ args: { ref: 'alpha/1' }, flags: { body: 'x'.repeat(70_000) } })
    const r = await post('note/add', big)
    expect(r.status).toBe(413)
    expect(JSON.parse(r.body)).toMatchObject({ schema: 'error/v1', exit_code: 2, details: { limit: 65_536 } })
    // Chunked (no Content-Length): the limit is found while reading.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const page = request(b.url.replace(/\?t=.*/, ''), { headers: { 'X-Dacli-Token': b.token } })
      page.then((p) => {
        const req = http.request(
          `${b.base}/api/note/add`,
          {
            method: 'POST',
            headers: {
              'X-Dacli-Token': b.token,
              'X-Dacli-CSRF': csrfOf(p.body),
              'Content-Type': 'application/json',
              'Transfer-Encoding': 'chunked',
            },
          },
          (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (c) => {
              body += c
            })
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
          },
        )
        req.on('error', reject)
        for (let i = 0; i < 10; i++) req.write('x'.repeat(10_000))
        req.end()
      }, reject)
    })
    expect(chunked.status).toBe(413)
    expect(JSON.parse(chunked.body)).toMatchObject({ schema: 'error/v1', kind: 'usage' })
    expect(snapshotOf(f.ws.root)).toEqual(before)
  })
})
