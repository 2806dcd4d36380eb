// The MCP server keeps one memory of the workspace across calls (store/live.ts) and takes in what changed file by
// file. What it must never do is answer from that memory after a file changed: here a task file is edited by hand
// between two tool calls — the same size, its modification time put back, so only its change time (and for a
// rename, its inode) tells — and the very next call, made at once, must see the edit. So must it see another
// process's `task edit`, a file removed by hand, and a file made by hand.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { callerOf, servedOverStdio } from '../testkit/mcp.js'
import { workspace } from '../testkit/ws.js'

/** A folder made by hand in `parent`, a conflict copy inside it: found at the next call; the folder removed: gone. */
async function madeFolderSeen(conflicts: () => Promise<string[]>, parent: string, shown: string): Promise<void> {
  fs.mkdirSync(path.join(parent, 'old'))
  fs.writeFileSync(path.join(parent, 'old', 'x.md.conflict-1234567'), 'x')
  expect(await conflicts()).toEqual([`${shown}old/x.md.conflict-1234567`])
  fs.rmSync(path.join(parent, 'old'), { recursive: true })
  expect(await conflicts()).toEqual([])
}

test('a hand edit between two tool calls (same size, modification time put back) is seen by the second call', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Alpha', 'Bravo', 'Charlie']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit')
  const call = callerOf(client)
  const titles = async () => (await call('list_tasks', { project: 'p' })).tasks.map((t: { title: string }) => t.title)
  try {
    // Whole-second times, so that putting them back is exact (utimes takes seconds as a double).
    const bravo = path.join(ws.root, '.dacli/projects/p/tasks/open/002-bravo.md')
    const whole = Math.floor(Date.now() / 1000) - 60
    fs.utimesSync(bravo, whole, whole)
    // Warm: the listing is kept (the files are older than the racy window, as between an agent's edits).
    await new Promise((r) => setTimeout(r, 3_100))
    expect(await titles()).toEqual(['Alpha', 'Bravo', 'Charlie'])
    expect(await titles()).toEqual(['Alpha', 'Bravo', 'Charlie'])
    expect((await call('show_task', { ref: 'p/2' })).title).toBe('Bravo')

    for (let round = 0; round < 3; round++) {
      // By hand, in place: same size, the modification time put back; only the change time moves.
      const file = bravo
      const before = fs.statSync(file)
      const text = fs.readFileSync(file, 'utf8')
      const next = ['Delta', 'Bravo', 'Hotel'][round] as string
      const was = round === 0 ? 'Bravo' : (['Delta', 'Bravo'][round - 1] as string)
      fs.writeFileSync(file, text.replace(`# ${was}`, `# ${next}`).replace(`title: ${was}`, `title: ${next}`))
      fs.utimesSync(file, before.atime, before.mtime)
      const after = fs.statSync(file)
      expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino])
      expect(after.ctimeMs).not.toBe(before.ctimeMs)
      // At once: no wait for the watch.
      expect(await titles()).toEqual(['Alpha', next, 'Charlie'])
      expect((await call('show_task', { ref: 'p/2' })).title).toBe(next)
    }

    // Another process's edit: seen by the very next call.
    ws.spawn(['task', 'edit', 'p/1', '--title', 'Alpha edited']).expectExit(0)
    expect((await titles())[0]).toBe('Alpha edited')
    expect((await call('show_task', { ref: 'p/1' })).title).toBe('Alpha edited')

    // Removed by hand, then made by hand (a copy under a new number): each seen at once.
    const charlie = path.join(ws.root, '.dacli/projects/p/tasks/open/003-charlie.md')
    const charlieText = fs.readFileSync(charlie, 'utf8')
    fs.rmSync(charlie)
    expect(await titles()).toEqual(['Alpha edited', 'Hotel'])
    fs.writeFileSync(charlie, charlieText)
    expect(await titles()).toEqual(['Alpha edited', 'Hotel', 'Charlie'])

    // Renamed by hand (its number kept): a reference by number or by the new name finds it at once, the old name not.
    const golf = path.join(ws.root, '.dacli/projects/p/tasks/open/002-golf.md')
    fs.renameSync(bravo, golf)
    expect((await call('show_task', { ref: 'p/2' })).path).toBe('.dacli/projects/p/tasks/open/002-golf.md')
    expect((await call('show_task', { ref: 'p/golf' })).title).toBe('Hotel')
    const old = (await client.callTool({ name: 'show_task', arguments: { schema_version: 1, ref: 'p/bravo' } })) as {
      isError?: boolean
    }
    expect(old.isError).toBe(true)

    // Another process moves a task between folders (a claim): the next call finds it where it is now.
    ws.spawn(['task', 'claim', 'p/3']).expectExit(0)
    expect((await call('show_task', { ref: 'p/3' })).status).toBe('active')
    expect((await call('list_tasks', { project: 'p', status: ['active'] })).tasks.map((t: any) => t.title)).toEqual([
      'Charlie',
    ])
  } finally {
    await client.close()
  }
}, 60_000)

