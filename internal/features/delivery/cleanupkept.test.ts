// What a cleanup moved aside is the restore artifact's, not the workspace's: a later cleanup never lists it again
// (applying that would take it out of the first artifact, which could then not restore it), and doctor does not
// report it as a leftover.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('files a cleanup moved into its artifact are not candidates again, and the artifact restores them', async () => {
  const ws = await workspace()
  const temp = '.dacli/.foo.dacli-tmp-99999-deadbeef-1'
  const copy = '.dacli/config.yml.conflict-abcdef1'
  fs.writeFileSync(path.join(ws.root, temp), 'half\n')
  fs.copyFileSync(path.join(ws.root, '.dacli/config.yml'), path.join(ws.root, copy))
  const first = (await ws.dacli('cleanup', '--json')).expectExit(0).json
  expect(first.candidates.map((c: { subject: string }) => c.subject)).toContain(temp)
  const applied = (await ws.dacli('cleanup', '--apply-safe', first.plan_id, '--json')).expectExit(0).json
  expect(fs.existsSync(path.join(ws.root, temp))).toBe(false)

  const again = (await ws.dacli('cleanup', '--json')).expectExit(0).json
  expect(again.candidates).toEqual([])
  const doctor = (await ws.dacli('doctor', '--json')).json
  const kept = doctor.findings.filter((f: { subject: string }) => f.subject.startsWith('.dacli/cleanup/'))
  expect(kept).toEqual([])

  // The artifact's own files are still the workspace's: a record pull's conflict copy of restore.json is reported.
  const theirs = `${applied.artifact}/restore.json.conflict-abcdef1`
  fs.copyFileSync(path.join(ws.root, applied.artifact, 'restore.json'), path.join(ws.root, theirs))
  const seen = (await ws.dacli('doctor', '--json')).json.findings.map((f: { subject: string }) => f.subject)
  expect(seen).toContain(theirs)
  fs.rmSync(path.join(ws.root, theirs))

  const restored = (await ws.dacli('cleanup', '--restore', path.basename(applied.artifact), '--json')).expectExit(0)
  expect(restored.json.outcomes.every((o: { outcome: string }) => o.outcome === 'restored')).toBe(true)
  expect(fs.readFileSync(path.join(ws.root, temp), 'utf8')).toBe('half\n')
})

test('a restore that cannot put something back prints its document and exits 1', async () => {
  const ws = await workspace()
  const temp = '.dacli/.bar.dacli-tmp-99999-deadbeef-1'
  fs.writeFileSync(path.join(ws.root, temp), 'half\n')
  const plan = (await ws.dacli('cleanup', '--json')).expectExit(0).json
  const applied = (await ws.dacli('cleanup', '--apply-safe', plan.plan_id, '--json')).expectExit(0).json
  fs.rmSync(path.join(ws.root, applied.artifact, 'files', temp))
  const r = (await ws.dacli('cleanup', '--restore', path.basename(applied.artifact), '--json')).expectExit(1)
  expect(r.json).toMatchObject({ schema: 'repository-cleanup/v1', mode: 'restore' })
  expect(r.json.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['failed'])
})
