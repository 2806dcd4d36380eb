// Queues: an ordered list of task references for one agent to work through, in `.dacli/queues/<slug>.md` (meant to
// be edited by hand). A line of `## Tasks` is `- [ ] <ref>` (waiting its turn; `- <ref>` too), `- [x] <ref>` (its
// turn is done) or `- [-] <ref> — <reason>` (its turn failed). The head is the first waiting line; `advance` closes
// its turn and logs it under `## Log`. A line that is not an item is refused naming the file and the line; a
// reference that names no task (removed, or never there) is kept as a dangling item, with why.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import {
  ConflictError,
  classifiedError,
  FailureError,
  NotFoundError,
  RefusedError,
  UsageError,
} from '../../base/errors.js'
import { safeSegment, titleControl } from '../../format/ids.js'
import { headingLine, headingText } from '../../format/markdown.js'
import { stamp, type TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { atomicWrite, linkOnPath, readText } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'

export type Turn = 'waiting' | 'done' | 'failed'

export interface QueueItem {
  /** 1-based position in the queue. */
  n: number
  /** The reference as written. */
  written: string
  /** The task it names; null when it names none (removed, unknown, ambiguous): see `dangling`. */
  task: TaskSummary | null
  /** Why the reference names no task; null when it does. */
  dangling: string | null
  turn: Turn
  reason: string | null
  /** The file's line (1-based). */
  line: number
}

export interface Queue {
  slug: string
  title: string
  path: string
  items: QueueItem[]
  log: string[]
  created: string | null
  created_by: string | null
}

const ITEM = /^\s*[-*]\s+(?:\[( |x|X|-)\]\s+)?(\S+)(?:\s+(?:—|--|-)\s+(.*))?\s*$/

export const queueSlug = (slug: string) => safeSegment(slug, 'queue name')

export const queueFile = (store: Store, slug: string) => path.join(store.dir, 'queues', `${queueSlug(slug)}.md`)

/** Every queue's slug, sorted. */
export function queueSlugs(store: Store): string[] {
  const dir = path.join(store.dir, 'queues')
  if (!fs.existsSync(dir) || linkOnPath(dir) !== null) return []
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md') && !e.name.startsWith('.'))
    .map((e) => e.name.slice(0, -3))
    .sort()
}

function bad(rel: string, line: number, why: string, next: string[] = []): FailureError {
  return new FailureError(`${rel}:${line}: ${why}`, {
    details: { path: rel, line },
    next: [...next, `fix the line by hand, or ${cmd('queue show <queue>')} once it reads`],
  })
}

/** The queue's file, refused when reached through a link (exit 1) or missing (exit 4). */
function existingQueueFile(store: Store, slug: string): string {
  const file = queueFile(store, slug)
  const rel = store.rel(file)
  if (linkOnPath(file) !== null) throw new FailureError(`${rel} is reached through a symbolic link: not read`)
  if (!fs.existsSync(file)) {
    throw new NotFoundError(`no queue "${slug}" (${rel})`, {
      next: [cmd('queue list'), cmd(`queue add ${slug} <ref>…`)],
    })
  }
  return file
}

/** Read a queue; a line that is not an item is refused (exit 1); a reference that names no task is a dangling item. */
export async function readQueue(store: Store, slug: string): Promise<Queue> {
  const file = existingQueueFile(store, slug)
  const rel = store.rel(file)
  const text = readText(file).replace(/\r\n/g, '\n')
  const lines = text.split('\n')
  let section = ''
  let title = slug
  let created: string | null = null
  let createdBy: string | null = null
  const items: QueueItem[] = []
  const log: string[] = []
  let inFront = lines[0] === '---'
  for (const [i, raw] of lines.entries()) {
    const n = i + 1
    if (inFront) {
      if (i > 0 && raw === '---') inFront = false
      const m = /^(created|created_by):\s*(.+)$/.exec(raw)
      if (m?.[1] === 'created') created = (m[2] as string).trim()
      if (m?.[1] === 'created_by') createdBy = (m[2] as string).trim()
      continue
    }
    const h = /^(#{1,6})[ \t]+([^\n]*)$/.exec(raw)
    if (h) {
      if (h[1] === '#') {
        title = headingText(h[2] as string)
        // A hand-written title reaches documents and terminals: one with a control character is refused, as a task's is.
        const control = titleControl(title)
        if (control !== null) throw bad(rel, n, `the title holds ${control}`)
      } else section = headingText(h[2] as string).toLowerCase()
      continue
    }
    if (raw.trim() === '') continue
    if (section === 'log') {
      log.push(raw)
      continue
    }
    if (section !== 'tasks') continue
    const m = ITEM.exec(raw)
    if (m === null) throw bad(rel, n, `"${raw.slice(0, 80)}" is not a queue item (- [ ] <task ref>)`)
    const written = m[2] as string
    let task: TaskSummary | null = null
    let dangling: string | null = null
    try {
      const f = await store.resolve(written)
      const found = (await store.listTasks(f.project)).tasks.find((t) => t.path === f.path)
      if (found === undefined) throw new NotFoundError(`no task ${written}`)
      task = found
    } catch (e) {
      if (classifiedError(e) === null) throw e
      dangling = e instanceof Error ? e.message : String(e)
    }
    const box = m[1]
    const control = m[3] === undefined ? null : titleControl(m[3])
    if (control !== null) throw bad(rel, n, `the reason holds ${control}`)
    const turn: Turn = box === 'x' || box === 'X' ? 'done' : box === '-' ? 'failed' : 'waiting'
    items.push({
      n: items.length + 1,
      written,
      task,
      dangling,
      turn,
      reason: turn === 'failed' ? (m[3] ?? '').trim() || null : null,
      line: n,
    })
  }
  return { slug, title, path: rel, items, log, created, created_by: createdBy }
}

function render(q: Pick<Queue, 'title' | 'items' | 'log' | 'created' | 'created_by'>): string {
  const box = { waiting: ' ', done: 'x', failed: '-' }
  const items = q.items.map(
    (i) => `- [${box[i.turn]}] ${i.written}${i.turn === 'failed' && i.reason ? ` — ${i.reason}` : ''}`,
  )
  return [
    '---',
    'kind: queue',
    ...(q.created === null ? [] : [`created: ${q.created}`]),
    ...(q.created_by === null ? [] : [`created_by: ${q.created_by}`]),
    '---',
    '',
    headingLine(1, q.title),
    '',
    '## Tasks',
    '',
    ...items,
    '',
    '## Log',
    '',
    ...q.log,
    '',
  ].join('\n')
}

const itemLine = (i: QueueItem) =>
  `- [${{ waiting: ' ', done: 'x', failed: '-' }[i.turn]}] ${i.written}${i.turn === 'failed' && i.reason ? ` — ${i.reason}` : ''}`

/**
 * The file's text with only what changed edited in place — a retitle, one item's turn, items appended to `## Tasks`,
 * lines appended to `## Log` — so what a person wrote around them (frontmatter keys and comments, prose, other
 * sections, an item's own spelling) stays as it was.
 */
function patched(
  text: string,
  o: { title?: string; changed?: QueueItem; added?: readonly QueueItem[]; log: readonly string[] },
): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  let body = 0
  if (lines[0] === '---') {
    const end = lines.indexOf('---', 1)
    body = end === -1 ? lines.length : end + 1
  }
  const sections = new Map<string, { head: number; last: number }>()
  let titleAt = -1
  let cur: { head: number; last: number } | null = null
  for (let i = body; i < lines.length; i++) {
    const h = /^(#{1,6})[ \t]+([^\n]*)$/.exec(lines[i] as string)
    if (h) {
      if (h[1] === '#') {
        if (titleAt === -1) titleAt = i
        cur = null
        continue
      }
      const name = headingText(h[2] as string).toLowerCase()
      cur = sections.get(name) ?? { head: i, last: i }
      if (!sections.has(name)) sections.set(name, cur)
      continue
    }
    if (cur !== null && (lines[i] as string).trim() !== '') cur.last = i
  }
  // Edits from the bottom up, so each index still points where it was read.
  const edits: { at: number; remove: number; put: string[] }[] = []
  if (o.changed !== undefined) edits.push({ at: o.changed.line - 1, remove: 1, put: [itemLine(o.changed)] })
  const tasks = sections.get('tasks')
  const added = (o.added ?? []).map(itemLine)
  const log = sections.get('log')
  const tail: string[] = []
  if (added.length > 0) {
    if (tasks === undefined) tail.push('', '## Tasks', '', ...added)
    else edits.push({ at: tasks.last + 1, remove: 0, put: tasks.last === tasks.head ? ['', ...added] : added })
  }
  if (o.log.length > 0) {
    if (log === undefined) tail.push('', '## Log', '', ...o.log)
    else edits.push({ at: log.last + 1, remove: 0, put: log.last === log.head ? ['', ...o.log] : [...o.log] })
  }
  if (o.title !== undefined) {
    if (titleAt === -1) edits.push({ at: body, remove: 0, put: ['', headingLine(1, o.title)] })
    else edits.push({ at: titleAt, remove: 1, put: [headingLine(1, o.title)] })
  }
  edits.sort((a, b) => b.at - a.at)
  for (const e of edits) lines.splice(e.at, e.remove, ...e.put)
  if (tail.length > 0) {
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
    lines.push(...tail, '')
  }
  return lines.join(eol)
}

/** Create the queue or append tasks to it (a task already waiting in it is not added twice), under its lock. */
export async function addToQueue(
  store: Store,
  slug: string,
  actor: string,
  refs: readonly string[],
  title: string | undefined,
): Promise<{ queue: Queue; added: string[]; created: boolean }> {
  const file = queueFile(store, slug)
  // A name ending in the extension would double it on disk: the name is the file name without it.
  if (slug.endsWith('.md') && !fs.existsSync(file)) {
    throw new UsageError(
      `queue name ${JSON.stringify(slug)} ends in .md: give the name without it (${slug.slice(0, -3)})`,
      {
        details: { name: slug, reason: 'ends in .md' },
      },
    )
  }
  const tasks: TaskSummary[] = []
  for (const r of refs) {
    const f = await store.resolve(r)
    const t = (await store.listTasks(f.project)).tasks.find((x) => x.path === f.path)
    if (t === undefined) throw new NotFoundError(`no task ${r}`)
    tasks.push(t)
  }
  return store.withLock(`queue-${queueSlug(slug)}`, async () => {
    const exists = fs.existsSync(file)
    const q: Queue = exists
      ? await readQueue(store, slug)
      : {
          slug,
          title: title ?? slug,
          path: store.rel(file),
          items: [],
          log: [],
          created: stamp(store.now()),
          created_by: actor,
        }
    if (title !== undefined) q.title = title
    const added: string[] = []
    const items: QueueItem[] = []
    for (const t of tasks) {
      if (q.items.some((i) => i.task?.id === t.id && i.turn === 'waiting') || added.includes(qualifiedRef(t))) continue
      const ref = qualifiedRef(t)
      items.push({
        n: q.items.length + 1,
        written: ref,
        task: t,
        dangling: null,
        turn: 'waiting',
        reason: null,
        line: 0,
      })
      q.items.push(items[items.length - 1] as QueueItem)
      added.push(ref)
    }
    const log = added.length > 0 ? [`- ${stamp(store.now())} ${actor} added ${added.join(' ')}`] : []
    q.log.push(...log)
    if (!exists) atomicWrite(store.system, file, render(q))
    else if (added.length > 0 || title !== undefined) {
      const text = patched(readText(file), { ...(title === undefined ? {} : { title }), added: items, log })
      atomicWrite(store.system, file, text)
    }
    return { queue: await readQueue(store, slug), added, created: !exists }
  })
}

/** Close the head's turn (done, or failed with a reason), log it, and move on. */
export async function advanceQueue(
  store: Store,
  slug: string,
  actor: string,
  fail: string | null,
): Promise<{ queue: Queue; closed: QueueItem }> {
  return store.withLock(`queue-${queueSlug(slug)}`, async () => {
    const q = await readQueue(store, slug)
    const head = q.items.find((i) => i.turn === 'waiting')
    if (head === undefined) {
      throw new ConflictError(`queue ${slug} has no task waiting its turn: nothing to advance`, {
        details: { queue: slug },
        next: [cmd(`queue add ${slug} <ref>…`), cmd(`queue show ${slug}`)],
      })
    }
    if (head.dangling !== null && fail === null) {
      throw new ConflictError(
        `the head of queue ${slug}, "${head.written}" (${q.path}:${head.line}), names no task (${head.dangling}): its turn cannot be done`,
        {
          details: { queue: slug, ref: head.written, line: head.line },
          next: [cmd(`queue advance ${slug} --fail <reason>`), `or delete line ${head.line} of ${q.path} by hand`],
        },
      )
    }
    head.turn = fail === null ? 'done' : 'failed'
    head.reason = fail
    const line = `- ${stamp(store.now())} ${actor} ${fail === null ? 'done' : 'failed'} ${head.written}${fail === null ? '' : `: ${fail}`}`
    const file = queueFile(store, slug)
    atomicWrite(store.system, file, patched(readText(file), { changed: head, log: [line] }))
    return { queue: await readQueue(store, slug), closed: head }
  })
}

/** Remove a queue file; one with tasks still waiting, or one that cannot be read, needs force. */
export async function removeQueue(store: Store, slug: string, force: boolean): Promise<Queue> {
  return store.withLock(`queue-${queueSlug(slug)}`, async () => {
    const file = existingQueueFile(store, slug)
    let q: Queue
    try {
      q = await readQueue(store, slug)
    } catch (e) {
      if (!(e instanceof FailureError)) throw e
      if (!force) {
        throw new FailureError(e.message, {
          details: e.details,
          next: [cmd(`queue rm ${slug} --force`), 'or fix the line by hand'],
        })
      }
      // Unreadable: removed as asked, reported with what is known of it.
      fs.unlinkSync(file)
      return { slug, title: slug, path: store.rel(file), items: [], log: [], created: null, created_by: null }
    }
    const waiting = q.items.filter((i) => i.turn === 'waiting').length
    if (waiting > 0 && !force) {
      throw new RefusedError('queue-not-finished', `queue ${slug} still has ${waiting} task(s) waiting their turn`, {
        details: { queue: slug, waiting },
        next: [cmd(`queue rm ${slug} --force`)],
      })
    }
    fs.unlinkSync(file)
    return q
  })
}
