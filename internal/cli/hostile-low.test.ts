// Hostile workspace states, the Low items of issue 12: git temp objects left by a killed record (16),
// malformed project files (17), config.yml values (19), skips announced and loops found (20), nested
// workspaces (22), host tags (23, in internal/store/lock.test.ts) and failures that are not "missing" (24).
// Runs through the built bin where the bundle matters (its lazily loaded parser).

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { hostTag } from '../base/hosttag.js'
import { dacliIn, type Fixture, fixture, git, snapshotOf } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

const codes = (doc: { findings: { code: string; subject: string }[] }) =>
  doc.findings.map((f) => `${f.code} ${f.subject}`)

describe('git temp objects left by a killed record (item 16)', () => {
  test('doctor reports them (stale-git-temp); the next record removes them; git fsck is clean again', async () => {
    const root = fx.copy()
    ;(await dacliIn(root, ['record'])).expectExit(0)
    const dead = spawnSync('true').pid as number
    const dir = path.join(root, '.git', 'objects', 'ab')
    fs.mkdirSync(dir, { recursive: true })
    const left = path.join(dir, `.tmp-dacli-${dead}-${hostTag(nodeSystem)}-0badf00d`)
    fs.writeFileSync(left, 'half an object')
    const old = path.join(dir, `.tmp-dacli-${dead}-1234abcd`) // a name from before the host tag
    fs.writeFileSync(old, 'half another')
    expect(spawnSync('git', ['fsck'], { cwd: root, encoding: 'utf8' }).stderr).toMatch(/bad sha1 file|tmp-dacli/)
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(codes(doctor)).toEqual(
      expect.arrayContaining([
        `stale-git-temp .git/objects/ab/${path.basename(left)}`,
        `stale-git-temp .git/objects/ab/${path.basename(old)}`,
      ]),
    )
    ;(await dacliIn(root, ['task', 'add', 'Something new', '--project', 'alpha', '--accept', 'x'])).expectExit(0)
    ;(await dacliIn(root, ['record'])).expectExit(0)
    expect(fs.existsSync(left) || fs.existsSync(old)).toBe(false)
    const fsck = spawnSync('git', ['fsck'], { cwd: root, encoding: 'utf8' })
    expect(fsck.status).toBe(0)
    expect(fsck.stderr).not.toMatch(/bad sha1/)
    expect(codes((await dacliIn(root, ['doctor', '--json'])).json).filter((c) => c.startsWith('stale-git'))).toEqual([])
  })
})

describe('a malformed project.md is named, never an internal error (item 17)', () => {
  test.each([
    ['no frontmatter', (t: string) => `# just a title\n${t}`, /unreadable project file .*project\.md: no frontmatter/],
    [
      'unterminated YAML',
      (t: string) => t.replace('kind: project', 'kind: [project'),
      /unreadable project file .*not valid YAML/,
    ],
    ['github: 5', (t: string) => t.replace('kind: project', 'kind: project\ngithub: 5'), /field "github" is 5/],
    ['status: [1, 2]', (t: string) => t.replace(/^status: .*$/m, 'status: [1, 2]'), /field "status"/],
    ['a foreign id', (t: string) => t.replace(/^id: .*$/m, 'id: p-elsewhere'), /field "id" is "p-elsewhere"/],
  ])('%s: project show, context and project list say which file and why (built bin)', (_w, edit, message) => {
    const root = fx.copy()
    const file = path.join(root, '.dacli/projects/alpha/project.md')
    fs.writeFileSync(file, edit(fs.readFileSync(file, 'utf8')))
    for (const argv of [
      ['project', 'show', 'alpha'],
      ['context', 'alpha/1'],
    ]) {
      const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'build', 'dacli.js'), ...argv], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, DACLI_AGENT: undefined, NO_COLOR: '1' },
      })
      expect(r.status, argv.join(' ')).toBe(1)
      expect(r.stderr).toMatch(message)
      expect(r.stderr).not.toMatch(/internal error|this is a bug/)
    }
    const list = spawnSync(
      process.execPath,
      [path.join(__dirname, '..', '..', 'build', 'dacli.js'), 'project', 'list', '--json'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    )
    expect(list.status).toBe(0)
    expect(JSON.parse(list.stdout).skipped).toEqual([
      expect.objectContaining({
        path: '.dacli/projects/alpha/project.md',
        reason: expect.stringMatching(message.source.includes('field') ? message : /./),
      }),
    ])
  })
})

