// `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance) against
// `dacli mcp serve --http 127.0.0.1:0` on a fresh temporary workspace.
//
// The suite needs Node >= 22 (it imports fs.globSync); dacli runs on Node 20. So the suite and a Node 22 of its
// own come from the npm registry (the `node` package ships the binary), pinned with a lockfile in
// scripts/conformance/, installed once into .cache/conformance/ with `npm ci`; dacli keeps the Node it runs on.
//
// The suite's client sends no Authorization header (it has no option for one), and dacli answers every request
// without a token 401. So the suite talks to a small proxy on 127.0.0.1 that adds the server's launch token to
// each request and changes nothing else (Host and Origin pass through as sent, so the DNS rebinding scenario
// reaches the server's own check).
//
// The scenarios dacli fails on purpose are listed in scripts/conformance/baseline.yml with the reason; the suite
// exits non-zero on any other failure, and on a listed scenario that passes (a stale entry). The last lines printed
// are one line a scenario, `<scenario> <passed|failed> <checks>`, the table COMPATIBILITY.md records.
//
//   npm run conformance                       build, install the suite if needed, run the active suite
//   node scripts/conformance.mjs --scenario ping --verbose

import { execFileSync, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as http from 'node:http'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const PINS = path.join(ROOT, 'scripts', 'conformance')
const CACHE = path.join(ROOT, '.cache', 'conformance')
const BIN = path.join(ROOT, 'build', 'dacli.js')
const NODE22 = path.join(CACHE, 'node_modules', 'node', 'bin', 'node')
const SUITE = path.join(CACHE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')

const log = (line) => process.stderr.write(`conformance: ${line}\n`)

/** Install the pinned suite and Node 22 into the cache, unless the lockfile there is already the pinned one. */
function install() {
  const lock = fs.readFileSync(path.join(PINS, 'package-lock.json'), 'utf8')
  const stamp = path.join(CACHE, 'installed.lock.json')
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === lock && fs.existsSync(NODE22) && fs.existsSync(SUITE))
    return
  log(`installing the suite and Node 22 into ${path.relative(ROOT, CACHE)}/ (npm ci)`)
  fs.rmSync(CACHE, { recursive: true, force: true })
  fs.mkdirSync(CACHE, { recursive: true })
  for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(PINS, f), path.join(CACHE, f))
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: CACHE, stdio: 'inherit' })
  const v = execFileSync(NODE22, ['--version'], { encoding: 'utf8' }).trim()
  if (!/^v2[2-9]\./.test(v)) throw new Error(`the installed node is ${v}, not 22 or later`)
  fs.writeFileSync(stamp, lock)
}

/** A workspace with a little in it: a git repository, `dacli init`, a project and two tasks. */
function workspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dacli-conformance-'))
  const env = { ...process.env, GIT_AUTHOR_NAME: 'c', GIT_AUTHOR_EMAIL: 'c@example.com', GIT_COMMITTER_NAME: 'c' }
  delete env.DACLI_AGENT
  execFileSync('git', ['init', '-q'], { cwd: dir, env })
  const dacli = (...args) => execFileSync(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: 'pipe' })
  dacli('init')
  dacli('project', 'add', 'Conformance', '--slug', 'conf')
  dacli('task', 'add', 'First task', '--project', 'conf', '--accept', 'it works')
  dacli('task', 'add', 'Second task', '--project', 'conf', '--depends-on', '1')
  return { dir, env }
}

/** `dacli mcp serve --http 127.0.0.1:0` in `dir`: its URL (stdout) and launch token (stderr). */
async function serve({ dir, env }) {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--http', '127.0.0.1:0'], { cwd: dir, env })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  const deadline = Date.now() + 20_000
  while (!(out.includes('\n') && /shown once\): (\w+)\n/.test(err))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`dacli mcp serve did not start:\n${err}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { child, url: new URL(out.trim()), token: /shown once\): (\w+)\n/.exec(err)[1], stderr: () => err }
}

/** The proxy: every request forwarded to `target` with `Authorization: Bearer <token>` added, bodies streamed. */
async function proxy(target, token) {
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` }
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    res.on('close', () => up.destroy())
    req.pipe(up)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

/** The scenario results the suite wrote under `dir`: name → {passed, checks}. */
function results(dir) {
  const out = new Map()
  if (!fs.existsSync(dir)) return out
  for (const e of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, e, 'checks.json')
    if (!fs.existsSync(file)) continue
    const name = e.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '')
    const checks = JSON.parse(fs.readFileSync(file, 'utf8'))
    const failed = checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? ''}`)
    const warned = checks.filter((c) => c.status === 'WARNING').map((c) => c.id)
    out.set(name, { passed: failed.length === 0, failed, warned, total: checks.length })
  }
  return out
}

async function main() {
  const args = process.argv.slice(2)
  install()
  if (!fs.existsSync(BIN)) throw new Error('build/dacli.js is missing: npm run build first')
  const ws = workspace()
  const server = await serve(ws)
  const front = await proxy(server.url, server.token)
  const url = `http://127.0.0.1:${front.address().port}${server.url.pathname}`
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dacli-conformance-results-'))
  log(`dacli serves ${server.url.href}; the suite talks to ${url} (the proxy adds the launch token)`)
  const suiteArgs = ['server', '--url', url, '-o', outDir]
  if (!args.includes('--scenario')) suiteArgs.push('--expected-failures', path.join(PINS, 'baseline.yml'))
  const code = await new Promise((resolve) => {
    const run = spawn(NODE22, [SUITE, ...suiteArgs, ...args], { stdio: ['ignore', 'inherit', 'inherit'] })
    run.on('exit', (c) => resolve(c ?? 1))
  })
  front.close()
  server.child.kill('SIGTERM')
  await new Promise((r) => server.child.on('exit', r))
  const table = results(outDir)
  process.stdout.write('\nscenario result checks\n')
  for (const [name, r] of table) {
    const why = r.failed.length > 0 ? ` (failed: ${r.failed.join(', ')})` : ''
    const warn = r.warned.length > 0 ? ` (warnings: ${r.warned.join(', ')})` : ''
    process.stdout.write(`${name} ${r.passed ? 'passed' : 'failed'} ${r.total}${why}${warn}\n`)
  }
  fs.rmSync(ws.dir, { recursive: true, force: true })
  fs.rmSync(outDir, { recursive: true, force: true })
  process.exitCode = code
}

main().catch((e) => {
  log(e.stack ?? String(e))
  process.exitCode = 1
})
