// Project writes: create (the folder is created exclusively, so two processes
// adding the same slug get one winner and one conflict) and remove.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { ConflictError, FailureError, RefusedError } from '../../base/errors.js'
import { safeSegment } from '../../format/ids.js'
import { sectionText, titleOf } from '../../format/markdown.js'
import {
  InvalidValueError,
  ParseError,
  PROJECT_STATUSES,
  type ProjectRecord,
  STAGES,
  STATUSES,
  stamp,
} from '../../format/model.js'
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
        next: [`dacli project show ${p.slug}`, 'dacli project add "<title>" --slug <another-slug>'],
      })
    }
    throw e
  }
  const { renderNew } = await import('../../format/frontmatter.js')
  const body = [`\n# ${p.title}\n`, ...(p.goal ? [`## Goal\n\n${p.goal.trim()}\n`] : [])].join('\n')
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
    atomicWrite(path.join(dir, 'project.md'), text)
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
      .map(([k, n]) => `${n} ${k.replace('_', ' ')}`)
    throw new RefusedError(
      'confirm-removal',
      `removing project "${slug}" deletes ${what.length > 0 ? what.join(', ') : 'its project file'}; pass --force to confirm`,
      { details: { project: slug, would_delete: contents }, next: [`dacli project rm ${slug} --force`] },
    )
  }
  fs.rmSync(dir, { recursive: true, force: true })
  store.journal({ kind: 'project.removed', ref: slug, id: `p-${slug}`, project: slug, actor: null, summary: 'removed' })
  return contents
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** A project record from its file's frontmatter data and body (parsed by either reader). */
/** A project's fields must have their types; its id names its own folder (an id is never guessed). */
function checkProjectFields(d: Record<string, unknown>, slug: string): void {
  const bad = (field: string, want: string, code: 'invalid-field' | 'invalid-id' = 'invalid-field'): never => {
    throw new InvalidValueError(code, field, `field "${field}" is ${JSON.stringify(d[field])}; expected ${want}`)
  }
  if (d.id !== undefined && d.id !== null && d.id !== `p-${slug}`)
    bad('id', `p-${slug} (the folder's name)`, 'invalid-id')
  const oneOf = (field: string, values: readonly string[]) => {
    const v = d[field]
    if (v !== undefined && v !== null && !values.includes(v as string)) bad(field, values.join(', '))
  }
  oneOf('status', PROJECT_STATUSES)
  oneOf('stage', STAGES)
  const gh = d.github
  if (gh !== undefined && gh !== null) {
    const g = gh as Record<string, unknown>
    const text = (v: unknown) => v === undefined || v === null || typeof v === 'string'
    if (typeof gh !== 'object' || Array.isArray(gh) || !text(g.repo) || !text(g.public_confirmed)) {
      bad('github', '{repo, public_confirmed}')
    }
  }
  for (const f of ['created', 'created_by']) {
    const v = d[f]
    if (v !== undefined && v !== null && typeof v !== 'string') bad(f, 'a string')
  }
}

export function projectOf(
  { data, split }: { data: Record<string, unknown>; split: { body: string } },
  slug: string,
  relPath: string,
): ProjectRecord {
  if (data.kind !== undefined && data.kind !== 'project') {
    throw new ParseError(`"kind" is ${JSON.stringify(data.kind)}, expected "project"`)
  }
  checkProjectFields(data, slug)
  const body = split.body
  const gh = data.github
  const github =
    gh !== null && typeof gh === 'object' && !Array.isArray(gh)
      ? {
          repo: str((gh as Record<string, unknown>).repo),
          public_confirmed: str((gh as Record<string, unknown>).public_confirmed),
        }
      : null
  return {
    id: str(data.id) ?? `p-${slug}`,
    slug,
    title: titleOf(body) ?? slug,
    status: str(data.status) ?? 'active',
    stage: str(data.stage) ?? 'definition',
    path: relPath.split(path.sep).join('/'),
    created: str(data.created),
    created_by: str(data.created_by),
    github,
    sections: {
      vision: sectionText(body, 'Vision'),
      goal: sectionText(body, 'Goal'),
      constraints: sectionText(body, 'Constraints'),
      out_of_scope: sectionText(body, 'Out of scope'),
      success_criteria: sectionText(body, 'Success criteria'),
    },
  }
}
