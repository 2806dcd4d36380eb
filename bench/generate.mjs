// Generate a workspace straight from FORMAT.md (no dacli involved — the format is the API):
// projects, tasks with estimates, priorities, criteria and FS/SS dependencies, notes and events.

import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
/** A ULID for the time `ms` (random part from crypto). */
export function ulidAt(ms) {
  let time = ''
  let n = ms
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[n % 32] + time
    n = Math.floor(n / 32)
  }
  const r = randomBytes(16)
  let rand = ''
  for (let i = 0; i < 16; i++) rand += CROCKFORD[r[i] % 32]
  return time + rand
}

const canonical = (v) =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v !== null && typeof v === 'object'
      ? `{${Object.keys(v)
          .filter((k) => v[k] !== undefined)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
          .join(',')}}`
      : JSON.stringify(v)

const PRIORITIES = ['must', 'should', 'should', 'could']
const WORDS = [
  'ledger',
  'shim',
  'batch',
  'audit',
  'export',
  'import',
  'drift',
  'cache',
  'index',
  'queue',
  'retry',
  'report',
  'schema',
  'token',
  'lease',
  'claim',
]

/**
 * @param {string} root a folder (a git repository is created in it)
 * @param {{projects: number, tasksPerProject: number, notes: number, events: number, githubRepo?: string}} size
 *   `githubRepo` links every project to that repository (as `github link` records it).
 */
export function generate(root, size) {
  mkdirSync(root, { recursive: true })
  execFileSync('git', ['init', '-q'], { cwd: root })
  const dacli = join(root, '.dacli')
  for (const d of ['agents', 'projects', 'events']) mkdirSync(join(dacli, d), { recursive: true })
  writeFileSync(
    join(dacli, 'config.yml'),
    `id: ${ulidAt(Date.now())}\nname: bench\nformat: 0\nrecord_branch: dacli/record\nautorecord: false\nclaim_lease: 2h\n`,
  )
  writeFileSync(join(dacli, '.gitignore'), 'locks/\ncache/\n')
  writeFileSync(
    join(dacli, 'agents', 'a-root.md'),
    '---\nid: a-root\nkind: agent\ngrant: rw\nrole: root\n---\n# root\n',
  )
  const base = Date.parse('2026-01-01T00:00:00Z')
  const ids = []
  let k = 0
  for (let p = 0; p < size.projects; p++) {
    const slug = `proj${String(p).padStart(3, '0')}`
    const pdir = join(dacli, 'projects', slug)
    mkdirSync(join(pdir, 'tasks', 'open'), { recursive: true })
    mkdirSync(join(pdir, 'tasks', 'done'), { recursive: true })
    mkdirSync(join(pdir, 'notes', 'findings'), { recursive: true })
    mkdirSync(join(pdir, 'notes', 'decisions'), { recursive: true })
    writeFileSync(
      join(pdir, 'project.md'),
      `---\nid: p-${slug}\nkind: project\nstatus: active\nstage: design\n${size.githubRepo ? `github:\n  repo: ${size.githubRepo}\n  public_confirmed: null\n` : ''}---\n\n# Project ${p}\n\n## Goal\n\nShip part ${p} of the ledger.\n`,
    )
    const projIds = []
    for (let i = 1; i <= size.tasksPerProject; i++, k++) {
      const id = `t-${ulidAt(base + k * 1000)}`
      projIds.push(id)
      ids.push({ id, project: slug, seq: i })
      const status = i % 5 === 0 ? 'done' : 'open'
      const title = `${WORDS[k % WORDS.length]} ${WORDS[(k * 7) % WORDS.length]} step ${i} of project ${p}`
      const slugT = title.toLowerCase().replace(/[^a-z0-9]+/g, '-')
      const deps =
        i > 1 && i % 3 !== 0 ? `depends_on:\n  - {on: ${projIds[i - 2]}, type: ${i % 7 === 0 ? 'SS' : 'FS'}}\n` : ''
      const o = 1 + (k % 4)
      const text = `---\nid: ${id}\nkind: task\ncreated: 2026-01-01T00:00:00Z\ncreated_by: a-root\npriority: ${PRIORITIES[k % 4]}\nestimate: {optimistic: ${o}, probable: ${o + 2}, pessimistic: ${o + 5}}\n${deps}version: 1\n---\n\n# ${title}\n\n## So that\n\nthe ledger stays consistent.\n\n## Acceptance\n\n- [${status === 'done' ? 'x' : ' '}] the ${WORDS[k % WORDS.length]} path is covered\n- [${status === 'done' ? 'x' : ' '}] the suite is green\n\n## Log\n\n- 2026-01-01T00:00:00Z a-root created\n`
      writeFileSync(join(pdir, 'tasks', status, `${String(i).padStart(3, '0')}-${slugT}.md`), text)
    }
  }
  for (let n = 0; n < size.notes; n++) {
    const t = ids[(n * 37) % ids.length]
    const kind = n % 5 === 0 ? 'decisions' : 'findings'
    const body =
      kind === 'decisions'
        ? `\n# Decision ${n}\n\n## Chose\n\nOption A ${n}\n\n## Rejected\n\nOption B ${n}\n\n## Because\n\nIt is simpler.\n`
        : `\n# Finding ${n}\n\nObserved ${WORDS[n % WORDS.length]} behaving oddly.\n`
    writeFileSync(
      join(dacli, 'projects', t.project, 'notes', kind, `note-${n}.md`),
      `---\nid: n-${ulidAt(base + n * 500)}\nkind: note\nnote_kind: ${kind === 'decisions' ? 'decision' : 'finding'}\ncreated: 2026-01-02T00:00:00Z\ncreated_by: a-root\nabout: ${t.id}\n${kind === 'findings' ? `severity: ${['major', 'moderate', 'minor'][n % 3]}\n` : ''}---\n${body}`,
    )
  }
  for (let e = 0; e < size.events; e++) {
    const t = ids[(e * 13) % ids.length]
    const created = new Date(base + e * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    const id = ulidAt(base + e * 60_000)
    const rec = {
      schema_version: 1,
      id,
      kind: 'event',
      event_kind: 'comment',
      created,
      created_by: 'a-root',
      about: t.id,
      data: {},
      body: `note ${e}`,
    }
    const checksum = `sha256:${createHash('sha256').update(canonical(rec)).digest('hex')}`
    const [y, m, d] = created.slice(0, 10).split('-')
    mkdirSync(join(dacli, 'events', y, m, d), { recursive: true })
    writeFileSync(
      join(dacli, 'events', y, m, d, `${id}-a-root-comment.md`),
      `---\nid: ${id}\nkind: event\nschema_version: 1\nevent_kind: comment\ncreated: ${created}\ncreated_by: a-root\nabout: ${t.id}\ndata: {}\napplied: true\nchecksum: ${checksum}\n---\n\nnote ${e}\n`,
    )
  }
  return { ids }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, tasks = '1000', projects = '10'] = process.argv.slice(2)
  const t = Number(tasks)
  const p = Number(projects)
  generate(dir, {
    projects: p,
    tasksPerProject: Math.ceil(t / p),
    notes: Math.round(t / 5),
    events: Math.round(t / 10),
  })
  console.log(`generated ${t} tasks in ${p} projects at ${dir}`)
}
