// Hostile values in workspace files (issue 12, items 10 and 11): a wrong-typed field is never coerced
// into a default and invalid UTF-8 is never replaced. The file is refused by every command that needs
// it (exit 1 naming the field), skipped with a code by lists, and named by doctor and lint.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { dacliIn, type Fixture, fixture, snapshotOf } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

const FILE = '.dacli/projects/alpha/tasks/open/004-fourth-ready-job.md'

/** A copy of the fixture whose task 4 has `line` in its frontmatter instead of the key's own line. */
function planted(key: string, line: string): string {
  const root = fx.copy()
  const file = path.join(root, FILE)
  const text = fs.readFileSync(file, 'utf8')
  const lines = text.split('\n')
  const at = lines.findIndex((l) => l.startsWith(`${key}:`))
  if (at === -1) lines.splice(1, 0, line)
  else lines[at] = line
  fs.writeFileSync(file, lines.join('\n'))
  return root
}

describe('wrong-typed frontmatter is refused, never coerced (item 10)', () => {
  test.each([
    ['estimate', 'estimate: 5'],
    ['owner', 'owner: [1, 2]'],
    ['version', 'version: "abc"'],
    // Past 2^53 − 1 a number is not read as written, and the next rewrite would not bump it.
    ['version', 'version: 9007199254740993'],
    ['estimate', 'estimate: {optimistic: 1, probable: 2, pessimistic: 99999999999999999999999}'],
    ['priority', 'priority: urgent'],
    // A list whose String() is a priority: never coerced into one (the document would carry a list).
    ['priority', 'priority: [must]'],
    ['depends_on', 'depends_on: 5'],
    ['depends_on', 'depends_on: [{on: 1, type: [SS]}]'],
    ['claim', 'claim: yes'],
    // The remote of a claim: never read as "this clone only" (a renewal would skip the remote and drop the key).
    ['claim.remote', 'claim: {by: a-root, at: 2026-12-01T10:00:00Z, remote: [origin]}'],
    ['claim.remote', 'claim: {by: a-root, at: 2026-12-01T10:00:00Z, remote: "--upload-pack=x"}'],
    // Branches reach git (push, branch --contains, branch -d): never as an option, never split in two.
    ['branch', 'branch: "--output=/tmp/x"'],
    ['branch', 'branch: "a b"'],
    ['branch', 'branch: refs/heads/main'],
    ['branch', 'branch: [main]'],
    ['worktree', 'worktree: {path: .dacli/worktrees/x, branch: "-D"}'],
    ['worktree', 'worktree: {path: .dacli/worktrees/x, branch: "a..b"}'],
    ['worktree', 'worktree: {path: [x], branch: dacli/x}'],
    ['aliases', 'aliases: [seven]'],
    ['tags', 'tags: {a: 1}'],
    ['github', 'github: 12'],
    // What --label and --milestone refuse, written by hand: it would be pushed to GitHub as it stands.
    ['labels', 'labels: ["a,b"]'],
    ['labels', `labels: [${'x'.repeat(51)}]`],
    ['milestone', `milestone: ${'m'.repeat(201)}`],
    // What --touches refuses: outside the repository, absolute, a negation.
    ['touches', 'touches: ["../secrets/**"]'],
    ['touches', 'touches: [/etc/passwd]'],
    ['touches', 'touches: ["!src/**"]'],
  ])(
    '%s: lists skip it with invalid-field, commands exit 1 naming it, doctor and lint report it',
    async (field, line) => {
      await refusedEverywhere(planted(line.slice(0, line.indexOf(':')), line), field)
    },
  )

  test.each([
    ['NUL', '\u0000'],
    ['ESC', '\u001b'],
    ['BEL', '\u0007'],
  ])(
    'a %s in a hand-written title: refused naming the file and field "title", like any invalid field',
    async (name, ch) => {
      const root = fx.copy()
      const file = path.join(root, FILE)
      const text = fs.readFileSync(file, 'utf8')
      expect(text).toContain('\n# Fourth ready job\n')
      fs.writeFileSync(file, text.replace('\n# Fourth ready job\n', `\n# Fourth${ch}ready job\n`))
      await refusedEverywhere(root, 'title')
      const r = (await dacliIn(root, ['task', 'show', 'alpha/4', '--json'])).expectExit(1)
      expect(r.error.message).toContain(`${name} (U+00`)
    },
  )
})

/** Task 4 of `root` carries an invalid `field`: lists skip it, commands exit 1 naming it, doctor and lint report it. */
async function refusedEverywhere(root: string, field: string): Promise<void> {
  const before = snapshotOf(root)
  const list = (await dacliIn(root, ['task', 'list', '--json'])).expectExit(0).json
  expect(list.tasks.map((t: { seq: number }) => t.seq)).not.toContain(4)
  expect(list.skipped).toEqual([
    { path: FILE, code: 'invalid-field', reason: expect.stringContaining(`field "${field}"`) },
  ])
  for (const argv of [
    ['task', 'claim', 'alpha/4'],
    ['task', 'check', 'alpha/4', '--n', '1'],
    ['task', 'edit', 'alpha/4', '--estimate', '1,2,3'],
    ['task', 'show', 'alpha/4'],
  ]) {
    const r = await dacliIn(root, [...argv, '--json'])
    expect(r.code, argv.join(' ')).toBe(1)
    expect(r.error.message).toMatch(new RegExp(`^unreadable task file ${FILE}: field "${field}"`))
    expect(r.error.details).toMatchObject({ path: FILE, code: 'invalid-field', field })
  }
  expect(snapshotOf(root)).toEqual(before)
  const doctor = (await dacliIn(root, ['doctor', '--json'])).json
  expect(doctor.findings).toContainEqual(
    expect.objectContaining({
      code: 'invalid-field',
      subject: FILE,
      message: expect.stringContaining(`"${field}"`),
    }),
  )
  const lint = (await dacliIn(root, ['lint', '--json'])).json
  expect(lint.findings).toContainEqual(expect.objectContaining({ code: 'invalid-field', subject: FILE }))
}

