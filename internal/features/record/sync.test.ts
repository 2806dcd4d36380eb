// Several machines: two clones exchanging the record branch through a bare remote.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { type Checkout, checkoutAt, originWithCode } from '../../testkit/coordination.js'
import { expectValid } from '../../testkit/schemas.js'
import { git, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

let remote: string
let a: Workspace
let b: Checkout

const TASK1 = '.dacli/projects/alpha/tasks/open/001-first-thing.md'

beforeEach(async () => {
  a = await workspace()
  remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  ;(await a.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  const dir = tempDir('dacli-clone-')
  git(dir, 'clone', '-q', remote, '.')
  b = checkoutAt(dir)
})

/** Pull into b on a fresh clone. */
async function materializeB() {
  return (await b.dacli('record', 'pull', '--json')).expectExit(0).json
}

describe('record pull on a fresh clone', () => {
  test('materializes .dacli/ from the record branch, touching nothing else', async () => {
    expect((await b.dacli('task', 'list', '--json')).code).toBe(4)
    const head = git(b.root, 'rev-parse', 'HEAD')
    const index = fs.readFileSync(path.join(b.root, '.git', 'index'))
    const doc = await materializeB()
    expectValid(doc)
    expect(doc).toMatchObject({ outcome: 'materialized', previous: null, recorded: null, renumbered: [] })
    expect(doc.commit).toBe(git(a.root, 'rev-parse', 'dacli/record').trim())
    expect(doc.files_changed).toContainEqual({ path: TASK1, change: 'added' })
    expect(b.file(TASK1)).toBe(a.file(TASK1))
    const list = (await b.dacli('task', 'list', '--json')).expectExit(0).json
    expect(list.tasks.map((t: { ref: string }) => t.ref)).toEqual(['alpha/001-first-thing'])
    expect(git(b.root, 'rev-parse', 'refs/heads/dacli/record').trim()).toBe(doc.commit)
    expect(git(b.root, 'rev-parse', 'HEAD')).toBe(head)
    expect(fs.readFileSync(path.join(b.root, '.git', 'index')).equals(index)).toBe(true)
    expect(git(b.root, 'status', '--porcelain').trim()).toBe('?? .dacli/')
    expect((await b.dacli('record', 'pull', '--json')).expectExit(0).json.outcome).toBe('up-to-date')
    git(b.root, 'fsck', '--strict', '--no-progress')
  })

  test('a clone that fetched only its code branch: the way forward names git fetch, then record pull', async () => {
    git(b.root, 'update-ref', '-d', 'refs/remotes/origin/dacli/record')
    const r = (await b.dacli('task', 'list', '--json')).expectExit(4)
    expect(r.error.message).toContain(
      'if `origin` holds a dacli workspace, `git fetch origin` then `dacli record pull`',
    )
    expect(r.error.next_actions).toEqual(['dacli init', 'git fetch origin', 'dacli record pull'])
    git(b.root, 'fetch', '-q', 'origin')
    expect((await b.dacli('task', 'list', '--json')).expectExit(4).error.next_actions).toEqual(['dacli record pull'])
  })

  test('a remote without a record branch, an unknown remote, and no git program', async () => {
    const empty = tempDir('dacli-remote-')
    git(empty, 'init', '-q', '--bare')
    git(b.root, 'remote', 'add', 'bare', empty)
    expect((await b.dacli('record', 'pull', 'bare', '--json')).expectExit(4).error.message).toContain(
      'no dacli/record branch',
    )
    expect((await b.dacli('record', 'pull', 'nowhere', '--json')).expectExit(4).error.details.remote).toBe('nowhere')
    const noGit = (await b.dacli('record', 'pull', '--json', { env: { PATH: tempDir() } })).expectExit(1)
    expect(noGit.error.message).toContain('needs the git program')
    expect(fs.existsSync(path.join(b.root, '.dacli'))).toBe(false)
  })
})

describe('diverged records', () => {
  test('a clean merge: different files on each side; a rejected push says pull first', async () => {
    await materializeB()
    a.write('.dacli/projects/alpha/project.md', `${a.file('.dacli/projects/alpha/project.md')}\n## Vision\n\nA.\n`)
    ;(await a.dacli('record', 'push')).expectExit(0)
    b.write(TASK1, b.file(TASK1).replace('- [ ] it works', '- [x] it works'))
    const event = '.dacli/events/2026/11/29/01KBX3Q5M7E2RJ4T8W6YVZ0N1P-a-root-comment.md'
    b.write(event, '---\nid: 01KBX3Q5M7E2RJ4T8W6YVZ0N1P\nkind: event\nevent_kind: comment\napplied: false\n---\nhi\n')
    const rejected = (await b.dacli('record', 'push', '--json')).expectExit(5)
    expect(rejected.error.kind).toBe('conflict')
    expect(rejected.error.next_actions).toEqual(['dacli record pull origin', 'dacli record push origin'])

    const pulled = (await b.dacli('record', 'pull', '--json')).expectExit(0).json
    expectValid(pulled)
    expect(pulled.outcome).toBe('merged')
    expect(pulled.recorded).toBeNull() // the push above already recorded b's changes
    expect(pulled.files_changed).toEqual([{ path: '.dacli/projects/alpha/project.md', change: 'modified' }])
    expect(b.file('.dacli/projects/alpha/project.md')).toBe(a.file('.dacli/projects/alpha/project.md'))
    expect(b.file(TASK1)).toContain('- [x] it works')
    expect(git(b.root, 'log', '-1', '--format=%P', 'dacli/record').trim().split(' ')).toHaveLength(2)
    expect((await b.dacli('record', 'push', '--json')).expectExit(0).json.outcome).toBe('pushed')

    const back = (await a.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(back.outcome).toBe('fast-forward')
    expect(a.file(TASK1)).toContain('- [x] it works')
    expect(a.file(event)).toContain('event_kind: comment')
    for (const r of [a.root, b.root]) git(r, 'fsck', '--strict', '--no-progress')
  })

  test('a task changed on both sides in different fields merges field by field: no conflict', async () => {
    await materializeB()
    a.write(TASK1, a.file(TASK1).replace('# First thing', '# First thing, as A sees it'))
    ;(await a.dacli('record', 'push')).expectExit(0)
    b.write(TASK1, b.file(TASK1).replace('- [ ] it works', '- [x] it works'))
    const r = (await b.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(r.outcome).toBe('merged')
    expect(b.file(TASK1)).toContain('- [x] it works')
    expect(b.file(TASK1)).toContain('# First thing, as A sees it')
    ;(await b.dacli('record', 'push')).expectExit(0)
    ;(await a.dacli('record', 'pull')).expectExit(0)
    expect(a.file(TASK1)).toBe(b.file(TASK1))
    for (const r of [a.root, b.root]) git(r, 'fsck', '--strict', '--no-progress')
  })

  test('the same field changed differently: exit 5, the task keeps theirs, a question decides; no copy', async () => {
    await materializeB()
    ;(await a.dacli('task', 'edit', 'alpha/1', '--priority', 'could')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    ;(await b.dacli('task', 'edit', 'alpha/1', '--priority', 'must')).expectExit(0)
    const r = (await b.dacli('record', 'pull', '--json')).expectExit(5)
    expect(r.stdout).toBe('')
    expect(r.error.kind).toBe('conflict')
    const [d] = r.error.details.decisions
    expect(d).toMatchObject({ field: 'priority', ours: 'must', theirs: 'could', blocks: true })
    expect(r.error.next_actions).toContain(`dacli answer ${d.question} ours|theirs|<value>`)
    const copies = (fs.readdirSync(path.join(b.root, '.dacli'), { recursive: true }) as string[]).filter((p) =>
      p.includes('.conflict-'),
    )
    expect(copies).toEqual([])
    // The task keeps theirs and waits on the decision: blocked by the question, not handed out by next.
    const shown = (await b.dacli('task', 'show', 'alpha/1', '--json')).expectExit(0).json
    expect(shown).toMatchObject({ priority: 'could', status: 'blocked', blocked_by: { id: d.question } })
    const next = (await b.dacli('next', '--json')).expectExit(0).json
    expect(JSON.stringify(next.ready ?? next)).not.toContain('alpha/001')
    const threads = (await b.dacli('threads', '--open', '--json')).expectExit(0).json
    expect(threads.threads[0].id).toBe(d.question)
    expect(threads.threads[0].question).toContain('priority')
    // The question travels with the record; the answer restores ours and frees the task.
    ;(await b.dacli('record', 'push')).expectExit(0)
    const answered = (await b.dacli('answer', d.question, 'ours', '--json')).expectExit(0).json
    expect(answered.task).toMatchObject({ unblocked: true, status: 'open' })
    const after = (await b.dacli('task', 'show', 'alpha/1', '--json')).expectExit(0).json
    expect(after).toMatchObject({ priority: 'must', status: 'open' })
    expect(b.file(TASK1)).toContain('priority: must')
    ;(await b.dacli('record', 'push')).expectExit(0)
    ;(await a.dacli('record', 'pull')).expectExit(0)
    expect(a.file(TASK1)).toBe(b.file(TASK1))
  })

  test('renumbering keeps a hand-written aliases list: its comment and style stay, the old number joins it', async () => {
    await materializeB()
    ;(await b.dacli('task', 'add', 'Bravo work', '--project', 'alpha', '--accept', 'b')).expectExit(0)
    await new Promise((r) => setTimeout(r, 5))
    ;(await a.dacli('task', 'add', 'Alpha work', '--project', 'alpha', '--accept', 'a')).expectExit(0)
    const file = '.dacli/projects/alpha/tasks/open/002-alpha-work.md'
    a.write(file, a.file(file).replace('\nkind: task\n', '\nkind: task\naliases: [9]   # numbers it had before\n'))
    ;(await a.dacli('record', 'push')).expectExit(0)
    ;(await b.dacli('record', 'pull')).expectExit(0)
    const text = b.file('.dacli/projects/alpha/tasks/open/003-alpha-work.md')
    expect(text).toContain('\naliases: [9, 2]   # numbers it had before\n')
    expect((await b.dacli('task', 'show', 'alpha/3', '--json')).expectExit(0).json.aliases).toEqual([9, 2])
  })

  test('a sequence number taken on both sides renumbers the task created later', async () => {
    await materializeB()
    // b creates its task first, a second: a's task is the later one, whichever side pulls.
    ;(await b.dacli('task', 'add', 'Bravo work', '--project', 'alpha', '--accept', 'b')).expectExit(0)
    await new Promise((r) => setTimeout(r, 5))
    ;(await a.dacli('task', 'add', 'Alpha work', '--project', 'alpha', '--accept', 'a')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const pulled = (await b.dacli('record', 'pull', '--json')).expectExit(0).json
    const alphaId = (await a.dacli('task', 'show', '2', '--json')).expectExit(0).json.id
    expect(pulled.renumbered).toEqual([
      { id: alphaId, project: 'alpha', from: 2, to: 3, path: '.dacli/projects/alpha/tasks/open/003-alpha-work.md' },
    ])
    const moved = (await b.dacli('task', 'show', 'alpha/3', '--json')).expectExit(0).json
    expect(moved).toMatchObject({ id: alphaId, title: 'Alpha work', aliases: [2], version: 2 })
    expect(moved.log.at(-1)).toMatchObject({ verb: 'renumbered', actor: 'a-root' })
    expect(moved.log.at(-1).details).toMatch(/^002 → 003/)
    // 2 is now Bravo's live number and Alpha's alias: ambiguous (exit 2 naming both), never silently one of them.
    const bravoId = (await b.dacli('task', 'show', 'alpha/002-bravo-work', '--json')).expectExit(0).json.id
    const ambiguous = (await b.dacli('task', 'show', 'alpha/2', '--json')).expectExit(2).error
    expect(ambiguous.kind).toBe('usage')
    expect(ambiguous.details.tasks).toEqual([
      { ref: 'alpha/002-bravo-work', id: bravoId, matched: 'reference' },
      { ref: 'alpha/003-alpha-work', id: alphaId, matched: 'alias' },
    ])
    expect(ambiguous.message).toContain(alphaId)
    expect(ambiguous.message).toContain(bravoId)
    // The way out: the caller's own command with each full reference; the reference was qualified already.
    const claim = (await b.dacli('task', 'claim', 'alpha/2', '--lease', '1h', '--json')).expectExit(2).error
    expect(claim.suggestions).toEqual([
      'dacli task claim alpha/002-bravo-work --lease 1h --json',
      'dacli task claim alpha/003-alpha-work --lease 1h --json',
    ])
    expect(claim.next_actions).toEqual(['dacli task show alpha/002-bravo-work', 'dacli task show alpha/003-alpha-work'])
    expect((await b.dacli('task', 'show', '2', '--json')).expectExit(2).error.details.candidates).toEqual([
      'alpha/002-bravo-work',
      'alpha/003-alpha-work',
    ])
    // A reference written with the old number and the slug still finds the renumbered task.
    expect((await b.dacli('task', 'show', 'alpha/002-alpha-work', '--json')).expectExit(0).json.id).toBe(alphaId)
    ;(await b.dacli('record', 'push')).expectExit(0)
    const back = (await a.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(back.files_changed).toEqual(
      expect.arrayContaining([
        { path: '.dacli/projects/alpha/tasks/open/002-alpha-work.md', change: 'deleted' },
        { path: '.dacli/projects/alpha/tasks/open/002-bravo-work.md', change: 'added' },
        { path: '.dacli/projects/alpha/tasks/open/003-alpha-work.md', change: 'added' },
      ]),
    )
    const next = (await a.dacli('task', 'add', 'Charlie work', '--project', 'alpha', '--json')).expectExit(0).json
    expect(next.seq).toBe(4)
    for (const r of [a.root, b.root]) git(r, 'fsck', '--strict', '--no-progress')
  })

  test('a tracking-ref lock a killed git left behind does not stop the next pull (an abandoned one is removed)', async () => {
    await materializeB()
    ;(await a.dacli('task', 'claim', 'alpha/1')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    const lock = path.join(b.root, '.git', 'refs', 'remotes', 'origin', 'dacli', 'record.lock')
    fs.mkdirSync(path.dirname(lock), { recursive: true })
    fs.writeFileSync(lock, '')
    const old = new Date(Date.now() - 60_000)
    fs.utimesSync(lock, old, old)
    expect((await b.dacli('record', 'pull', '--json')).expectExit(0).json.outcome).toBe('fast-forward')
    expect(fs.existsSync(lock)).toBe(false)
    // A fresh lock is somebody's at work: the pull says so, naming the lock.
    ;(await a.dacli('task', 'check', 'alpha/1', '--n', '1')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    fs.writeFileSync(lock, '')
    const r = (await b.dacli('record', 'pull', '--json')).expectExit(1)
    expect(r.error.message).toContain('record.lock')
    fs.rmSync(lock)
  })

  test('a read-only identity may not pull into the workspace', async () => {
    const ro = await a.agent('ro', 'reader')
    const r = (await a.dacli('record', 'pull', '--json', { as: ro.token })).expectExit(3)
    expect(r.error.kind).toBe('refused')
    expect(r.error.details).toMatchObject({ policy: 'grant', grant: 'ro' })
  })

  test('a workspace that came with the code adopts the matching record commit instead of merging', async () => {
    git(a.root, 'add', '.dacli')
    git(a.root, 'commit', '-q', '-m', 'track the workspace')
    git(a.root, 'push', '-q', 'origin', 'main')
    ;(await a.dacli('task', 'add', 'Later work', '--project', 'alpha', '--accept', 'x')).expectExit(0)
    ;(await a.dacli('record', 'push')).expectExit(0)
    // c clones main: its .dacli/ is the one committed with the code, older than the record.
    const c = checkoutAt(tempDir('dacli-clone-'))
    git(c.root, 'clone', '-q', remote, '.')
    expect(fs.existsSync(path.join(c.root, TASK1))).toBe(true)
    const r = (await c.dacli('record', 'pull', '--json')).expectExit(0).json
    expect(r.outcome).toBe('fast-forward')
    expect(r.files_changed).toEqual([{ path: '.dacli/projects/alpha/tasks/open/002-later-work.md', change: 'added' }])
  })
})