test('next_tasks after a dependency in another project is done by another process, and after hand edits of a priority and an estimate', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('project', 'add', 'Q', '--slug', 'q')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Upstream', '--project', 'q', '--estimate', '1,1,1')).expectExit(0)
  const add = ['task', 'add', '--project', 'p']
  ;(
    await ws.dacli(...add, 'Downstream', '--priority', 'should', '--estimate', '1,2,3', '--depends-on', 'q/1')
  ).expectExit(0)
  ;(await ws.dacli(...add, 'Side', '--priority', 'could', '--estimate', '1,1,1')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit-next')
  const call = callerOf(client)
  const next = async () => {
    const doc = await call('next_tasks', { project: 'p' })
    return {
      ready: doc.ready.map((t: { title: string; slack: number | null }) => `${t.title} ${t.slack}`),
      waiting: doc.waiting.map((w: { ref: string }) => w.ref),
    }
  }
  const side = path.join(ws.root, '.dacli/projects/p/tasks/open/002-side.md')
  try {
    // Twice: the second call is served by the memory of the first. Upstream (Te 1) then Downstream (Te 2) set the
    // length: Side (Te 1) has a slack of 2.
    for (let i = 0; i < 2; i++) expect(await next()).toEqual({ ready: ['Side 2'], waiting: ['p/001-downstream'] })
    // Another process finishes the dependency in the other project: the very next call offers what waited on it.
    ws.spawn(['task', 'claim', 'q/1']).expectExit(0)
    expect((await next()).ready).toEqual(['Side 2'])
    ws.spawn(['task', 'done', 'q/1', '--allow-unverified']).expectExit(0)
    // Downstream (Te 2) alone sets the length now; Side (Te 1) has a slack of 1.
    expect(await next()).toEqual({ ready: ['Downstream 0', 'Side 1'], waiting: [] })
    // By hand: Side becomes a must (it comes first), then its estimate grows past Downstream's (the slacks swap).
    fs.writeFileSync(side, fs.readFileSync(side, 'utf8').replace('priority: could', 'priority: must'))
    expect((await next()).ready).toEqual(['Side 1', 'Downstream 0'])
    const text = fs.readFileSync(side, 'utf8')
    fs.writeFileSync(side, text.replace(/estimate: .*$/m, 'estimate: {optimistic: 5, probable: 5, pessimistic: 5}'))
    expect((await next()).ready).toEqual(['Side 0', 'Downstream 3'])
    // A title changed by another process changes no schedule input: the same answer, the new title.
    ws.spawn(['task', 'edit', 'p/2', '--title', 'Side renamed']).expectExit(0)
    expect((await next()).ready).toEqual(['Side renamed 0', 'Downstream 3'])
  } finally {
    await client.close()
  }
}, 60_000)

