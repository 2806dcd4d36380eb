// The bin (cmd/bin.cjs, built to build/dacli.js): it turns on Node's own compile cache where the running Node has
// module.enableCompileCache, and otherwise keeps V8's code cache of each chunk itself; either way the answer is the same. The
// chunks are plain, readable CommonJS: nothing minified, no stand-in for a built-in module.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as vm from 'node:vm'
import { describe, expect, test } from 'vitest'
import { BIN, REPO_ROOT, tempDir } from '../internal/testkit/ws.js'

const CHUNKS = path.join(REPO_ROOT, 'build', 'chunks')

/** `dacli ...argv` through the built bin, with `preload` (a -r script) when given. */
function run(argv: readonly string[], opts: { preload?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [...(opts.preload ? ['-r', opts.preload] : []), BIN, ...argv], {
    cwd: tempDir(),
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...opts.env },
    encoding: 'utf8',
  })
  expect(r.status, r.stderr).toBe(0)
  return r
}

describe('the bin', () => {
  const expected = run(['--version']).stdout

  test('calls module.enableCompileCache where Node has it, before any chunk loads, and answers the same', () => {
    // A Node that has the function is simulated on any Node: a preload gives node:module one that records the call
    // and whether a chunk had loaded by then.
    const log = path.join(tempDir(), 'calls.txt')
    const preload = path.join(tempDir(), 'cache-api.cjs')
    fs.writeFileSync(
      preload,
      [
        "const m = require('node:module')",
        'm.enableCompileCache = (...args) => {',
        "  const chunks = Object.keys(require.cache).filter((f) => f.includes('chunks'))",
        `  require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args, chunks }) + '\\n')`,
        '  return { status: 1 }',
        '}',
        '',
      ].join('\n'),
    )
    expect(run(['--version'], { preload }).stdout).toBe(expected)
    const calls = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    // Once, with no folder of its own: NODE_COMPILE_CACHE (or Node's default) decides where the cache lives.
    expect(calls).toEqual([{ args: [], chunks: [] }])
  })

  test('on a Node without it (Node 20) the bin keeps V8’s code cache of each chunk, and the answer is the same', () => {
    const preload = path.join(tempDir(), 'no-cache-api.cjs')
    fs.writeFileSync(preload, "delete require('node:module').enableCompileCache\n")
    const dir = path.join(tempDir(), 'cc')
    const env = { NODE_COMPILE_CACHE: dir }
    expect(run(['help'], { preload, env }).stdout).toBe(run(['help']).stdout)
    // One entry per chunk the run loaded, named by the chunk and its file's stamp, readable by the user alone.
    const entries = () => fs.readdirSync(dir).sort()
    const first = entries()
    expect(first.length).toBeGreaterThan(0)
    for (const e of first) {
      expect(e).toMatch(/^[\w-]+-\d+-\d+-[\d.]+-[\d.]+$/)
      expect(fs.statSync(path.join(dir, e)).mode & 0o077).toBe(0)
    }
    expect(fs.statSync(dir).mode & 0o077).toBe(0)
    const stampOf = (e: string) => fs.statSync(path.join(dir, e)).mtimeMs
    const before = new Map(first.map((e) => [e, stampOf(e)]))
    // The next run uses them: V8 accepts each, so none is written again.
    expect(run(['help'], { preload, env }).stdout).toBe(run(['help']).stdout)
    expect(entries()).toEqual(first)
    for (const e of first) expect(stampOf(e), e).toBe(before.get(e))
    // A damaged entry is rejected by V8: the chunk is compiled from source, the answer is the same, and the entry is
    // written again.
    const victim = path.join(dir, first.find((e) => e.startsWith('main-')) as string)
    fs.writeFileSync(victim, Buffer.alloc(4096, 7))
    expect(run(['help'], { preload, env }).stdout).toBe(run(['help']).stdout)
    expect(fs.readFileSync(victim).equals(Buffer.alloc(4096, 7))).toBe(false)
    // NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own.
    const off = path.join(tempDir(), 'off')
    expect(
      run(['--version'], { preload, env: { NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' } }).stdout,
    ).toBe(expected)
    expect(fs.existsSync(off)).toBe(false)
  })

  test('on Node 20 a run that writes an entry removes the stale ones of other chunks, and nothing else', () => {
    const preload = path.join(tempDir(), 'no-cache-api.cjs')
    fs.writeFileSync(preload, "delete require('node:module').enableCompileCache\n")
    const dir = path.join(tempDir(), 'cc-prune')
    const env = { NODE_COMPILE_CACHE: dir }
    run(['help'], { preload, env })
    const own = fs.readdirSync(dir).sort()
    const longAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000)
    const recent = new Date(Date.now() - 2 * 24 * 3600 * 1000)
    const plant = (name: string, at: Date, dirToo = false) => {
      const p = path.join(dir, name)
      if (dirToo) fs.mkdirSync(p)
      else fs.writeFileSync(p, 'x')
      fs.utimesSync(p, at, at)
    }
    // Another install's entries and a writer's leftover temp file, old and recent; what the bin never writes.
    plant('chunk-OLDINSTALL-1234-99-1700000000000.5-1700000000000.5', longAgo)
    plant('main-75000-98-1700000000000-1700000000000.123.tmp', longAgo)
    plant('chunk-RECENT-1234-97-1700000000000-1700000000000', recent)
    plant('v22.9.0-x64-abcdef', longAgo, true) // Node's own cache may share a NODE_COMPILE_CACHE folder
    plant('notes.txt', longAgo)
    // This install's own entries, however old, stay.
    for (const e of own) fs.utimesSync(path.join(dir, e), longAgo, longAgo)
    // A warm run writes nothing and so lists nothing: the stale entries are still there.
    run(['help'], { preload, env })
    expect(fs.readdirSync(dir)).toContain('chunk-OLDINSTALL-1234-99-1700000000000.5-1700000000000.5')
    // A run that writes an entry (one of its own was lost) prunes.
    const lost = own.find((e) => e.startsWith('main-')) as string
    fs.rmSync(path.join(dir, lost))
    run(['help'], { preload, env })
    expect(fs.readdirSync(dir).sort()).toEqual(
      [...own, 'chunk-RECENT-1234-97-1700000000000-1700000000000', 'notes.txt', 'v22.9.0-x64-abcdef'].sort(),
    )
  })

  test('a cache folder others can write, or a link, is never used', () => {
    const preload = path.join(tempDir(), 'no-cache-api.cjs')
    fs.writeFileSync(preload, "delete require('node:module').enableCompileCache\n")
    const open = path.join(tempDir(), 'open')
    fs.mkdirSync(open)
    fs.chmodSync(open, 0o777)
    expect(run(['help'], { preload, env: { NODE_COMPILE_CACHE: open } }).stdout).toBe(run(['help']).stdout)
    expect(fs.readdirSync(open)).toEqual([])
    const real = path.join(tempDir(), 'real')
    fs.mkdirSync(real, { mode: 0o700 })
    const link = path.join(tempDir(), 'link')
    fs.symlinkSync(real, link)
    expect(run(['help'], { preload, env: { NODE_COMPILE_CACHE: link } }).stdout).toBe(run(['help']).stdout)
    expect(fs.readdirSync(real)).toEqual([])
  })

  test('a compile cache folder that cannot be used only costs speed', () => {
    // Node's own switch: NODE_COMPILE_CACHE naming a file, not a folder (Node 22 reports it and goes on; Node 20
    // does not read it).
    const file = path.join(tempDir(), 'not-a-folder')
    fs.writeFileSync(file, 'x')
    expect(run(['--version'], { env: { NODE_COMPILE_CACHE: file } }).stdout).toBe(expected)
  })

  test('the chunks are readable CommonJS with source maps: not minified, no stand-in module, no hand-made cache', () => {
    const names = fs.readdirSync(CHUNKS)
    // Beside each chunk its source map, and nothing else (no code cache of our own).
    expect(names.filter((n) => !n.endsWith('.js') && !n.endsWith('.js.map'))).toEqual([])
    for (const n of names.filter((x) => x.endsWith('.js'))) expect(names).toContain(`${n}.map`)
    const map = JSON.parse(fs.readFileSync(path.join(CHUNKS, 'main.js.map'), 'utf8'))
    expect(map.sources).toContain('../../cmd/dacli.ts') // named from build/chunks, as Node resolves them
    for (const n of names.filter((x) => x.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(CHUNKS, n), 'utf8')
      // Minified code is a few very long lines; ours keeps the source's lines (the long ones are data, e.g. help).
      const lines = text.split('\n')
      expect(lines.filter((l) => l.length > 2000).length, n).toBeLessThan(Math.max(3, lines.length / 100))
      expect(text, n).not.toContain('dacli-builtin')
    }
  })

  test('a chunk turns each built-in module into a module object once, not once per source file', () => {
    // esbuild writes `__toESM(require("node:fs"))` for every source file importing node:fs (the store's chunk had
    // 40, each a getter per export): the build shares one per built-in and chunk, the module its prototype
    // (scripts/build.mjs builtinsOnce).
    let shared = 0
    for (const n of fs.readdirSync(CHUNKS).filter((x) => x.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(CHUNKS, n), 'utf8')
      expect(text, n).not.toMatch(/__toESM\(require\("node:/)
      shared += (text.match(/__dacliNs\("node:fs"\)/g) ?? []).length
    }
    expect(shared).toBeGreaterThan(10) // the store's modules still import node:fs, through the shared object
  })

  test('node:crypto is required where it is used, never when a chunk loads', () => {
    // A read never hashes nor takes random bytes, yet the store's modules import node:crypto (5–10 ms of a
    // command with the streams library behind it): each use reads the shared module object, required on first use
    // (scripts/build.mjs whereUsed).
    let uses = 0
    for (const n of fs.readdirSync(CHUNKS).filter((x) => x.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(CHUNKS, n), 'utf8')
      expect(text, n).not.toMatch(/require\("(node:)?crypto"\)/)
      expect(text, n).not.toMatch(/^var \w+ = __dacliNs\("node:crypto"\);$/m)
      uses += (text.match(/__dacliNs\("node:crypto"\)\./g) ?? []).length
    }
    expect(uses).toBeGreaterThan(10) // temp names, lock tokens, ids, hashes, signatures
  })

  test('a chunk loaded again (a server loads a command at every call) is the module object made the first time', () => {
    // esbuild's helper makes a new object per `await import()`, with a getter per export (scripts/build.mjs
    // chunksOnce): every chunk that loads another keeps the one it made, by module.
    const loaders = fs
      .readdirSync(CHUNKS)
      .filter((x) => x.endsWith('.js'))
      .map((n) => fs.readFileSync(path.join(CHUNKS, n), 'utf8'))
      .filter((t) => t.includes('__toESM(require("./'))
    expect(loaders.length).toBeGreaterThan(3)
    for (const text of loaders) {
      expect(text.split('\n')[0]).toContain('function __toESM(mod,isNodeMode,target)')
      expect(text).toContain('var __toESM0 = (mod, isNodeMode, target) =>')
    }
    // The wrapper itself, run over a stand-in for esbuild's helper that counts the objects it makes.
    const helper = /var __dacliEsm=.*?return m\}/.exec((loaders[0] as string).split('\n')[0] as string)?.[0] as string
    const made: unknown[] = []
    const ctx = { __toESM0: (mod: object) => made[made.push({ of: mod }) - 1] } as Record<string, unknown>
    vm.runInNewContext(`${helper};this.toESM=__toESM`, ctx)
    const toESM = ctx.toESM as (mod: object, nodeMode?: number) => unknown
    const chunk = {}
    expect(toESM(chunk)).toBe(toESM(chunk))
    expect(made).toHaveLength(1)
    expect(toESM({})).not.toBe(toESM(chunk))
    toESM(chunk, 1) // node mode (`default` is the module): made as esbuild makes it, every time
    expect(made).toHaveLength(3)
  })
})

test('under DACLI_DEBUG=1 a failure’s stack names the source files and their lines', () => {
  const r = spawnSync(process.execPath, [BIN, 'task', 'show', 'nowhere/1'], {
    cwd: tempDir(),
    env: { PATH: process.env.PATH, NO_COLOR: '1', DACLI_DEBUG: '1' },
    encoding: 'utf8',
  })
  expect(r.status).toBe(4) // no workspace here
  expect(r.stderr).toMatch(/\binternal\/store\/workspace\.ts:\d+:\d+\)/)
  expect(r.stderr).toMatch(/\binternal\/clikit\/invoke\.ts:\d+:\d+\)/)
})

test('an argument whose bytes are not UTF-8 is refused (exit 2) and nothing is written', () => {
  const dir = tempDir()
  const sh = (line: string) =>
    spawnSync('sh', ['-c', line], { cwd: dir, env: { PATH: process.env.PATH, NO_COLOR: '1' }, encoding: 'utf8' })
  const dacli = `'${process.execPath}' '${BIN}'`
  expect(sh(`git init -q && ${dacli} init && ${dacli} project add Alpha --slug alpha`).status).toBe(0)
  const tasks = path.join(dir, '.dacli', 'projects', 'alpha')
  const before = fs.readdirSync(tasks, { recursive: true })
  const r = sh(`${dacli} task add "$(printf 'bad\\377\\376')" --project alpha --json`)
  expect(r.status, r.stderr).toBe(2)
  expect(JSON.parse(r.stderr)).toMatchObject({ schema: 'error/v1', exit_code: 2 })
  expect(r.stderr).toContain('not valid UTF-8')
  expect(fs.readdirSync(tasks, { recursive: true })).toEqual(before)
  // U+FFFD typed as a character (valid UTF-8) is text like any other.
  expect(sh(`${dacli} task add "a \u{FFFD} b" --project alpha --accept x`).status).toBe(0)
})
