// Writing a pull's changes into the working `.dacli/` under the same scoped locks
// every other writer takes:
// a task file under `task-<id>`, a project under `project-<slug>`, a glossary
// under `glossary-<slug>`, an agent under `agent-<id>`, and a new task number
// under `seq-<project>`. Under the locks every file is read again; if one moved
// since the record the merge was computed from, nothing is written and the caller
// records and merges again, so a claim landing during a pull is never overwritten.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Git, TreeFile } from '../../adapters/git/index.js'
import { objectId } from '../../adapters/git/objects.js'
import { FailureError } from '../../base/errors.js'
import { seqText } from '../../format/model.js'
import { taskIdInText } from '../../format/rawtask.js'
import { isTempName } from '../../store/fsio.js'
import type { Lock } from '../../store/lock.js'
import type { Store } from '../../store/store.js'
import { tasksDir, usedSeqs } from '../../store/taskindex.js'
import type { FileChangedT } from './json.js'
import { plannedChanges } from './workfiles.js'

const TASK = /^(?:.*\/)?\.dacli\/projects\/([a-z0-9][a-z0-9._-]*)\/tasks\/[a-z]+\/(\d{3,})-[^/]+\.md$/
const PROJECT = /^(?:.*\/)?\.dacli\/projects\/([a-z0-9][a-z0-9._-]*)\/project\.md$/
const GLOSSARY = /^(?:.*\/)?\.dacli\/projects\/([a-z0-9][a-z0-9._-]*)\/glossary\.md$/
const AGENT = /^(?:.*\/)?\.dacli\/agents\/(a-[a-z0-9][a-z0-9-]*)\.md$/

function diskOid(file: string): string | null {
  try {
    return objectId('blob', fs.readFileSync(file))
  } catch {
    return null
  }
}

async function taskIdOf(git: Git, f: TreeFile | undefined): Promise<string | null> {
  return f === undefined ? null : taskIdInText((await git.readBlob(f.oid)).subarray(0, 4096).toString('utf8'))
}

/**
 * The entry under a project's `tasks/` that takes number `n` without being a task file a writer could have added
 * (a folder named like one, a file outside a status folder or not `.md`), or null. Retrying never moves it: the pull
 * names it (exit 1) instead of calling the workspace busy.
 */
function strayWithNumber(store: Store, project: string, n: number): string | null {
  const base = tasksDir(store, project)
  const numbered = (name: string) => !isTempName(name) && Number(/^(\d{3,})-/.exec(name)?.[1]) === n
  const list = (dir: string) => fs.readdirSync(dir, { withFileTypes: true })
  for (const e of list(base)) {
    const dir = path.join(base, e.name)
    if (!e.isDirectory()) {
      if (numbered(e.name)) return dir
      continue
    }
    for (const f of list(dir)) {
      if (numbered(f.name) && !(f.isFile() && /^[a-z]+$/.test(e.name) && /^\d{3,}-[^/]+\.md$/.test(f.name)))
        return path.join(dir, f.name)
    }
  }
  return null
}

/**
 * Refuse, before anything is written, a change that could not be written: a file (or anything but a folder)
 * where one of its folders belongs, or a folder where the file goes. So a pull fails whole, never half-applied.
 */
function assertWritable(file: string, top: string): void {
  const segs = path.relative(top, file).split(path.sep)
  let cur = top
  for (const [i, seg] of segs.entries()) {
    cur = path.join(cur, seg)
    const st = fs.lstatSync(cur, { throwIfNoEntry: false })
    if (st === undefined) return
    const leaf = i === segs.length - 1
    if (leaf ? st.isDirectory() : !st.isDirectory()) {
      throw new FailureError(
        `${cur} is ${leaf ? 'a folder where the pull writes a file' : 'not a folder'}; nothing was merged`,
        { details: { path: cur }, next: ['move it out of the way and pull again'] },
      )
    }
  }
}

export type Applied = { files: FileChangedT[] } | { moved: string[] }