test('status and get_context see at their next call an event added by another process and events changed by hand', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  ;(await ws.dacli('ask', 'Which bank?', '--about', 'p/1')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit-events')
  const call = callerOf(client)
  const status = async () => {
    const doc = await call('status', {})
    return { open: doc.open_questions, skipped: doc.skipped.map((b: { code: string }) => b.code) }
  }
  /** The questions section of the task's brief. */
  const asked = async () =>
    (await call('get_context', { ref: 'p/1' })).sections
      .filter((x: { title: string }) => x.title === 'Questions and answers')
      .map((x: { content: string }) => x.content.match(/Which \w+\?/g)?.join(' '))
  try {
    // Twice: the second answer comes from the memory of the first.
    for (let i = 0; i < 2; i++) {
      expect(await status()).toEqual({ open: 1, skipped: [] })
      expect(await asked()).toEqual(['Which bank?'])
    }
    // Another process asks: the very next calls count and show it.
    ws.spawn(['ask', 'Which ledger?', '--about', 'p/1']).expectExit(0)
    expect(await status()).toEqual({ open: 2, skipped: [] })
    expect(await asked()).toEqual(['Which ledger? Which bank?'])
    const files: string[] = []
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true }))
        e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.join(d, e.name))
    }
    walk(path.join(ws.root, '.dacli/events'))
    const ledger = files.find((f) => fs.readFileSync(f, 'utf8').includes('Which ledger?')) as string
    const bytes = fs.readFileSync(ledger)
    // Edited by hand (its checksum no longer holds: never counted), then put back: each seen at once.
    fs.writeFileSync(ledger, bytes.toString('utf8').replace('Which ledger?', 'Which vault?'))
    expect(await status()).toEqual({ open: 1, skipped: ['forged-event'] })
    expect(await asked()).toEqual(['Which bank?'])
    fs.writeFileSync(ledger, bytes)
    expect(await status()).toEqual({ open: 2, skipped: [] })
    // A copy made by hand in a day folder that did not exist (no watch on it yet), then removed: each seen at once.
    const copy = path.join(ws.root, '.dacli/events/2020/01/01', path.basename(ledger))
    fs.mkdirSync(path.dirname(copy), { recursive: true })
    fs.writeFileSync(copy, bytes)
    expect(await status()).toEqual({ open: 2, skipped: ['duplicate-event'] })
    expect(await status()).toEqual({ open: 2, skipped: ['duplicate-event'] })
    fs.rmSync(copy)
    expect(await status()).toEqual({ open: 2, skipped: [] })
    // The folder watched by now: a hand edit there is seen at once too.
    await new Promise((r) => setTimeout(r, 300))
    fs.writeFileSync(copy, bytes)
    expect((await status()).skipped).toEqual(['duplicate-event'])

    // Notes: one added by another process, then edited and removed by hand, each seen by the next brief.
    const found = async () =>
      (await call('get_context', { ref: 'p/1' })).sections
        .filter((x: { title: string }) => x.title === 'What siblings found')
        .map((x: { content: string }) => x.content.match(/Cache \w+/g)?.join(' '))
    expect(await found()).toEqual([])
    expect(await found()).toEqual([])
    ws.spawn(['note', 'add', 'finding', 'Cache misses', '--project', 'p', '--about', 'p/1']).expectExit(0)
    expect(await found()).toEqual(['Cache misses'])
    // Its new folder watched by now (the next answer is kept), then edited by hand.
    await new Promise((r) => setTimeout(r, 300))
    expect(await found()).toEqual(['Cache misses'])
    expect(await found()).toEqual(['Cache misses'])
    const findings = path.join(ws.root, '.dacli/projects/p/notes/findings')
    const note = path.join(findings, fs.readdirSync(findings)[0] as string)
    fs.writeFileSync(note, fs.readFileSync(note, 'utf8').replace(/Cache misses/g, 'Cache hits'))
    expect(await found()).toEqual(['Cache hits'])
    fs.rmSync(note)
    expect(await found()).toEqual([])
  } finally {
    await client.close()
  }
}, 60_000)

test('status sees at its next call conflict copies made and removed by hand in the task folders, in a folder made there too', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit-conflicts')
  const call = callerOf(client)
  const conflicts = async () =>
    (await call('status')).record_conflicts.map((c: { path: string }) => c.path.replace('.dacli/projects/p/tasks/', ''))
  const open = path.join(ws.root, '.dacli/projects/p/tasks/open')
  try {
    for (let i = 0; i < 2; i++) expect(await conflicts()).toEqual([])
    const copy = path.join(open, '001-alpha.md.conflict-abcdef1')
    fs.copyFileSync(path.join(open, '001-alpha.md'), copy)
    expect(await conflicts()).toEqual(['open/001-alpha.md.conflict-abcdef1'])
    expect(await conflicts()).toEqual(['open/001-alpha.md.conflict-abcdef1'])
    // Another process's edit in the same folder changes nothing of it.
    ws.spawn(['task', 'edit', 'p/1', '--title', 'Alpha edited']).expectExit(0)
    expect(await conflicts()).toEqual(['open/001-alpha.md.conflict-abcdef1'])
    fs.rmSync(copy)
    expect(await conflicts()).toEqual([])
    // A folder made by hand among the task files.
    await madeFolderSeen(conflicts, open, 'open/')
  } finally {
    await client.close()
  }
}, 60_000)

