// A project file (FORMAT.md, "Projects"): `projects/<slug>/project.md`, its frontmatter checked field by field
// and its body's sections read — values in, a project record out.

import * as path from 'node:path'
import { checkedTitleOf, sectionText } from './markdown.js'
import { InvalidValueError, ParseError, PROJECT_STATUSES, type ProjectRecord, STAGES } from './model.js'

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** `owner/name` as GitHub allows it: what `github.repo` and `github.public_confirmed` may hold. */
export const REPO_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/

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
    // A repository name goes into API paths, URLs and the disclosure gate: `../../user` is none, and is never sent.
    const repo = (v: unknown) =>
      v === undefined || v === null || v === '' || (typeof v === 'string' && REPO_NAME.test(v))
    if (typeof gh !== 'object' || Array.isArray(gh) || !repo(g.repo) || !repo(g.public_confirmed)) {
      bad('github', '{repo: OWNER/NAME, public_confirmed: OWNER/NAME or null}')
    }
  }
  for (const f of ['created', 'created_by']) {
    const v = d[f]
    if (v !== undefined && v !== null && typeof v !== 'string') bad(f, 'a string')
  }
}

/** A project record from its file's frontmatter data and body (parsed by either reader). */
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
    title: checkedTitleOf(body) ?? slug,
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
