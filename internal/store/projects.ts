// Project folders, as the store reads them: which folders under `projects/` are projects, a project's file,
// and the refusal when one is missing.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { closest } from '../base/closest.js'
import { cmd } from '../base/commands.js'
import { FailureError, NotFoundError } from '../base/errors.js'
import { parseData } from '../format/flat.js'
import { isId } from '../format/ids.js'
import type { Broken, ProjectRecord } from '../format/model.js'
import { brokenOf, fieldOf } from '../format/model.js'
import { projectOf } from '../format/project.js'
import { assertNoLinks, LinkError, linkOnPath, readText } from './fsio.js'
import type { Store } from './store.js'

/**
 * What a project is, in one place: a folder under `projects/` whose name is a project slug and which holds a
 * `project.md` (a file, not a link). Every listing — `project list`, `task list`, `next`, lint — takes its projects
 * from here. Returned with what under projects/ cannot be one (links, names that are not slugs, and a folder that
 * holds something but no project file: what is in it is never read, so it is announced, never dropped silently).
 */
export function listProjectEntries(store: Store): { slugs: string[]; broken: Broken[] } {
  const projects = path.join(store.dir, 'projects')
  const broken: Broken[] = []
  let ents: fs.Dirent[]
  try {
    if (linkOnPath(projects, store.dir) !== null) throw new LinkError(projects)
    ents = fs.readdirSync(projects, { withFileTypes: true })
  } catch (e) {
    // No projects folder is no projects; one that cannot be read is announced, never read as empty.
    if (e instanceof LinkError) broken.push(brokenOf(store.rel(projects), e))
    else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      broken.push({
        path: store.rel(projects),
        reason: `cannot be read: ${(e as Error).message}`,
        code: 'unreadable-path',
      })
    }
    return { slugs: [], broken }
  }
  const slugs: string[] = []
  const relProjects = store.rel(projects)
  for (const e of ents) {
    const rel = `${relProjects}/${e.name}`
    if (e.isSymbolicLink())
      broken.push({ path: rel, reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' })
    else if (!e.isDirectory()) {
      // A task file put beside the projects is read by no one: said, as one in a tasks folder's wrong place is.
      if (/^\d{3,}-.+\.md$/i.test(e.name))
        broken.push({
          path: rel,
          reason: "a task file outside any project's tasks/<status>/ folder: not read; move it into one",
          code: 'unparseable-object',
        })
    } else if (isId('project', e.name)) {
      const dir = path.join(projects, e.name)
      const said = broken.length
      if (hasProjectFile(dir, `${rel}/project.md`, broken)) slugs.push(e.name)
      else if (broken.length === said && holdsAnything(dir)) {
        broken.push({ path: rel, reason: WITHOUT_FILE, code: 'project-without-file' })
      }
    } else if (!e.name.startsWith('.')) {
      broken.push({
        path: rel,
        reason: 'the folder name is not a project slug (a-z, 0-9, ".", "_", "-")',
        code: 'invalid-id',
      })
    }
  }
  return { slugs: slugs.sort(), broken }
}

const WITHOUT_FILE = 'a project folder without project.md: nothing in it (tasks, notes, risks) is read'

/**
 * The projects a listing reads: `project` alone (refused when it is none: 4, or 1 through a link), else every
 * project, with what under projects/ is none (listProjectEntries' broken) for the listing to announce.
 */
export function projectsIn(store: Store, project?: string): { slugs: string[]; broken: Broken[] } {
  if (project === undefined) return store.projectEntries()
  store.requireProject(project)
  return { slugs: [project], broken: [] }
}

/**
 * Does a folder without a project file hold anything (a name not starting with "."), so that leaving it out would
 * drop what is in it? An empty one (`project add` between making the folder and writing its file) is nothing to
 * announce. Read only for such folders, never for a project.
 */
function holdsAnything(dir: string): boolean {
  try {
    return fs.readdirSync(dir).some((n) => !n.startsWith('.'))
  } catch {
    return true // a folder that cannot be read may hold anything: announced all the same
  }
}

/** Does the project folder `dir` hold its project file? A link there is reported, never followed. */
function hasProjectFile(dir: string, rel: string, broken: Broken[]): boolean {
  const st = fs.lstatSync(path.join(dir, 'project.md'), { throwIfNoEntry: false })
  if (st === undefined) return false
  if (st.isSymbolicLink()) {
    broken.push({ path: rel, reason: 'symbolic link (not followed)', code: 'symlink-in-workspace' })
    return false
  }
  if (!st.isFile()) {
    // Only a project file that is not there means "no project"; anything else in its place is said as it is.
    broken.push({ path: rel, reason: 'cannot be read: not a regular file', code: 'unreadable-path' })
    return false
  }
  return true
}

/**
 * The projects a server's call found there, by the store that call opened (one per call): a call that reads a project
 * several times checks it once. A command's store checks every time (a long-running one may outlive a project).
 */
const required = new WeakMap<Store, Map<string, string>>()

/** Throws not-found (4) unless the project exists (and 1 when its folder is reached through a link). */
export function requireProjectDir(store: Store, slug: string): string {
  const seen = store.live === null ? undefined : required.get(store)
  const known = seen?.get(slug)
  if (known !== undefined) return known
  const dir = store.projectDir(slug)
  const file = path.join(dir, 'project.md')
  assertNoLinks(file, store.dir)
  let present = true
  try {
    fs.statSync(file)
  } catch (e) {
    // Only a project.md that is not there means "no project"; any other failure is said as it is.
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      throw new FailureError(`cannot read ${store.rel(file)}: ${(e as Error).message}`, {
        cause: e,
        details: { path: store.rel(file) },
      })
    }
    present = false
  }
  if (!present) {
    // The folder is there, its project file is not: say so, never a bare "no project" (nothing in it is read).
    if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true) throw withoutFile(store, slug)
    const known = store.projectSlugs()
    const near = closest(
      slug,
      known.map((k) => ({ value: k, names: [k] })),
    ).map((c) => ({ value: c.value }))
    throw new NotFoundError(`no project "${slug}"`, {
      details: { project: slug, known, given: slug, closest: near },
      next: known.length > 0 ? [cmd('project list')] : [cmd('project add "<title>"')],
    })
  }
  if (seen !== undefined) seen.set(slug, dir)
  else if (store.live !== null) required.set(store, new Map([[slug, dir]]))
  return dir
}

