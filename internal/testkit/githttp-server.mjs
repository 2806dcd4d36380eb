// A loopback smart-HTTP git server for tests: `node githttp-server.mjs <root>` serves the bare
// repositories under <root> through `git http-backend` (one CGI process per request) and prints
// its port on stdout. It runs in its own process so that tests may call git synchronously.

import { execFileSync, spawn } from 'node:child_process'
import * as http from 'node:http'
import * as path from 'node:path'

const root = process.argv[2]
const BACKEND = path.join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend')

function cgi(req, body, res) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1')
  const env = {
    PATH: process.env.PATH ?? '',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    // An authenticated user enables receive-pack (pushes).
    REMOTE_USER: 'dacli-test',
    REMOTE_ADDR: '127.0.0.1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ''),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    CONTENT_LENGTH: String(body.length),
  }
  if (typeof req.headers['content-encoding'] === 'string') env.HTTP_CONTENT_ENCODING = req.headers['content-encoding']
  if (typeof req.headers['git-protocol'] === 'string') env.GIT_PROTOCOL = req.headers['git-protocol']
  const child = spawn(BACKEND, [], { env, stdio: ['pipe', 'pipe', 'ignore'] })
  const chunks = []
  child.stdout.on('data', (c) => chunks.push(c))
  child.on('error', () => res.writeHead(500).end())
  child.on('close', () => {
    const out = Buffer.concat(chunks)
    let split = out.indexOf('\r\n\r\n')
    let sep = 4
    if (split === -1) {
      split = out.indexOf('\n\n')
      sep = 2
    }
    if (split === -1) {
      res.writeHead(502).end()
      return
    }
    let status = 200
    const headers = {}
    for (const line of out.subarray(0, split).toString('latin1').split(/\r?\n/)) {
      const i = line.indexOf(':')
      if (i === -1) continue
      const k = line.slice(0, i).trim()
      const v = line.slice(i + 1).trim()
      if (k.toLowerCase() === 'status') status = Number.parseInt(v, 10) || 200
      else headers[k] = v
    }
    res.writeHead(status, headers)
    res.end(out.subarray(split + sep))
  })
  child.stdin.on('error', () => {})
  child.stdin.end(body)
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => cgi(req, Buffer.concat(chunks), res))
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
