// The bin (cmd/bin.cjs, built to build/dacli.js): it turns on Node's own compile cache where the running Node has
// module.enableCompileCache, and otherwise compiles the chunks from source; either way the answer is the same. The
// chunks are plain, readable CommonJS: nothing minified, no stand-in for a built-in module.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
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

  test('on a Node without it (Node 20) every chunk is compiled from source and the answer is the same', () => {
    const preload = path.join(tempDir(), 'no-cache-api.cjs')
    fs.writeFileSync(preload, "delete require('node:module').enableCompileCache\n")
    expect(run(['--version'], { preload }).stdout).toBe(expected)
    expect(run(['help'], { preload }).stdout).toBe(run(['help']).stdout)
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