test('status sees at its next call conflict copies in a project’s folder, its tasks and notes folders, and projects/', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  ;(await ws.dacli('note', 'add', 'finding', 'Cache misses', '--project', 'p')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit-conflicts-above')
  const call = callerOf(client)
  const conflicts = async () =>
    (await call('status')).record_conflicts.map((c: { path: string }) => c.path.replace('.dacli/projects/', ''))
  const projects = path.join(ws.root, '.dacli/projects')
  const findings = path.join(projects, 'p/notes/findings')
  try {
    // Each folder followed by then (the watch takes in a folder made a moment ago within its next scan).
    await new Promise((r) => setTimeout(r, 300))
    for (let i = 0; i < 2; i++) expect(await conflicts()).toEqual([])
    const note = fs.readdirSync(findings)[0] as string
    for (const [folder, name] of [
      [path.join(projects, 'p'), 'project.md.conflict-abcdef1'],
      [path.join(projects, 'p/tasks'), 'x.md.conflict-abcdef2'],
      [path.join(projects, 'p/notes'), 'y.md.conflict-abcdef3'],
      [findings, `${note}.conflict-abcdef4`],
      [projects, 'z.md.conflict-abcdef5'],
    ] as const) {
      const copy = path.join(folder, name)
      fs.writeFileSync(copy, 'theirs\n')
      const rel = path.relative(projects, copy).split(path.sep).join('/')
      expect(await conflicts()).toEqual([rel])
      expect(await conflicts()).toEqual([rel])
      // Another process's edit meanwhile changes nothing of it.
      ws.spawn(['task', 'edit', 'p/1', '--title', `Alpha ${name}`]).expectExit(0)
      expect(await conflicts()).toEqual([rel])
      fs.rmSync(copy)
      expect(await conflicts()).toEqual([])
    }
    // A folder made by hand in a project's folder.
    await madeFolderSeen(conflicts, path.join(projects, 'p'), 'p/')
  } finally {
    await client.close()
  }
}, 60_000)

test('the projects a server lists are the files’ at every call: edited by hand, made by another process, removed', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Alpha', '--project', 'p')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit-projects')
  const call = callerOf(client)
  const rows = async () =>
    (await call('status', {})).projects.map((p: { slug: string; title: string }) => `${p.slug}:${p.title}`)
  const goal = async () =>
    (await call('get_context', { ref: 'p/1' })).sections.find((s: { title: string }) => s.title === 'Why')?.content
  const file = path.join(ws.root, '.dacli/projects/p/project.md')
  try {
    await new Promise((r) => setTimeout(r, 300))
    for (let i = 0; i < 2; i++) expect(await rows()).toEqual(['p:P'])
    // By hand: the title and the goal, seen by the very next call of each tool.
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('# P')
    fs.writeFileSync(file, text.replace('# P', '# Payments').replace(/title: P\n/, 'title: Payments\n'))
    expect(await rows()).toEqual(['p:Payments'])
    expect(await rows()).toEqual(['p:Payments'])
    ;(await ws.dacli('project', 'edit', 'p', '--goal', 'Settle every ledger nightly')).expectExit(0)
    expect(await goal()).toContain('Settle every ledger nightly')
    // Another process adds a project: listed at once.
    ws.spawn(['project', 'add', 'Q', '--slug', 'q']).expectExit(0)
    expect(await rows()).toEqual(['p:Payments', 'q:Q'])
    expect(await rows()).toEqual(['p:Payments', 'q:Q'])
    // Its folder removed by hand: gone at once.
    fs.rmSync(path.join(ws.root, '.dacli/projects/q'), { recursive: true })
    expect(await rows()).toEqual(['p:Payments'])
    // Its project file made unreadable by hand: reported, not served from memory.
    fs.writeFileSync(file, '---\nid: [unterminated\n---\n')
    expect((await call('status', {})).skipped.map((b: { path: string }) => b.path)).toEqual([
      '.dacli/projects/p/project.md',
    ])
  } finally {
    await client.close()
  }
}, 60_000)

