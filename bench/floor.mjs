// Reference scenarios: what the workspace's layout and the caches allow on this machine, with no dacli code at
// all. Run in a workspace whose caches are warm; measured beside dacli's own scenarios, paired with `node -e 0`.
//
//   node bench/floor.mjs walk   every task folder read and one lstat per task file (what any answer checked
//                               against the files must do, FORMAT.md "The cache")
//   node bench/floor.mjs list   the walk, plus the kept list items read (`cache/items`, each section's code checked
//                               under the clone's cache key), each file's stamp checked against its entry and the
//                               items written to stdout as one document (what printing a listing costs at the
//                               least); a file whose entry is stale is left out
//
// Neither is a shortcut dacli could take: they skip the hostile-file checks, the deduplication, the filters, the
// parse of changed files and the command line. They price the floor under a target.

import { createHmac } from 'node:crypto'
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

/**
 * The kept list items' sections (`cache/items`: one per project), by project: each line whose code (the table of
 * contents' fifth value, an HMAC-SHA256 of the header, the file's name and the line) the clone's key verifies.
 */
function sections() {
  const bytes = readFileSync(join('.dacli', 'cache', 'items'))
  const key = Buffer.from(readFileSync(join('.git', 'dacli', 'cache-key'), 'latin1').trim(), 'base64url')
  const first = bytes.indexOf(10)
  const second = bytes.indexOf(10, first + 1)
  const scope = `${bytes.toString('latin1', 0, first)}\nitems\n`
  const out = new Map()
  for (const [name, a, b, c, code] of JSON.parse(bytes.toString('utf8', first + 1, second))) {
    const line = bytes.subarray(second + 1 + a, second + 1 + c)
    if (createHmac('sha256', key).update(scope).update(line).digest('base64url') !== code) continue
    out.set(name, bytes.toString('utf8', second + 1 + b, second + 1 + c))
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
    if (e === undefined || e[0] !== `${st.size}:${Math.trunc(st.mtimeMs)}:${st.ino}:${Math.trunc(st.ctimeMs)}`) continue
    // The kept value is `<id>\t<version>\t<item JSON>`.
    const v = e[1]
    items.push(v.slice(v.indexOf('\t', v.indexOf('\t') + 1) + 1))
  }
}
if (mode === 'list') {
  writeSync(1, '{"schema":"task-list/v1","tasks":[')
  for (let i = 0; i < items.length; i += 500) writeSync(1, (i === 0 ? '' : ',') + items.slice(i, i + 500).join(','))
  writeSync(1, `],"total":${items.length}}\n`)
} else writeSync(1, `${JSON.stringify({ files: count })}\n`)
