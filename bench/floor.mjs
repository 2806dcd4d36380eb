// Reference scenarios: what the workspace's layout and the index allow on this machine, with no dacli code at
// all. Run in a workspace whose index is warm; measured beside dacli's own scenarios, paired with `node -e 0`.
//
//   node bench/floor.mjs walk   every task folder read and one lstat per task file (what any answer checked
//                               against the files must do, FORMAT.md "The cache")
//   node bench/floor.mjs list   the walk, plus the index read and parsed, each file's stamp checked against its
//                               entry, one task-list item per task built and the answer written to stdout (what
//                               computing a listing costs at the least)
//
// Neither is a shortcut dacli could take: they skip the hostile-file checks, the deduplication, the filters and
// the command line. They price the floor under a target.

import { lstatSync, readdirSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

const STATUSES = ['open', 'active', 'blocked', 'done']
const mode = process.argv[2]
if (mode !== 'walk' && mode !== 'list') {
  process.stderr.write('usage: node bench/floor.mjs walk|list\n')
  process.exit(2)
}

const projects = join('.dacli', 'projects')
/** Each task file of each project: [status, name, stats]. */
function walk(project) {
  const out = []
  const tasks = join(projects, project, 'tasks')
  for (const status of readdirSync(tasks)) {
    if (!STATUSES.includes(status)) continue
    for (const name of readdirSync(join(tasks, status))) {
      if (name.endsWith('.md')) out.push([status, name, lstatSync(join(tasks, status, name))])
    }
  }
  return out
}

/** The index's `tasks/<project>` sections, by project (the text of each: entries split by U+001E, FORMAT.md). */
function sections() {
  const text = readFileSync(join('.dacli', 'cache', 'index'), 'utf8')
  const out = new Map()
  for (const line of text.split('\n').slice(2)) {
    const tab = line.indexOf('\t')
    if (line.startsWith('tasks/') && tab > 0) out.set(line.slice('tasks/'.length, tab), line.slice(tab + 1))
  }
  return out
}

/** A section's entries: name → [stamp text, value JSON]. */
function entriesOf(text) {
  const out = new Map()
  for (const e of text.split('\u001e')) {
    const a = e.indexOf('\t')
    const b = e.indexOf('\t', a + 1)
    if (a > 0 && b > a) out.set(e.slice(0, a), [e.slice(a + 1, b), e.slice(b + 1)])
  }
  return out
}

let count = 0
const items = []
const index = mode === 'list' ? sections() : null
for (const project of readdirSync(projects).sort()) {
  const files = walk(project)
  count += files.length
  if (index === null) continue
  const entries = entriesOf(index.get(project) ?? '')
  for (const [status, name, st] of files) {
    const e = entries.get(`${status}/${name}`)
    if (e === undefined || e[0] !== `${st.size}:${Math.trunc(st.mtimeMs)}:${st.ino}:${Math.trunc(st.ctimeMs)}`) {
      process.stderr.write(`index entry missing or stale: ${project}/${status}/${name} (warm the index first)\n`)
      process.exit(1)
    }
    const c = JSON.parse(e[1])
    const seq = Number(name.slice(0, name.indexOf('-')))
    const slug = name.slice(name.indexOf('-') + 1, -3)
    items.push({
      id: c[0],
      seq,
      ref: `${project}/${name.slice(0, -3)}`,
      slug,
      project,
      title: c[1],
      status,
      owner: c[5] || null,
      priority: c[7] || null,
      acceptance_done: c[3],
      acceptance_total: c[4],
      estimate_te: c[8] ? (c[8].optimistic + 4 * c[8].probable + c[8].pessimistic) / 6 : null,
      claim_expires: c[6] ? c[6].expires : null,
      version: c[2],
      path: `.dacli/projects/${project}/tasks/${status}/${name}`,
    })
  }
}
const doc = mode === 'list' ? { schema: 'task-list/v1', tasks: items, total: items.length } : { files: count }
writeSync(1, `${JSON.stringify(doc)}\n`)
