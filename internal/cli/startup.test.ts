// What a start-up loads of Node itself. The chunks are CommonJS that require the built-ins they use as they are
// (no stand-ins); node:crypto is required where it is used (scripts/build.mjs whereUsed), so only a command that hashes
// loads it (and the streams library it loads): an agent's command (it hashes its token), a signature. The random
// bytes of a write (temp-file names, lock tokens, new ids) come from /dev/urandom (base/entropy.ts) and its
// temp-file names' host tag from FNV-1a, so a task write loads no crypto either. What stays off: for --version and
// help, crypto and the streams library (node:fs is required, so its stream getters are never read); for the reads on
// a workspace at rest and the task writes, crypto too; for the reads and task add, node:child_process with node:net
// and dgram behind it (only a command that runs git or a --verify command loads them, when it does) and WebCrypto.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, expect, test, vi } from 'vitest'
import { BIN, baseEnv, tempDir, type Workspace, workspace } from '../testkit/ws.js'

let ws: Workspace
let probe: string

beforeAll(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'First', '--project', 'alpha')).expectExit(0)
  // Files written a moment ago are "racily fresh" and never cached. A workspace at rest is older than that, so the
  // files are aged and the caches written once.
  const hourAgo = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(path.join(ws.root, '.dacli'), { recursive: true, withFileTypes: true })) {
    if (f.isFile()) fs.utimesSync(path.join(f.parentPath, f.name), hourAgo, hourAgo)
  }
  // utimes moves the change times: the in-process runs that write the caches see a clock a minute on.
  vi.useFakeTimers({ now: Date.now() + 60_000, toFake: ['Date'] })
  ;(await ws.dacli('task', 'list', '--json')).expectExit(0)
  ;(await ws.dacli('task', 'show', 'alpha/001', '--json')).expectExit(0)
  vi.useRealTimers()
  // A preload that writes, at exit, the built-in modules the process loaded.
  probe = path.join(tempDir(), 'probe.cjs')
  fs.writeFileSync(
    probe,
    "process.on('exit', () => require('fs').writeFileSync(process.env.PROBE_OUT, process.moduleLoadList.concat(Object.keys(require.cache)).join('\\n')))\n",
  )
})

/** The built-in modules and the module files `dacli ...args` loads (exit code checked), its output read through pipes. */
function loaded(...args: string[]): string[] {
  return loadedWith('pipe', args)
}

/** loaded, with stdout and stderr sent where `stdio` says (a descriptor, or pipes). */
function loadedWith(stdio: 'pipe' | number, args: readonly string[]): string[] {
  const out = path.join(tempDir(), 'loaded.txt')
  const r = spawnSync(process.execPath, ['-r', probe, BIN, ...args], {
    cwd: ws.root,
    env: { ...baseEnv(), PROBE_OUT: out },
    encoding: 'utf8',
    stdio: stdio === 'pipe' ? 'pipe' : ['ignore', stdio, stdio],
  })
  expect(r.status, r.stderr ?? '').toBe(0)
  return fs.readFileSync(out, 'utf8').split('\n')
}

test('output sent to /dev/null is no terminal: node:tty and node:net stay unloaded', () => {
  const nul = fs.openSync('/dev/null', 'w')
  try {
    for (const args of [['--version'], ['task', 'show', 'alpha/001', '--json']]) {
      const mods = loadedWith(nul, args)
      expect(mods, args.join(' ')).toContain('NativeModule fs')
      expect(
        mods.filter((m) => /NativeModule (tty|net)$/.test(m)),
        args.join(' '),
      ).toEqual([])
    }
  } finally {
    fs.closeSync(nul)
  }
})

