// Project writes: create (the folder is created exclusively, so two processes
// adding the same slug get one winner and one conflict) and remove.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError, RefusedError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import { safeSegment } from '../../format/ids.js'
import { headingLine } from '../../format/markdown.js'
import { STATUSES, stamp } from '../../format/model.js'
import { atomicWrite } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'

export interface NewProject {
  title: string
  slug: string
  goal?: string
  stage: string
  by: string
}

export async function addProject(store: Store, p: NewProject): Promise<string> {
  safeSegment(p.slug, 'project slug')
  const root = path.join(store.dir, 'projects')
  fs.mkdirSync(root, { recursive: true })
  const dir = path.join(root, p.slug)
  try {
    fs.mkdirSync(dir)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ConflictError(`a project with slug "${p.slug}" already exists`, {
        details: { slug: p.slug },
        next: [cmd(`project show ${p.slug}`), cmd('project add "<title>" --slug <another-slug>')],
      })
    }
    throw e
  }
  const { renderNew } = await import('../../format/frontmatter.js')
  const body = [`\n${headingLine(1, p.title)}\n`, ...(p.goal ? [`## Goal\n\n${p.goal.trim()}\n`] : [])].join('\n')
  const text = renderNew(
    {
      id: `p-${p.slug}`,
      kind: 'project',
      created: stamp(store.now()),
      created_by: p.by,
      status: 'active',
      stage: p.stage,
    },
    body,
  )
  try {
    atomicWrite(store.system, path.join(dir, 'project.md'), text)
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true })
    throw e
  }
  store.journal({
    kind: 'project.created',
    ref: p.slug,
    id: `p-${p.slug}`,
    project: p.slug,
    actor: p.by,
    summary: p.title,
  })
  return path.join(dir, 'project.md')
}

/** What removing a project would delete, by kind. */
function projectContents(store: Store, slug: string): Record<string, number> {
  const dir = store.projectDir(slug)
  const count = (sub: string) => {
    try {
      return fs.readdirSync(path.join(dir, sub)).filter((n) => n.endsWith('.md') && !n.startsWith('.')).length
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0
      throw new FailureError(`cannot read ${store.rel(path.join(dir, sub))}: ${(e as Error).message}`, { cause: e })
    }
  }
  const out: Record<string, number> = {}
  for (const s of STATUSES) out[`${s}_tasks`] = count(`tasks/${s}`)
  out.removed_tasks = count('tasks/removed')
  for (const k of ['decisions', 'findings', 'metrics', 'refs']) out[k] = count(`notes/${k}`)
  out.risks = count('risks')
  return out
}

export function removeProject(store: Store, slug: string, force: boolean): Record<string, number> {
  const dir = store.requireProject(slug)
  const contents = projectContents(store, slug)
  if (!force) {
    const what = Object.entries(contents)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => count(n, k.replace('_', ' ').replace(/s$/, '')))
    throw new RefusedError(
      'confirm-removal',
      `removing project "${slug}" deletes ${what.length > 0 ? what.join(', ') : 'its project file'}; pass --force to confirm`,
      { details: { project: slug, would_delete: contents }, next: [cmd(`project rm ${slug} --force`)] },
    )
  }
  fs.rmSync(dir, { recursive: true, force: true })
  store.journal({ kind: 'project.removed', ref: slug, id: `p-${slug}`, project: slug, actor: null, summary: 'removed' })
  return contents
}
