// A large cache file is not rewritten for a few entries (filecache.ts, DEFER_BYTES_PER_ENTRY): files edited by hand
// and settled since are parsed again by each command that needs them, and every answer still shows the edits; once
// enough entries wait, the next command rewrites the file and keeps them.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { generate } from '../../bench/generate.mjs'
import { BIN, baseEnv, tempDir } from '../testkit/ws.js'
import { decodeSection } from './filecache.js'

/** Long enough for a file just written to settle (the cache keeps no file changed within the last three seconds). */
const settle = () => new Promise((r) => setTimeout(r, 3_100))
const PER_ENTRY = 256 * 1024

test('a few settled hand edits leave the index as it was (each still shown); enough of them rewrite it', async () => {
  const root = tempDir()
  generate(root, { projects: 1, tasksPerProject: 2000, notes: 0, events: 0 })
  const list = () => {
    const r = spawnSync(process.execPath, [BIN, 'task', 'list', '--json', '--limit', '2000'], {
      cwd: root,
      env: baseEnv() as NodeJS.ProcessEnv,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    })
    expect(r.status, r.stderr).toBe(0)
    return new Map((JSON.parse(r.stdout).tasks as { seq: number; title: string }[]).map((t) => [t.seq, t.title]))
  }
  const index = path.join(root, '.dacli', 'cache', 'index')
  const open = path.join(root, '.dacli', 'projects', 'proj000', 'tasks', 'open')
  const files = fs.readdirSync(open).sort()
  const retitle = (name: string, title: string) => {
    const file = path.join(open, name)
    const text = fs.readFileSync(file, 'utf8')
    fs.writeFileSync(file, text.replace(/^# .*$/m, `# ${title}`))
  }
  const seqOf = (name: string) => Number(name.slice(0, name.indexOf('-')))
  await settle()
  list()
  const first = fs.statSync(index)
  // Large enough that one waiting entry is not worth a rewrite, and small enough that a few are.
  expect(first.size).toBeGreaterThan(2 * PER_ENTRY)
  const trigger = Math.floor(first.size / PER_ENTRY) + 1

  // One file edited by hand, settled: shown, and the index neither rewritten nor replaced.
  retitle(files[0] as string, 'Edited once by hand')
  await settle()
  expect(list().get(seqOf(files[0] as string))).toBe('Edited once by hand')
  expect(list().get(seqOf(files[0] as string))).toBe('Edited once by hand')
  const after = fs.statSync(index)
  expect([after.ino, after.mtimeMs, after.size]).toEqual([first.ino, first.mtimeMs, first.size])

  // Enough settled edits: the next listing rewrites the index with their entries (their new titles among them).
  const edited = files.slice(1, 1 + trigger)
  for (const [i, name] of edited.entries()) retitle(name, `Edited by hand ${i}`)
  await settle()
  const titles = list()
  for (const [i, name] of edited.entries()) expect(titles.get(seqOf(name))).toBe(`Edited by hand ${i}`)
  expect(titles.get(seqOf(files[0] as string))).toBe('Edited once by hand')
  const rewritten = fs.statSync(index)
  expect(rewritten.ino).not.toBe(first.ino)
  const line = fs
    .readFileSync(index, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('tasks/proj000\t')) as string
  const entries = decodeSection(line.slice(line.indexOf('\t') + 1))
  for (const name of [files[0] as string, ...edited]) {
    const st = fs.statSync(path.join(open, name))
    expect(entries[`open/${name}`]?.[0], name).toEqual([
      st.size,
      Math.trunc(st.mtimeMs),
      st.ino,
      Math.trunc(st.ctimeMs),
    ])
  }
}, 60_000)