test('--version, help, the reads and the task writes load no crypto, nor the first two the streams library; the reads and task add spawn nothing', () => {
  for (const args of [['--version'], ['help']]) {
    const mods = loaded(...args)
    expect(
      mods.filter((m) => /NativeModule (crypto|stream|internal\/fs\/streams|child_process|net)$/.test(m)),
      args.join(' '),
    ).toEqual([])
  }
  for (const args of [
    ['task', 'show', 'alpha/001', '--json'],
    ['task', 'list', '--json'],
    ['task', 'add', 'Second', '--project', 'alpha', '--accept', 'works', '--quiet'],
  ]) {
    const first = loaded(...args)
    const mods = args[1] === 'add' ? first : loaded(...args)
    expect(
      mods.filter((m) => /NativeModule (child_process|net|dgram|internal\/crypto\/webcrypto)$/.test(m)),
      args.join(' '),
    ).toEqual([])
    // A read run again writes nothing (the first wrote what the caches lacked), so it neither hashes nor takes
    // random bytes; task add takes them (a new id, a lock token, a temp-file name) from /dev/urandom.
    expect(mods, args.join(' ')).not.toContain('NativeModule crypto')
  }
  // Claim (of a free task: no identity's keys read), check, edit and done: a lock token and a temp-file name
  // each, and no crypto.
  for (const args of [
    ['task', 'claim', 'alpha/002', '--quiet'],
    ['task', 'check', 'alpha/002', '--all', '--quiet'],
    ['task', 'edit', 'alpha/002', '--title', 'Second, renamed', '--quiet'],
    ['task', 'done', 'alpha/002', '--quiet'],
  ])
    expect(loaded(...args), args.join(' ')).not.toContain('NativeModule crypto')
  // Spawning an identity derives and signs with Ed25519 and hashes its token: the real functions ran.
  const spawned = loaded('agent', 'spawn', '--role', 'worker', '--json')
  expect(spawned).toContain('NativeModule crypto')
})

test('claim, check and done on a task file dacli wrote load no YAML library; a comment in its frontmatter does', async () => {
  // The chunks that hold the library, by their source maps.
  const chunks = path.join(path.dirname(BIN), 'chunks')
  const yaml = fs
    .readdirSync(chunks)
    .filter(
      (f) => f.endsWith('.js.map') && fs.readFileSync(path.join(chunks, f), 'utf8').includes('node_modules/yaml/'),
    )
    .map((f) => path.join(chunks, f.slice(0, -'.map'.length)))
  expect(yaml.length).toBeGreaterThan(0)
  const yamlIn = (mods: string[]) => mods.filter((m) => yaml.includes(m))
  ;(await ws.dacli('task', 'add', 'Plain', '--project', 'alpha', '--accept', 'works', '--json')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Commented', '--project', 'alpha', '--accept', 'works', '--json')).expectExit(0)
  const [plain, commented] = ['plain', 'commented'].map((slug) => {
    const open = path.join(ws.root, '.dacli', 'projects', 'alpha', 'tasks', 'open')
    return `alpha/${(fs.readdirSync(open).find((f) => f.endsWith(`-${slug}.md`)) as string).split('-')[0]}`
  })
  for (const args of [
    ['task', 'claim', plain as string, '--quiet'],
    ['task', 'check', plain as string, '--all', '--quiet'],
    ['task', 'done', plain as string, '--quiet'],
  ])
    expect(yamlIn(loaded(...args)), args.join(' ')).toEqual([])
  const file = path.join(ws.root, '.dacli', 'projects', 'alpha', 'tasks', 'open')
  const name = fs.readdirSync(file).find((f) => f.endsWith('-commented.md')) as string
  const text = fs.readFileSync(path.join(file, name), 'utf8')
  fs.writeFileSync(path.join(file, name), text.replace('\nkind: task\n', '\nkind: task # by hand\n'))
  expect(yamlIn(loaded('task', 'claim', commented as string, '--quiet')).length).toBeGreaterThan(0)
  expect(fs.readFileSync(path.join(file, '..', 'active', name), 'utf8')).toContain('kind: task # by hand\n')
})
