// The bin (cmd/bin.cjs, built to build/dacli.js) loads the bundle's chunks from their V8 code caches; a cache V8
// refuses, or none at all, only costs speed.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { BIN, REPO_ROOT, tempDir } from '../internal/testkit/ws.js'

/** `--version` through the bin at `bin`, with NODE_DEBUG=dacli: its output and each chunk it loaded, as logged. */
function version(bin: string): { stdout: string; loads: string[] } {
  const r = spawnSync(process.execPath, [bin, '--version'], {
    cwd: tempDir(),
    env: { PATH: process.env.PATH, NODE_DEBUG: 'dacli', NO_COLOR: '1' },
    encoding: 'utf8',
  })
  expect(r.status, r.stderr).toBe(0)
  return { stdout: r.stdout, loads: r.stderr.match(/(?<=DACLI \d+: load ).*/g) ?? [] }
}

/** A copy of build/ (the bin, build/package.json and the chunks) to spoil. */
function copyOfBuild(): string {
  const dir = path.join(tempDir(), 'build')
  fs.cpSync(path.join(REPO_ROOT, 'build'), dir, { recursive: true })
  return dir
}

describe('the bin', () => {
  const expected = version(BIN).stdout

  test('loads each chunk from the code cache the build made for it', () => {
    const { loads } = version(BIN)
    expect(loads.length).toBeGreaterThanOrEqual(3)
    // A chunk loaded without its cache, or with one V8 refused, says so.
    expect(loads.filter((l) => l.includes('('))).toEqual([])
    for (const l of loads) expect(fs.existsSync(`${l}.cache`)).toBe(true)
  })

  test('a cache V8 refuses (cut short by an interrupted write; made by another V8 or with other flags) is ignored', () => {
    const dir = copyOfBuild()
    const chunks = path.join(dir, 'chunks')
    const caches = fs.readdirSync(chunks).filter((n) => n.endsWith('.cache'))
    caches.forEach((f, i) => {
      const file = path.join(chunks, f)
      const bytes = fs.readFileSync(file)
      if (i % 2 === 0) fs.writeFileSync(file, bytes.subarray(0, bytes.length >> 1))
      else fs.writeFileSync(file, Buffer.concat([Buffer.alloc(16, 7), bytes.subarray(16)])) // its header: version, flags
    })
    const { stdout, loads } = version(path.join(dir, 'dacli.js'))
    expect(stdout).toBe(expected)
    expect(loads.length).toBeGreaterThanOrEqual(3)
    for (const l of loads) expect(l).toMatch(/\(cache rejected\)$/)
  })

  test('without any cache the bin works as well, compiling every chunk from source', () => {
    const dir = copyOfBuild()
    const chunks = path.join(dir, 'chunks')
    for (const f of fs.readdirSync(chunks).filter((n) => n.endsWith('.cache'))) fs.rmSync(path.join(chunks, f))
    const { stdout, loads } = version(path.join(dir, 'dacli.js'))
    expect(stdout).toBe(expected)
    for (const l of loads) expect(l).toMatch(/\(no cache\)$/)
  })
})
