// The project/v1 document from a project record and its tasks' statuses. It is a
// document builder, not policy, so it is not an engine; two slices answer with it
// (project add/show/rm and github link) and slices never import each other, so it
// lives beside the record it is built from. The wire shape is features/project/json.ts,
// which the schema tests hold every answer to.

import type { ProjectRecord, Status } from '../../format/model.js'

export type StatusCounts = Record<Status, number>

export function statusCounts(tasks: readonly { status: Status }[]): StatusCounts {
  const c: StatusCounts = { open: 0, active: 0, blocked: 0, done: 0 }
  for (const t of tasks) c[t.status]++
  return c
}

const totalOf = (c: StatusCounts) => c.open + c.active + c.blocked + c.done

/** A project as project list shows it: what it is and how many of its tasks are where. */
export function projectSummary(p: ProjectRecord, counts: StatusCounts) {
  return { id: p.id, slug: p.slug, title: p.title, status: p.status, stage: p.stage, counts, total: totalOf(counts) }
}

export function projectDocument(p: ProjectRecord, counts: StatusCounts, removed = false) {
  return {
    schema: 'project/v1' as const,
    ...projectSummary(p, counts),
    goal: p.sections.goal,
    sections: p.sections,
    github: p.github,
    created: p.created,
    created_by: p.created_by,
    path: p.path,
    removed,
  }
}