describe('wrong-typed frontmatter (continued)', () => {
  test('a claim by an ro owner written by hand as an agent id of the wrong form is invalid-id', async () => {
    const root = planted('owner', 'owner: ../../x')
    const r = (await dacliIn(root, ['task', 'claim', 'alpha/4', '--json'])).expectExit(1)
    expect(r.error.details).toMatchObject({ code: 'invalid-id', field: 'owner' })
  })
})

describe('invalid UTF-8 is never replaced on a rewrite (item 11)', () => {
  test('a file with \\xff in an unknown key and the body: refused (1) byte for byte, skipped and reported', async () => {
    const root = fx.copy()
    const file = path.join(root, FILE)
    const text = fs.readFileSync(file)
    const bad = Buffer.concat([
      text.subarray(0, 4),
      Buffer.from('note: caf\xe9 \xff\n', 'latin1'),
      text.subarray(4),
      Buffer.from('\nbody \xff\xfe\n', 'latin1'),
    ])
    fs.writeFileSync(file, bad)
    for (const argv of [
      ['task', 'check', 'alpha/4', '--n', '1'],
      ['task', 'claim', 'alpha/4'],
      ['task', 'edit', 'alpha/4', '--priority', 'must'],
    ]) {
      const r = await dacliIn(root, [...argv, '--json'])
      expect(r.code, argv.join(' ')).toBe(1)
      expect(r.error.message).toMatch(/not valid UTF-8/)
      expect(r.error.details).toMatchObject({ path: FILE, code: 'invalid-utf8' })
    }
    expect(fs.readFileSync(file).equals(bad)).toBe(true)
    const list = (await dacliIn(root, ['task', 'list', '--json'])).json
    expect(list.skipped).toEqual([{ path: FILE, code: 'invalid-utf8', reason: expect.stringMatching(/UTF-8/) }])
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(expect.objectContaining({ code: 'invalid-utf8', subject: FILE }))
  })

  test('agent, note and event files that are not UTF-8 are reported too', async () => {
    const root = fx.copy()
    const note = fs
      .readdirSync(path.join(root, '.dacli/projects/alpha/notes/decisions'))
      .map((n) => path.join(root, '.dacli/projects/alpha/notes/decisions', n))[0] as string
    fs.appendFileSync(note, Buffer.from([0xff]))
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    const rel = path.relative(root, note)
    expect(doctor.findings).toContainEqual(expect.objectContaining({ code: 'invalid-utf8', subject: rel }))
    expect((await dacliIn(root, ['note', 'list', '--json'])).json.skipped).toEqual([
      expect.objectContaining({ path: rel, code: 'invalid-utf8' }),
    ])
  })
})

describe('a control character in any hand-written title is refused naming the file and field (issue 28, item 10)', () => {
  const plantTitle = (root: string, rel: string) => {
    const file = path.join(root, rel)
    const text = fs.readFileSync(file, 'utf8')
    const heading = /^# .*$/m.exec(text)?.[0] as string
    expect(heading).toBeDefined()
    fs.writeFileSync(file, text.replace(heading, `${heading.slice(0, 4)}\u0000${heading.slice(4)}`))
  }

  test('a note: lists skip it (invalid-field), show exits 1 naming the field, doctor names the file', async () => {
    const root = fx.copy()
    const rel = '.dacli/projects/alpha/notes/decisions/use-x.md'
    plantTitle(root, rel)
    const list = (await dacliIn(root, ['note', 'list', '--json'])).expectExit(0).json
    expect(list.skipped).toContainEqual(
      expect.objectContaining({ path: rel, code: 'invalid-field', reason: expect.stringContaining('field "title"') }),
    )
    const shown = (await dacliIn(root, ['note', 'show', 'alpha/use-x', '--json'])).expectExit(1)
    expect(shown.error.message).toContain('field "title"')
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(expect.objectContaining({ code: 'invalid-field', subject: rel }))
  })

  test('a project: its commands exit 1 naming the file and field; doctor names it', async () => {
    const root = fx.copy()
    const rel = '.dacli/projects/alpha/project.md'
    plantTitle(root, rel)
    const before = snapshotOf(root)
    const shown = (await dacliIn(root, ['project', 'show', 'alpha', '--json'])).expectExit(1)
    expect(shown.error.message).toContain('field "title"')
    expect(shown.error.message).toContain('project.md')
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ code: 'invalid-field', subject: rel, message: expect.stringContaining('"title"') }),
    )
    expect(snapshotOf(root)).toEqual(before)
  })
})
