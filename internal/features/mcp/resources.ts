// The workspace as MCP resources: every project (`dacli://project/<slug>`), task (`dacli://task/<project>/<n>`) and
// note (`dacli://note/<id>`). A read returns the object's file as stored (markdown with its frontmatter): the
// resource is the file, and the structured views of the same objects are the tools (show_task is task/v1), so a read
// does not pay for both. The list is paged (PAGE entries, well under the 2,000 tokens a default page may cost) in a
// fixed order. The server (internal/mcp/resources.ts) speaks the protocol and watches the folders named here.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { NotFoundError, UsageError } from '../../base/errors.js'
import { byText } from '../../base/order.js'
import type { McpResource, McpResources } from '../../clikit/context.js'
import { listNotes, readNote } from '../../domain/notes/notes.js'
import { objectFolders } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'

export const PAGE = 40
const MARKDOWN = 'text/markdown'
const PROJECT = /^dacli:\/\/project\/([a-z0-9][a-z0-9._-]*)$/
const TASK = /^dacli:\/\/task\/([a-z0-9][a-z0-9._-]*)\/([1-9][0-9]{0,8})$/
const NOTE = /^dacli:\/\/note\/(n-[0-9A-HJKMNP-TV-Z]{26})$/

const taskUri = (project: string, seq: number) => `dacli://task/${project}/${seq}`

async function all(store: Store): Promise<McpResource[]> {
  const out: McpResource[] = []
  const { projects } = await store.listProjects()
  for (const p of [...projects].sort((a, b) => byText(a.slug, b.slug))) {
    out.push({ uri: `dacli://project/${p.slug}`, name: p.slug, title: p.title, mimeType: MARKDOWN })
  }
  const { tasks } = await store.listTasks()
  // A listing holds the live status folders only (a removed task's tombstone is not a resource).
  const live = [...tasks]
  live.sort((a, b) => byText(a.project, b.project) || a.seq - b.seq)
  for (const t of live) {
    const seq = String(t.seq).padStart(3, '0')
    out.push({
      uri: taskUri(t.project, t.seq),
      name: `${t.project}/${seq}-${t.slug}`,
      title: t.title,
      mimeType: MARKDOWN,
    })
  }
  const { notes } = await listNotes(store)
  notes.sort((a, b) => byText(a.project, b.project) || byText(a.kind, b.kind) || byText(a.slug, b.slug))
  for (const n of notes) {
    out.push({ uri: `dacli://note/${n.id}`, name: `${n.project}/${n.slug}`, title: n.title, mimeType: MARKDOWN })
  }
  return out
}

function offsetOf(cursor: string | null): number {
  if (cursor === null) return 0
  const m = /^p([0-9]{1,9})$/.exec(cursor)
  if (m === null) throw new UsageError(`not a cursor of this list: ${JSON.stringify(cursor)}`, { details: { cursor } })
  return Number(m[1])
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
    const at = offsetOf(cursor)
    const every = await all(store)
    const page = every.slice(at, at + PAGE)
    return { resources: page, next: at + PAGE < every.length ? `p${at + PAGE}` : null }
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
    return (await all(store)).map((r) => r.uri)
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
