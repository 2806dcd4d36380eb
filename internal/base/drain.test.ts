// Stopping a real HTTP server on 127.0.0.1 with drainable: a request under way is answered before stop resolves, one
// that never ends is waited for only `ms`, a request `wait` does not pick is not waited for, and the server then
// takes no new connection.

import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, test } from 'vitest'
import { drainable } from './drain.js'

let server: http.Server
afterEach(() => {
  server.closeAllConnections()
})

/** A server that answers `/slow` after `ms` and never answers `/never`; its port once listening. */
async function start(ms: number): Promise<{ port: number; drain: ReturnType<typeof drainable> }> {
  server = http.createServer((req, res) => {
    if (req.url === '/slow') setTimeout(() => res.end('done'), ms)
  })
  const drain = drainable(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return { port: (server.address() as AddressInfo).port, drain }
}

/** A GET on the server: its body, or the error that ended it. */
const get = (port: number, path: string) =>
  new Promise<string>((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: new http.Agent({ keepAlive: true }) }, (res) => {
        let body = ''
        res.on('data', (c) => {
          body += c
        })
        res.on('end', () => resolve(body))
      })
      .on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`))
  })

const arrived = () => new Promise<void>((resolve) => server.once('request', () => setImmediate(resolve)))

test('a request under way is answered, then stop resolves and the server closes; a new connection is refused', async () => {
  const { port, drain } = await start(300)
  const seen = arrived()
  const answer = get(port, '/slow')
  await seen
  const t0 = Date.now()
  await drain.stop()
  expect(Date.now() - t0).toBeGreaterThanOrEqual(250)
  expect(await answer).toBe('done')
  await drain.closed // the kept-alive connection was closed once its answer ended
  expect(await get(port, '/slow')).toBe('error ECONNREFUSED')
})

test('a request that is never answered is waited for `ms` only; one `wait` does not pick is not waited for', async () => {
  const { port, drain } = await start(0)
  const seen = arrived()
  const never = get(port, '/never')
  await seen
  const t0 = Date.now()
  await drain.stop(() => true, 200)
  const waited = Date.now() - t0
  expect(waited).toBeGreaterThanOrEqual(190)
  expect(waited).toBeLessThan(2_000)
  server.closeAllConnections()
  await drain.closed
  expect(await never).toMatch(/^error /)

  const other = await start(0)
  const seen2 = arrived()
  void get(other.port, '/never')
  await seen2
  const t1 = Date.now()
  await other.drain.stop((req) => req.url !== '/never', 5_000)
  expect(Date.now() - t1).toBeLessThan(1_000)
})