describe('config.yml values are checked, with precise messages (item 19)', () => {
  test.each([
    ['format: "zero"', /config\.yml: format is "zero"; expected a format version \(0\)/],
    ['format: -1', /config\.yml: format is -1; expected a format version/],
    ['format: 7', /workspace format 7 is newer than this dacli's format 0; upgrade dacli/],
    [
      'claim_lease: -5h',
      /config\.yml: claim_lease is "-5h"; expected a positive duration such as 2h, 30m or 1d, or none/,
    ],
    ['claim_lease: banana', /config\.yml: claim_lease is "banana"; expected a positive duration/],
    ['claim_lease: 0', /config\.yml: claim_lease is 0; expected a positive duration/],
    ['wip_limit: -3', /config\.yml: wip_limit is -3; expected a whole number of tasks above 0/],
    ['autorecord: maybe', /config\.yml: autorecord is "maybe"; expected true or false/],
    ['name: [1]', /config\.yml: name is \[1\]; expected a string/],
    // The id goes into the user's trust file name and every pull request and issue marker (review 19).
    ['id: "x --> <img src=x>"', /config\.yml: id is "x --> <img src=x>"; expected the workspace id init wrote/],
    ['id: ../../other', /config\.yml: id is "\.\.\/\.\.\/other"; expected the workspace id init wrote/],
    ['id: "-x"', /config\.yml: id is "-x"; expected the workspace id/],
    ['format: 0\nformat: 0', /config\.yml is not valid YAML: Map keys must be unique/],
    // A claims key of another shape turned remote arbitration off without a word (claims held in the clone only).
    [
      'claims: origin',
      /claims in .*config\.yml must be a map with one key, remote \(claims: \{remote: origin\}\); got "origin"/,
    ],
    ['claims: [origin]', /claims in .*config\.yml must be a map with one key, remote/],
    [
      'claims: {remot: origin}',
      /claims in .*config\.yml must be a map with one key, remote .*got \{"remot":"origin"\}/,
    ],
  ])('%s (built bin: exit 1, the key, the value and what it takes)', (line, message) => {
    const root = fx.copy()
    const file = path.join(root, '.dacli/config.yml')
    const key = line.split(':')[0] as string
    const text = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith(`${key}:`))
    fs.writeFileSync(file, [...text, line, ''].join('\n'))
    const r = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'build', 'dacli.js'), 'status'], {
      cwd: root,
      encoding: 'utf8',
    })
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(message)
  })

  test('valid values still read: none, seconds, durations, a capacity', async () => {
    const root = fx.copy()
    const file = path.join(root, '.dacli/config.yml')
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('claim_lease: 2h', 'claim_lease: 90m\nwip_limit: 3'))
    expect((await dacliIn(root, ['overview', '--json'])).expectExit(0).json.wip.capacity).toBe(3)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('claim_lease: 90m', 'claim_lease: none'))
    ;(await dacliIn(root, ['status'])).expectExit(0)
  })
})

describe('every skip is announced; loops are found (item 20)', () => {
  test('a FIFO and a second copy of a task are skipped with their codes; doctor names both', async () => {
    const root = fx.copy()
    const open = path.join(root, '.dacli/projects/alpha/tasks/open')
    spawnSync('mkfifo', [path.join(open, '009-a-pipe.md')])
    fs.mkdirSync(path.join(root, '.dacli/projects/alpha/tasks/blocked'), { recursive: true })
    fs.copyFileSync(
      path.join(open, '001-first-thing.md'),
      path.join(root, '.dacli/projects/alpha/tasks/blocked/001-first-thing.md'),
    )
    const list = (await dacliIn(root, ['task', 'list', '--json'])).expectExit(0).json
    expect(list.skipped).toEqual(
      expect.arrayContaining([
        {
          path: '.dacli/projects/alpha/tasks/open/009-a-pipe.md',
          reason: 'not a regular file (not read)',
          code: 'special-file',
        },
        expect.objectContaining({
          path: '.dacli/projects/alpha/tasks/open/001-first-thing.md',
          code: 'duplicate-task-file',
        }),
      ]),
    )
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(codes(doctor)).toEqual(
      expect.arrayContaining([
        'special-file .dacli/projects/alpha/tasks/open/009-a-pipe.md',
        'duplicate-task-file .dacli/projects/alpha/tasks/open/001-first-thing.md',
      ]),
    )
  })

  test('parent cycles are reported (parent-cycle), once per loop', async () => {
    const root = fx.copy()
    const setParent = (file: string, parent: string) => {
      const f = path.join(root, '.dacli/projects/alpha/tasks', file)
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('kind: task', `kind: task\nparent: ${parent}`))
    }
    setParent('open/001-first-thing.md', 'alpha/2')
    setParent('open/002-second-thing.md', 'alpha/4')
    setParent('open/004-fourth-ready-job.md', 'alpha/1')
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    const loops = doctor.findings.filter((f: { code: string }) => f.code === 'parent-cycle')
    expect(loops).toHaveLength(1)
    expect(loops[0].message).toMatch(/alpha\/00\d.* → .* → .* → alpha\/00\d/)
  })
})

