// The workspace as MCP resources: every project (`dacli://project/<slug>`), task (`dacli://task/<project>/<n>`) and
// note (`dacli://note/<id>`). A read returns the object's file as stored (markdown with its frontmatter): the
// resource is the file, and the structured views of the same objects are the tools (show_task is task/v1), so a read
// does not pay for both. The list is paged (PAGE entries, well under the 2,000 tokens a default page may cost) in a
// fixed order, by key (clikit/pageflags.ts, as task list pages): a cursor names the last entry of its page, so an
// object added or removed before it does not shift the next page. The server (internal/mcp/resources.ts) speaks
// the protocol and watches the folders named here.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { NotFoundError, UsageError } from '../../base/errors.js'
import { byText } from '../../base/order.js'
import type { McpResource, McpResources } from '../../clikit/context.js'
import { cursorPlace, keyCursor, type PageKey, pageStart } from '../../clikit/pageflags.js'
import { listNotes, readNote } from '../../domain/notes/notes.js'
import { objectFolders } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'

export const PAGE = 40
const MARKDOWN = 'text/markdown'
const PROJECT = /^dacli:\/\/project\/([a-z0-9][a-z0-9._-]*)$/
const TASK = /^dacli:\/\/task\/([a-z0-9][a-z0-9._-]*)\/([1-9][0-9]{0,8})$/
const NOTE = /^dacli:\/\/note\/(n-[0-9A-HJKMNP-TV-Z]{26})$/

const taskUri = (project: string, seq: number) => `dacli://task/${project}/${seq}`

/** An entry of the list and its sort key: the kind's rank, then what orders it within its kind (five elements). */
interface Entry {
  readonly resource: McpResource
  readonly key: PageKey
}
const KEY_ARITY = 5

async function all(store: Store): Promise<Entry[]> {
  const out: Entry[] = []
  const { projects } = await store.listProjects()
  for (const p of [...projects].sort((a, b) => byText(a.slug, b.slug))) {
    out.push({
      resource: { uri: `dacli://project/${p.slug}`, name: p.slug, title: p.title, mimeType: MARKDOWN },
      key: [0, p.slug, 0, '', ''],
    })
  }
  const { tasks } = await store.listTasks()
  // A listing holds the live status folders only (a removed task's tombstone is not a resource).
  const live = [...tasks]
  // Slug and id last: two tasks of one number (a sequence collision doctor reports) still have one order and two keys.
  live.sort((a, b) => byText(a.project, b.project) || a.seq - b.seq || byText(a.slug, b.slug) || byText(a.id, b.id))
  for (const t of live) {
    const seq = String(t.seq).padStart(3, '0')
    out.push({
      resource: {
        uri: taskUri(t.project, t.seq),
        name: `${t.project}/${seq}-${t.slug}`,
        title: t.title,
        mimeType: MARKDOWN,
      },
      key: [1, t.project, t.seq, t.slug, t.id],
    })
  }
  const { notes } = await listNotes(store)
  // The id last: two notes of one slug still have one order, and keys stay unique.
  notes.sort(
    (a, b) => byText(a.project, b.project) || byText(a.kind, b.kind) || byText(a.slug, b.slug) || byText(a.id, b.id),
  )
  for (const n of notes) {
    out.push({
      resource: { uri: `dacli://note/${n.id}`, name: `${n.project}/${n.slug}`, title: n.title, mimeType: MARKDOWN },
      key: [2, n.project, n.kind, n.slug, n.id],
    })
  }
  return out
}

/**
 * Where a page starts: after a key cursor's entry, or at the offset of a cursor of the earlier form (`p40`), still
 * read. Anything else is a usage error (-32602 over MCP).
 */
function placeOf(cursor: string | null): ReturnType<typeof cursorPlace> {
  if (cursor === null) return null
  const bad = () => new UsageError(`not a cursor of this list: ${JSON.stringify(cursor)}`, { details: { cursor } })
  const m = /^p([0-9]{1,9})$/.exec(cursor)
  if (m !== null) return { offset: Number(m[1]) }
  if (!cursor.startsWith('k.')) throw bad()
  try {
    return cursorPlace(cursor, KEY_ARITY)
  } catch {
    throw bad()
  }
}

function readFile(abs: string, uri: string): string {
  try {
    return fs.readFileSync(abs, 'utf8')
  } catch {
    throw new NotFoundError(`no resource ${uri}`, { details: { uri } })
  }
}

export const resources: McpResources = {
  async list(store, cursor) {
    const place = placeOf(cursor)
    const every = await all(store)
    const at = pageStart(every, place, (e) => e.key)
    const page = every.slice(at, at + PAGE)
    const last = page.at(-1)
    return {
      resources: page.map((e) => e.resource),
      next: at + PAGE < every.length && last !== undefined ? keyCursor(last.key) : null,
    }
  },

  async read(store, uri) {
    let abs: string
    const p = PROJECT.exec(uri)
    const t = TASK.exec(uri)
    const n = NOTE.exec(uri)
    if (p !== null) {
      abs = path.join(store.requireProject(p[1] ?? ''), 'project.md')
    } else if (t !== null) {
      const target = await store.resolve(`${t[1]}/${t[2]}`)
      abs = target.abs
    } else if (n !== null) {
      const note = await readNote(store, n[1] ?? '')
      abs = path.join(store.where().root, note.path)
    } else {
      throw new UsageError(`not a dacli resource: ${JSON.stringify(uri)}`, {
        details: { uri, templates: resources.templates.map((x) => x.uriTemplate) },
      })
    }
    return { contents: { uri, mimeType: MARKDOWN, text: readFile(abs, uri) }, path: store.rel(abs) }
  },

  async uris(store) {
    return (await all(store)).map((e) => e.resource.uri)
  },

  folders: (store) => objectFolders(store.dir),

  templates: [
    {
      uriTemplate: 'dacli://task/{project}/{n}',
      name: 'task',
      description: 'A task file as stored (n: its number in the project)',
      mimeType: MARKDOWN,
    },
    {
      uriTemplate: 'dacli://project/{slug}',
      name: 'project',
      description: 'A project.md as stored',
      mimeType: MARKDOWN,
    },
    { uriTemplate: 'dacli://note/{id}', name: 'note', description: 'A note (n-<ULID>) as stored', mimeType: MARKDOWN },
  ],
}
