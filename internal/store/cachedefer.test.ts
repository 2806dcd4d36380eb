// A large cache file is not rewritten for a few entries (filecache.ts, DEFER_BYTES_PER_ENTRY): files edited by hand
// and settled since are parsed again by each command that needs them, and every answer still shows the edits; once
// enough entries wait, the next command rewrites the file and keeps them.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { generate } from '../../bench/generate.mjs'
import { BIN, baseEnv, tempDir } from '../testkit/ws.js'

/** Long enough for a file just written to settle (the cache keeps no file changed within the last three seconds). */
const settle = () => new Promise((r) => setTimeout(r, 3_100))
const PER_ENTRY = 256 * 1024

test('a few settled hand edits leave the list items as they were (each still shown); enough of them rewrite them', async () => {
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
  // What a listing keeps up: its items (the few files it missed are read from themselves, not via the index).
  const items = path.join(root, '.dacli', 'cache', 'items')
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
  const first = fs.statSync(items)
  // Large enough that one waiting entry is not worth a rewrite, and small enough that a few are.
  expect(first.size).toBeGreaterThan(2 * PER_ENTRY)
  const trigger = Math.floor(first.size / PER_ENTRY) + 1

  // One file edited by hand, settled: shown, and the items neither rewritten nor replaced.
  retitle(files[0] as string, 'Edited once by hand')
  await settle()
  expect(list().get(seqOf(files[0] as string))).toBe('Edited once by hand')
  expect(list().get(seqOf(files[0] as string))).toBe('Edited once by hand')
  const after = fs.statSync(items)
  expect([after.ino, after.mtimeMs, after.size]).toEqual([first.ino, first.mtimeMs, first.size])

  // Enough settled edits: the next listing rewrites the items with their entries (their new titles among them).
  const edited = files.slice(1, 1 + trigger)
  for (const [i, name] of edited.entries()) retitle(name, `Edited by hand ${i}`)
  await settle()
  const titles = list()
  for (const [i, name] of edited.entries()) expect(titles.get(seqOf(name))).toBe(`Edited by hand ${i}`)
  expect(titles.get(seqOf(files[0] as string))).toBe('Edited once by hand')
  const rewritten = fs.statSync(items)
  expect(rewritten.ino).not.toBe(first.ino)
  const line = fs
    .readFileSync(items, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('proj000\t')) as string
  // An item entry is `<name>\t<stamp>\t<id>\t<version>\t<item JSON>`: its stamp is the second field.
  const stamps = new Map(
    line
      .slice(line.indexOf('\t') + 1)
      .split('\u001e')
      .map((e) => e.split('\t'))
      .map(([name, stamp]) => [name, stamp?.split(':').map(Number)]),
  )
  for (const name of [files[0] as string, ...edited]) {
    const st = fs.statSync(path.join(open, name))
    expect(stamps.get(`open/${name}`), name).toEqual([st.size, Math.trunc(st.mtimeMs), st.ino, Math.trunc(st.ctimeMs)])
  }
}, 60_000)