/**
 * Move the working files from the `from` record to the `to` record, holding the locks of everything
 * touched while checking that each file is still what `from` says and writing it. `commit` runs last,
 * still under the locks (it moves the record ref). Returns the paths that moved instead, writing nothing.
 */
export async function applyLocked(
  store: Store,
  git: Git,
  root: string,
  from: ReadonlyMap<string, TreeFile>,
  to: ReadonlyMap<string, TreeFile>,
  commit: () => Promise<void>,
): Promise<Applied> {
  // Only this repository's workspace folder is written, never through a link (workfiles.ts, safeTarget).
  const ws = path.relative(root, store.dir).split(path.sep).join('/')
  const changes = plannedChanges(root, ws, from, to)
  const scopes = new Set<string>()
  const newNumbers = new Map<string, Set<number>>()
  for (const c of changes) {
    const t = TASK.exec(c.path)
    if (t !== null) {
      for (const id of [await taskIdOf(git, from.get(c.path)), await taskIdOf(git, to.get(c.path))]) {
        if (id !== null) scopes.add(`task-${id}`)
      }
      const [, project, seq] = t
      if (c.change === 'added' && project !== undefined) {
        newNumbers.set(project, (newNumbers.get(project) ?? new Set()).add(Number(seq)))
        scopes.add(`seq-${project}`)
      }
      continue
    }
    const p = PROJECT.exec(c.path) ?? GLOSSARY.exec(c.path)
    if (p !== null) scopes.add(`${PROJECT.test(c.path) ? 'project' : 'glossary'}-${p[1]}`)
    const a = AGENT.exec(c.path)
    if (a !== null) scopes.add(`agent-${a[1]}`)
  }
  const locks: Lock[] = []
  try {
    // One order for every pull; a pull is the only writer that holds more than one of these.
    for (const scope of [...scopes].sort()) locks.push(await store.lock(scope))
    for (const c of changes) assertWritable(c.file, store.dir)
    const moved = changes.filter((c) => diskOid(c.file) !== (from.get(c.path)?.oid ?? null)).map((c) => c.path)
    // A task added here since the record would share a number the merge did not renumber.
    for (const [project, numbers] of newNumbers) {
      const recorded = new Set<number>()
      for (const p of from.keys()) {
        const m = TASK.exec(p)
        if (m !== null && m[1] === project) recorded.add(Number(m[2]))
      }
      const onDisk = usedSeqs({ root: store.root, dir: store.dir }, project)
      for (const n of onDisk) {
        if (!recorded.has(n) && numbers.has(n)) {
          const stray = strayWithNumber(store, project, n)
          if (stray !== null) {
            throw new FailureError(
              `${stray} takes the number ${project}/${seqText(n)} the pull adds but is not a task file; nothing was merged`,
              { details: { path: stray }, next: ['move it out of the way and pull again'] },
            )
          }
          moved.push(`${project}/${seqText(n)}`)
        }
      }
    }
    if (moved.length > 0) return { moved }
    for (const c of changes) {
      const { atomicWrite, removeFile } = await import('../../store/fsio.js')
      if (c.oid === null) removeFile(c.file)
      else atomicWrite(git.system, c.file, await git.readBlob(c.oid))
    }
    await commit()
    return {
      files: changes
        .map(({ path: p, change }) => ({ path: p, change }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    }
  } finally {
    for (const l of locks.reverse()) l.release()
  }
}

/**
 * A workspace exactly as `init` left it (no projects, no events, only the root identity, never recorded):
 * pulling a record into it replaces it instead of merging two unrelated workspaces.
 */
export async function isPristine(store: Store, git: Git, recordRef: string): Promise<boolean> {
  if ((await git.resolve(recordRef)) !== null) return false
  const entries = (d: string) => {
    try {
      return fs.readdirSync(path.join(store.dir, d)).filter((n) => !n.startsWith('.'))
    } catch {
      return []
    }
  }
  // init writes the root identity and publishes its key (agents/a-root.keys/): nothing else.
  const agents = entries('agents').filter((n) => n !== 'a-root.keys')
  return entries('projects').length === 0 && entries('events').length === 0 && agents.join() === 'a-root.md'
}
