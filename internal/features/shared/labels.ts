// The label and milestone flags, shared by the commands that set them (task add, task edit) and those that filter
// by them (task list, next, overview, search).

import { str } from '../../clikit/flags.js'
import { checkLabel, checkMilestone } from '../../format/ids.js'

export const labelFlag = str('a label', { repeatable: true, valueName: 'LABEL' })
export const labelFilterFlag = str('only tasks with every label given', {
  repeatable: true,
  valueName: 'LABEL',
})
export const milestoneFlag = str('its milestone', { valueName: 'NAME' })

export const checkLabels = (list: readonly string[] | undefined, flag = '--label'): string[] => [
  ...new Set((list ?? []).map((l) => checkLabel(l, flag))),
]

export const checkMilestoneFlag = (v: string | undefined, flag = '--milestone'): string | undefined =>
  v === undefined ? undefined : checkMilestone(v, flag)

/** A filter keeping the tasks that carry every label given (all of them when none is). */
export function withLabels(list: readonly string[] | undefined): (t: { labels: readonly string[] }) => boolean {
  const want = checkLabels(list)
  return want.length === 0 ? () => true : (t) => want.every((l) => t.labels.includes(l))
}
