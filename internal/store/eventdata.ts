// What an event carries for the one who applies it (FORMAT.md, "Event"): the payload a proposer signed is still the
// proposer's word, and `sync` writes it into files under the owner's name — a finding's title and text become a
// note, a dependency a task's `depends_on`. So each value is checked to its format where an event is read
// (eventOf): a title on one line, text without control characters nor a heading that would open a section of its
// own, a severity of three, a project slug, a dependency's reference and type, a block's task id, a claim's lease
// and a close's token count. An event out of its format is skipped and reported (`invalid-field`, naming the key),
// never applied.

import { MAX_DURATION_MS } from '../base/duration.js'
import { checkText, isId, titleControl } from '../format/ids.js'
import { checkSectionText } from '../format/markdown.js'
import { DEP_TYPES, InvalidValueError } from '../format/model.js'

/** A finding's severity (`note add finding --severity`). */
export const FINDING_SEVERITIES = ['major', 'moderate', 'minor'] as const

const bad = (field: string, value: unknown, want: string): never => {
  throw new InvalidValueError('invalid-field', field, `field "${field}" is ${JSON.stringify(value)}; expected ${want}`)
}

const absent = (v: unknown) => v === undefined || v === null

/** Free text that goes into a file dacli writes: a string with no control character but tab and newline. */
function text(field: string, v: unknown, section: boolean): void {
  if (typeof v !== 'string') bad(field, v, 'text')
  try {
    if (section) checkSectionText(v as string, `field "${field}"`)
    else checkText(v as string, `field "${field}"`)
  } catch (e) {
    throw new InvalidValueError('invalid-field', field, (e as Error).message)
  }
}

/** A task reference as a proposal may name one: a word, optionally after a project slug (never an option or path). */
const isRef = (v: unknown) =>
  typeof v === 'string' &&
  v.length <= 200 &&
  /^(?:[a-z0-9][a-z0-9._-]*\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) &&
  !v.includes('..')

/** Throws `invalid-field` naming the key when the payload or body of an event of `kind` is out of its format. */
export function checkEventData(kind: string, data: Record<string, unknown>, body: string): void {
  text('body', body, false)
  if (kind === 'finding') {
    if (!absent(data.project) && !isId('project', data.project)) bad('data.project', data.project, 'a project slug')
    if (!absent(data.title)) {
      if (typeof data.title !== 'string' || data.title.trim() === '' || titleControl(data.title) !== null)
        bad('data.title', data.title, 'one line of printable text')
    }
    if (!absent(data.severity) && !(FINDING_SEVERITIES as readonly string[]).includes(data.severity as string))
      bad('data.severity', data.severity, FINDING_SEVERITIES.join(', '))
    if (!absent(data.body)) text('data.body', data.body, true)
  }
  if (kind === 'block') {
    // `blocked_by` is written from `by`: a task id (dacli resolves the reference before proposing).
    if (!absent(data.by) && !isId('task', data.by)) bad('data.by', data.by, 'a task id (t-<ULID>)')
    if (!absent(data.why)) text('data.why', data.why, false)
    if (!absent(data.unblock) && typeof data.unblock !== 'boolean') bad('data.unblock', data.unblock, 'true or false')
  }
  if (kind === 'claim' && !absent(data.lease_ms)) {
    const ms = data.lease_ms
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > MAX_DURATION_MS)
      bad('data.lease_ms', ms, 'a lease in milliseconds, above 0 and at most 100 years')
  }
  if (kind === 'propose-status' && !absent(data.tokens)) {
    const n = data.tokens
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 1_000_000_000)
      bad('data.tokens', n, 'a whole number of tokens from 0 to 1000000000')
  }
  if (kind === 'dependency') {
    for (const key of ['add', 'remove'] as const) {
      const list = data[key]
      if (absent(list)) continue
      const ok =
        Array.isArray(list) &&
        list.every(
          (d) =>
            d !== null &&
            typeof d === 'object' &&
            isRef((d as Record<string, unknown>).on) &&
            ((key === 'remove' && absent((d as Record<string, unknown>).type)) ||
              (DEP_TYPES as readonly string[]).includes((d as Record<string, unknown>).type as string)),
        )
      if (!ok)
        bad(
          `data.${key}`,
          list,
          `a list of {on: <task ref>, type: FS|SS|FF|SF}${key === 'remove' ? ' (type optional)' : ''}`,
        )
    }
  }
}
