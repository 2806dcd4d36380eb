// What a start-up loads of Node itself: node:crypto, node:os and node:fs are reached through the build's
// stand-ins (scripts/builtins.mjs), so a command that neither hashes nor signs never loads crypto, none loads the
// streams library through node:fs's export getters, and a command that signs gets the real functions.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { standIn } from '../../scripts/builtins.mjs'
import { BIN, baseEnv, tempDir, type Workspace, workspace } from '../testkit/ws.js'

let ws: Workspace
let probe: string

beforeAll(async () => {
  ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'First', '--project', 'alpha')).expectExit(0)
  // Files written a moment ago are "racily fresh": the cache checks them by digest (a hash). A workspace at rest
  // is older than that, so the files are aged and the caches written once.
  const hourAgo = new Date(Date.now() - 3_600_000)
  for (const f of fs.readdirSync(path.join(ws.root, '.dacli'), { recursive: true, withFileTypes: true })) {
    if (f.isFile()) fs.utimesSync(path.join(f.parentPath, f.name), hourAgo, hourAgo)
  }
  ;(await ws.dacli('task', 'list', '--json')).expectExit(0)
  ;(await ws.dacli('task', 'show', 'alpha/001', '--json')).expectExit(0)
  // A preload that writes, at exit, the built-in modules the process loaded.
  probe = path.join(tempDir(), 'probe.cjs')
  fs.writeFileSync(
    probe,
    "process.on('exit', () => require('fs').writeFileSync(process.env.PROBE_OUT, process.moduleLoadList.join('\\n')))\n",
  )
})

/** The built-in modules `dacli ...args` loads (exit code checked). */
function loaded(...args: string[]): string[] {
  const out = path.join(tempDir(), 'loaded.txt')
  const r = spawnSync(process.execPath, ['-r', probe, BIN, ...args], {
    cwd: ws.root,
    env: { ...baseEnv(), PROBE_OUT: out },
    encoding: 'utf8',
  })
  expect(r.status, r.stderr).toBe(0)
  return fs.readFileSync(out, 'utf8').split('\n')
}

test('--version, help, task show and task list load no node:crypto; task add no child_process nor WebCrypto; a command that signs loads and uses crypto', () => {
  for (const args of [['--version'], ['help'], ['task', 'show', 'alpha/001', '--json'], ['task', 'list', '--json']]) {
    const mods = loaded(...args)
    expect(
      mods.filter((m) => m.includes('crypto')),
      args.join(' '),
    ).toEqual([])
    // node:fs's facade would read its ReadStream getter (the streams library) and `promises`.
    expect(
      mods.filter((m) => /NativeModule (stream|internal\/fs\/streams|os)$/.test(m)),
      args.join(' '),
    ).toEqual([])
  }
  // A task add takes random bytes (its id, its lock) from crypto, but spawns nothing and never needs WebCrypto.
  const added = loaded('task', 'add', 'Second', '--project', 'alpha', '--accept', 'works', '--quiet')
  expect(added.filter((m) => /NativeModule (child_process|net|dgram|internal\/crypto\/webcrypto)$/.test(m))).toEqual([])
  // Spawning an identity derives and signs with Ed25519 and hashes its token: the real functions ran.
  const spawned = loaded('agent', 'spawn', '--role', 'worker', '--json')
  expect(spawned).toContain('NativeModule crypto')
})

test('the crypto stand-in offers every function of node:crypto and nothing that is not one', () => {
  const text = standIn('node:crypto')
  expect(text).toMatch(/^export function createHash\(\.\.\.a\) \{ return mod\(\)\.createHash\(\.\.\.a\) \}$/m)
  expect(text).toMatch(/^export function randomBytes\(/m)
  expect(text).not.toMatch(/export function (webcrypto|constants|KeyObject)\b/)
})

test('the fs stand-in re-exports node:fs values and functions, and leaves the stream getters out', () => {
  const text = standIn('node:fs')
  expect(text).toMatch(/^export const readFileSync = mod\.readFileSync$/m)
  expect(text).toMatch(/^export const Stats = mod\.Stats$/m)
  // A lazy getter until first read (Node replaces it with its value then): a call-through, or the value.
  expect(text).toMatch(
    /^export (function opendirSync\(\.\.\.a\) \{ return mod\.opendirSync\(\.\.\.a\) \}|const opendirSync = mod\.opendirSync)$/m,
  )
  expect(text).not.toMatch(/\b(ReadStream|WriteStream|promises)\b/)
})
