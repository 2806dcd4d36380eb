// Issue 14, items 13 and 14: unresolved record conflict copies are visible from
// `status` and `overview` (not only `doctor` and `record push`), and the hint names
// the file to keep — config.yml is not a ".md file". Two real clones and a bare
// remote make the conflict.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { bareRemote, commitStore, pulledClone } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, workspace } from '../../testkit/ws.js'

describe('record conflict copies', () => {
  test('status and overview show them; doctor names the file to keep in its hint', async () => {
    const remote = bareRemote()
    const a = await workspace()
    commitStore(a, 'code')
    git(a.root, 'remote', 'add', 'origin', remote)
    git(a.root, 'push', '-q', 'origin', 'main')
    ;(await a.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    ;(await a.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'works')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const clone = await pulledClone(remote)
    const b = clone.root
    const inB = (...argv: string[]) => clone.dacli(...argv)

    // Both sides rename the workspace and retitle the project. (A task file conflicting this way becomes a question
    // on the task, never a copy: internal/features/record/sync.test.ts.)
    const config = '.dacli/config.yml'
    const task = '.dacli/projects/alpha/project.md'
    a.write(config, a.file(config).replace(/^name: .*$/m, 'name: from-a'))
    a.write(task, a.file(task).replace('# Alpha', '# Alpha (a)'))
    ;(await a.dacli('record', 'push')).expectExit(0)
    const bWrite = (rel: string, f: (s: string) => string) => {
      const p = path.join(b, rel)
      fs.writeFileSync(p, f(fs.readFileSync(p, 'utf8')))
    }
    bWrite(config, (s) => s.replace(/^name: .*$/m, 'name: from-b'))
    bWrite(task, (s) => s.replace('# Alpha', '# Alpha (b)'))
    const pulled = (await inB('record', 'pull', '--json')).expectExit(5)
    const copies = pulled.error.details.conflicts.map((c: { copy: string }) => c.copy).sort()
    expect(copies).toHaveLength(2)

    const st = (await inB('status', '--json')).expectExit(0).json
    expectValid(st)
    expect(st.record_conflicts.map((c: { path: string; of: string }) => [c.path, c.of]).sort()).toEqual(
      copies.map((c: string) => [c, c.replace(/\.conflict-[0-9a-f]+$/, '')]),
    )
    const human = (await inB('status')).expectExit(0).stdout
    expect(human).toMatch(
      /2 unresolved record conflict copies \(left by record pull; record push refuses until resolved\)/,
    )
    const ov = (await inB('overview', '--json')).expectExit(0).json
    expectValid(ov)
    expect(ov.record_conflicts).toBe(2)
    expect((await inB('overview')).stdout).toMatch(/2 unresolved record conflict copies — record push refuses/)

    const doc = (await inB('doctor', '--json')).json
    const hints = Object.fromEntries(
      doc.findings
        .filter((f: { code: string }) => f.code === 'record-conflict')
        .map((f: { subject: string; hint: string }) => [f.subject.replace(/\.conflict-[0-9a-f]+$/, ''), f.hint]),
    )
    expect(hints[config]).toMatch(
      /^compare \.dacli\/config\.yml with this copy, keep what is right in \.dacli\/config\.yml,/,
    )
    expect(hints[config]).not.toMatch(/\.md/)
    expect(hints[task]).toMatch(/keep what is right in \.dacli\/projects\/alpha\/project\.md/)

    // Resolved: gone from all three.
    for (const c of copies) fs.rmSync(path.join(b, c))
    expect((await inB('status', '--json')).json.record_conflicts).toEqual([])
    expect((await inB('overview', '--json')).json.record_conflicts).toBe(0)
    expect((await inB('status')).stdout).not.toMatch(/conflict/)
  })

  test('what a cleanup kept for its restore holds no conflict; a folder of that name anywhere else is walked', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    // Planted by hand: a copy inside what cleanup c1 kept (the artifact's, not the workspace's), one beside it in the
    // cleanup's own folder, and one in a folder named files that no cleanup made.
    ws.write('.dacli/cleanup/c1/files/.dacli/config.yml.conflict-abcdef1', 'kept\n')
    ws.write('.dacli/cleanup/c1/note.md.conflict-abcdef2', 'x\n')
    ws.write('.dacli/projects/alpha/files/a.md.conflict-abcdef3', 'x\n')
    const shown = ['.dacli/cleanup/c1/note.md.conflict-abcdef2', '.dacli/projects/alpha/files/a.md.conflict-abcdef3']
    const st = (await ws.dacli('status', '--json')).expectExit(0).json
    expect(st.record_conflicts.map((c: { path: string }) => c.path).sort()).toEqual(shown)
    const doc = (await ws.dacli('doctor', '--json')).json
    const found = doc.findings.filter((f: { code: string }) => f.code === 'record-conflict')
    expect(found.map((f: { subject: string }) => f.subject).sort()).toEqual(shown)
  })
})