describe('a nested workspace never shadows the real one by accident (item 22)', () => {
  test('init inside a workspace: 5 without --force; --force by a read-only identity: 3; by rw: 0', async () => {
    const root = fx.copy()
    const sub = path.join(root, 'sub')
    fs.mkdirSync(sub)
    const before = snapshotOf(root)
    const plain = (await dacliIn(sub, ['init', '--here', '--json'])).expectExit(5)
    expect(plain.error.message).toMatch(/inside the workspace at .*; a workspace here would shadow it/)
    const ro = (await dacliIn(sub, ['init', '--here', '--force', '--json'], { as: fx.ro.token })).expectExit(3)
    expect(ro.error.details).toMatchObject({ identity: fx.ro.id, grant: 'ro' })
    expect(fs.existsSync(path.join(sub, '.dacli'))).toBe(false)
    expect(snapshotOf(root)).toEqual(before)
    ;(await dacliIn(sub, ['init', '--here', '--force'], { as: fx.rw.token })).expectExit(0)
    expect(fs.existsSync(path.join(sub, '.dacli', 'config.yml'))).toBe(true)
  })
})

describe('only "missing" reads as missing (item 24)', () => {
  test('a project.md that cannot be read is reported, not dropped; a project folder that is not readable says so', async () => {
    const root = fx.copy()
    const file = path.join(root, '.dacli/projects/alpha/project.md')
    fs.rmSync(file)
    fs.mkdirSync(file) // EISDIR on read: not "no such project"
    const list = (await dacliIn(root, ['project', 'list', '--json'])).expectExit(0).json
    expect(list.skipped).toEqual([
      expect.objectContaining({ path: '.dacli/projects/alpha/project.md', code: 'unreadable-path' }),
    ])
    const show = (await dacliIn(root, ['project', 'show', 'alpha', '--json'])).expectExit(1)
    expect(show.error.message).toMatch(/project\.md/)
  })

  test('sync: an event about a task that cannot be read stays pending with the reason, not "gone"', async () => {
    const root = fx.copy()
    ;(await dacliIn(root, ['task', 'done', 'alpha/3'], { as: fx.ro.token })).expectExit(0)
    const f = path.join(root, '.dacli/projects/alpha/tasks/active/003-third-owned-job.md')
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('kind: task', 'kind: task\nestimate: 5'))
    const r = (await dacliIn(root, ['sync', '--json'], { as: fx.rw.token })).expectExit(0).json
    expect(r.pending).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(/cannot be read: .*field "estimate"/),
        never_applies: false,
      }),
    ])
  })

  test('a projects/ that is a file: lists announce it, nothing reads as an empty workspace silently', async () => {
    const root = fx.copy()
    fs.rmSync(path.join(root, '.dacli/projects'), { recursive: true })
    fs.writeFileSync(path.join(root, '.dacli/projects'), 'not a folder')
    const list = (await dacliIn(root, ['project', 'list', '--json'])).expectExit(0).json
    expect(list.skipped).toEqual([expect.objectContaining({ path: '.dacli/projects', code: 'unreadable-path' })])
    expect(codes((await dacliIn(root, ['doctor', '--json'])).json)).toContain('unreadable-path .dacli/projects')
    git(root, 'status') // the repository is untouched and fine
  })
})

describe('a duplicated event is reported and applied once (issue 28, item 10)', () => {
  test('two files with one event id: doctor names the copy; sync applies one; a replay of a settled event never applies', async () => {
    const root = fx.copy()
    const events = path.join(root, '.dacli', 'events')
    const list = () => {
      const out: string[] = []
      const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory()) walk(path.join(d, e.name))
          else out.push(path.join(d, e.name))
        }
      }
      walk(events)
      return out
    }
    const before = new Set(list())
    ;(
      await dacliIn(root, ['task', 'block', 'alpha/1', '--why', 'waiting on a vendor'], { as: fx.ro.token })
    ).expectExit(0)
    const original = list().find((f) => !before.has(f)) as string
    const pending = fs.readFileSync(original)
    const plant = (day: string) => {
      const at = path.join(events, '2020', '01', day, path.basename(original))
      fs.mkdirSync(path.dirname(at), { recursive: true })
      fs.writeFileSync(at, pending)
      return path.relative(root, at)
    }
    const copy = plant('01')
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(codes(doctor), JSON.stringify([copy, original, doctor.findings])).toContain(`duplicate-event ${copy}`)
    const sync = (await dacliIn(root, ['sync', '--json'])).expectExit(0).json
    expect(sync.applied).toHaveLength(1)
    expect(sync.skipped).toContainEqual(expect.objectContaining({ path: copy, code: 'duplicate-event' }))
    expect((await dacliIn(root, ['task', 'show', 'alpha/1', '--json'])).json.status).toBe('blocked')
    // The block is lifted; a replay of the proposal's pending bytes, under a third name, is never applied again.
    ;(await dacliIn(root, ['task', 'unblock', 'alpha/1'])).expectExit(0)
    const replay = plant('02')
    const again = (await dacliIn(root, ['sync', '--json'])).expectExit(0).json
    expect(again.applied).toEqual([])
    expect(again.skipped).toContainEqual(expect.objectContaining({ path: replay, code: 'duplicate-event' }))
    expect((await dacliIn(root, ['task', 'show', 'alpha/1', '--json'])).json.status).toBe('open')
    expect(codes((await dacliIn(root, ['doctor', '--json'])).json)).toEqual(
      expect.arrayContaining([`duplicate-event ${copy}`, `duplicate-event ${replay}`]),
    )
  })
})