/**
 * What to do about a project folder without its project file: restore the file (`project add` takes no slug whose
 * folder exists). doctor's hint for `project-without-file` and the not-found of a reference into such a folder.
 */
export function restoreProjectFileHint(rel: string, slug: string): string {
  return `restore ${rel}/project.md (from git if it was committed: git log --oneline -- ${rel}/project.md), or write it by hand with the frontmatter "id: p-${slug}" and "kind: project"; ${cmd('project add')} refuses a slug whose folder exists`
}

function withoutFile(store: Store, slug: string): NotFoundError {
  const rel = store.rel(store.projectDir(slug))
  return new NotFoundError(
    `no project "${slug}": ${rel} has no project.md, so nothing in it (tasks, notes, risks) is read`,
    {
      details: { project: slug, given: slug, path: rel, code: 'project-without-file' },
      next: [restoreProjectFileHint(rel, slug), cmd('doctor')],
    },
  )
}

export async function readProjectFile(store: Store, slug: string): Promise<ProjectRecord> {
  const dir = store.requireProject(slug)
  // A server's memory of the projects' listing (see listProjectFiles): shared, never to be changed by the caller.
  const kept = store.live?.keptProjects<readonly ProjectRecord[]>()?.find((p) => p.slug === slug)
  if (kept !== undefined) return kept
  const file = path.join(dir, 'project.md')
  try {
    return projectOf(await parseData(readText(file)), slug, store.rel(file))
  } catch (e) {
    throw new FailureError(`unreadable project file ${store.rel(file)}: ${(e as Error).message}`, {
      cause: e,
      details: { path: store.rel(file), ...fieldOf(e) },
      next: ['fix the file by hand (dacli never overwrites an unreadable file)', cmd('doctor')],
    })
  }
}

/**
 * Every project's record, and what under projects/ cannot be read as one. A server's memory keeps a listing with
 * nothing broken while its watch vouches for the folders (live.ts): the records are shared across calls, never to be
 * changed by the caller; the arrays are the caller's.
 */
export async function listProjectFiles(store: Store): Promise<{ projects: ProjectRecord[]; broken: Broken[] }> {
  const kept = store.live?.keptProjects<readonly ProjectRecord[]>()
  if (kept !== undefined) return { projects: [...kept], broken: [] }
  const mark = store.live?.projectsMark()
  const projects: ProjectRecord[] = []
  const { slugs, broken } = store.projectEntries()
  for (const slug of slugs) {
    const file = path.join(store.dir, 'projects', slug, 'project.md')
    try {
      projects.push(projectOf(await parseData(readText(file)), slug, store.rel(file)))
    } catch (e) {
      // The listing found the file a moment ago: whatever stops the read now is reported, never skipped.
      broken.push(brokenOf(store.rel(file), e))
    }
  }
  if (mark !== undefined && broken.length === 0) store.live?.keepProjects([...projects], mark, slugs)
  return { projects, broken }
}