test('next_tasks holds back work that meets paths a task in progress took on by hand, and frees it when they go', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  for (const t of ['Alpha', 'Charlie', 'Delta']) (await ws.dacli('task', 'add', t, '--project', 'p')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'Bravo', '--project', 'p', '--touches', 'src/**')).expectExit(0)
  const other = await ws.agent()
  ;(await ws.dacli('task', 'claim', 'p/1', { env: { DACLI_AGENT: other.token } })).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit-overlaps')
  const call = callerOf(client)
  const next = async () => {
    const doc = await call('next_tasks', { project: 'p' })
    return {
      ready: doc.ready.map((t: { title: string }) => t.title),
      held: doc.held_back.map((t: { title: string }) => t.title),
    }
  }
  const active = path.join(ws.root, '.dacli/projects/p/tasks/active/001-alpha.md')
  const open = path.join(ws.root, '.dacli/projects/p/tasks/open')
  const text = fs.readFileSync(active, 'utf8')
  try {
    for (let i = 0; i < 2; i++) expect(await next()).toEqual({ ready: ['Charlie', 'Delta', 'Bravo'], held: [] })
    // An open task edited by another process in between (the listing patched, the work in progress the same).
    ws.spawn(['task', 'edit', 'p/2', '--title', 'Charlie edited']).expectExit(0)
    expect(await next()).toEqual({ ready: ['Charlie edited', 'Delta', 'Bravo'], held: [] })
    // The task in progress takes on paths by hand: Bravo meets them at once.
    fs.writeFileSync(active, text.replace(/^version: (\d+)$/m, 'version: $1\ntouches: [src/**]'))
    expect(await next()).toEqual({ ready: ['Charlie edited', 'Delta'], held: ['Bravo'] })
    // An open task begins declaring paths by hand (no task in progress read again): it is held back too.
    const delta = path.join(open, '003-delta.md')
    fs.writeFileSync(
      delta,
      fs.readFileSync(delta, 'utf8').replace(/^version: (\d+)$/m, 'version: $1\ntouches: [src/a.ts]'),
    )
    expect(await next()).toEqual({ ready: ['Charlie edited'], held: ['Delta', 'Bravo'] })
    // The task in progress lets go of its paths: Delta is free, Bravo only meets Delta, proposed before it.
    fs.writeFileSync(active, text)
    expect(await next()).toEqual({ ready: ['Charlie edited', 'Delta'], held: ['Bravo'] })
    // Delta lets go too: everything is free again.
    fs.writeFileSync(delta, fs.readFileSync(delta, 'utf8').replace('touches: [src/a.ts]\n', ''))
    expect(await next()).toEqual({ ready: ['Charlie edited', 'Delta', 'Bravo'], held: [] })
  } finally {
    await client.close()
  }
}, 60_000)

test('next_tasks within one project: an estimate and a dependency edited by hand change the schedule at the next call', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
  const add = ['task', 'add', '--project', 'p']
  ;(await ws.dacli(...add, 'Upstream', '--estimate', '1,1,1')).expectExit(0)
  ;(await ws.dacli(...add, 'Downstream', '--estimate', '2,2,2', '--depends-on', 'p/1')).expectExit(0)
  ;(await ws.dacli(...add, 'Side', '--estimate', '1,1,1')).expectExit(0)
  const client = await servedOverStdio(ws.root, 'afteredit-next-local')
  const call = callerOf(client)
  const ready = async () =>
    (await call('next_tasks', { project: 'p' })).ready.map(
      (t: { title: string; slack: number | null }) => `${t.title} ${t.slack}`,
    )
  const open = path.join(ws.root, '.dacli/projects/p/tasks/open')
  const side = path.join(open, '003-side.md')
  const downstream = path.join(open, '002-downstream.md')
  try {
    // Upstream (Te 1) then Downstream (Te 2) set the length, 3: Side (Te 1) has a slack of 2.
    for (let i = 0; i < 2; i++) expect(await ready()).toEqual(['Upstream 0', 'Side 2'])
    // By hand, in place: Side grows past the chain (Te 5), which now has the slack.
    const text = fs.readFileSync(side, 'utf8')
    fs.writeFileSync(side, text.replace(/estimate: .*$/m, 'estimate: {optimistic: 5, probable: 5, pessimistic: 5}'))
    expect(await ready()).toEqual(['Side 0', 'Upstream 2'])
    // Downstream no longer waits on Upstream (its dependency removed by hand): it is ready, with slack of its own.
    const down = fs.readFileSync(downstream, 'utf8')
    fs.writeFileSync(downstream, down.replace(/^depends_on:\n(?: {2}- .*\n)+/m, ''))
    expect(await ready()).toEqual(['Side 0', 'Downstream 3', 'Upstream 4'])
  } finally {
    await client.close()
  }
}, 60_000)
