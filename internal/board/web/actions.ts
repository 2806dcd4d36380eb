// The page's actions, shared by every view: run one command of the table (POST
// /api/<command path>, as the server's identity), show what came of it — the
// outcome, or the refusal exactly as the CLI gives it (message, policy, next
// actions) — and ask a person for what a command needs (a reason to block, a
// reason to reopen) in a small dialog. Moving a task between statuses is the
// command that makes that move: claim, release, block, unblock, done, reopen.

import { act, type Envelope } from './api.js'
import { fill, h, short } from './dom.js'

export const STATUSES = ['open', 'active', 'blocked', 'done'] as const
export type Status = (typeof STATUSES)[number]

/** A refusal or failure as the CLI prints it: the kind, the exit code, the message, the policy, the next actions. */
export function refusal(e: Envelope): HTMLElement {
  const policy = typeof e.details.policy === 'string' ? e.details.policy : null
  return h(
    'div',
    { class: `result refused kind-${e.kind}`, role: 'alert' },
    h('strong', {}, e.kind === 'refused' ? 'Refused' : e.kind === 'conflict' ? 'Conflict' : 'Failed'),
    ` (exit ${e.exit_code}): `,
    h('span', { class: 'message' }, e.message),
    policy === null ? null : h('div', { class: 'policy' }, 'policy: ', h('code', {}, policy)),
    e.next_actions.length === 0
      ? null
      : h(
          'div',
          {},
          'Next actions:',
          h(
            'ul',
            {},
            e.next_actions.map((n) => h('li', {}, h('code', {}, n))),
          ),
        ),
  )
}

type Flags = Record<string, string | number | boolean | readonly string[] | undefined>

/**
 * Run one action and report it in `into`: a line saying what was done (or that it was recorded as a proposal),
 * or the refusal. Returns the document, or null when refused.
 */
export async function perform<T extends { outcome?: string }>(
  into: HTMLElement,
  path: string,
  args: Record<string, string>,
  flags: Flags,
  done: string,
): Promise<T | null> {
  const clean: Record<string, string | number | boolean | readonly string[]> = {}
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) clean[k] = v
  const out = await act<T>(path, args, clean)
  if (!out.ok) {
    fill(into, refusal(out.error))
    return null
  }
  const outcome = out.doc.outcome
  fill(
    into,
    h(
      'div',
      { class: 'result ok', role: 'status' },
      outcome === 'proposed'
        ? `${done}: recorded as a proposal for the owner (a read-only identity proposes)`
        : `${done}${outcome === 'unchanged' ? ' (unchanged)' : ''}`,
    ),
  )
  return out.doc
}

export interface Field {
  name: string
  label: string
  /** text (default), a multi-line text, or a choice. */
  kind?: 'text' | 'textarea' | 'select'
  options?: readonly string[]
  value?: string
  required?: boolean
  placeholder?: string
}

/**
 * Ask for a few values in a modal dialog (keyboard: it opens focused on the first field, Enter submits, Escape
 * cancels). Resolves with the values, or null when cancelled.
 */
export function ask(title: string, fields: readonly Field[], submit = 'OK'): Promise<Record<string, string> | null> {
  return new Promise((resolve) => {
    const inputs = new Map<string, HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>()
    const rows = fields.map((f) => {
      const id = `f-${f.name}`
      const common = { id, name: f.name, required: f.required === true, placeholder: f.placeholder ?? null }
      const el =
        f.kind === 'textarea'
          ? h('textarea', { ...common, rows: 3 })
          : f.kind === 'select'
            ? h(
                'select',
                common,
                (f.options ?? []).map((o) => h('option', { value: o, selected: o === (f.value ?? '') }, o || '—')),
              )
            : h('input', { ...common, type: 'text' })
      if (f.value !== undefined && f.kind !== 'select') el.value = f.value
      inputs.set(f.name, el)
      return h('label', { for: id }, h('span', {}, f.label), el)
    })
    const dialog = h('dialog', { class: 'ask', 'aria-label': title })
    const finish = (v: Record<string, string> | null) => {
      dialog.close()
      dialog.remove()
      resolve(v)
    }
    const form = h(
      'form',
      {
        method: 'dialog',
        onsubmit: (e: Event) => {
          e.preventDefault()
          const out: Record<string, string> = {}
          for (const [k, el] of inputs) out[k] = el.value
          finish(out)
        },
      },
      h('h2', {}, title),
      rows,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, submit),
        h('button', { type: 'button', onclick: () => finish(null) }, 'Cancel'),
      ),
    )
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault()
      finish(null)
    })
    dialog.appendChild(form)
    document.body.appendChild(dialog)
    dialog.showModal()
    inputs.values().next().value?.focus()
  })
}

export interface Movable {
  ref: string
  status: string
}

/**
 * Move a task to another status with the command that makes that move (the same grants and refusals as the CLI):
 * open → active claims it; active → open releases it; → blocked blocks it (asking why, and optionally by what);
 * blocked → open or active unblocks it; → done closes it; done → open reopens it (asking why). A move no one
 * command makes (a done task to active) is answered with the way there.
 */
export async function move(t: Movable, to: Status, into: HTMLElement): Promise<boolean> {
  const ref = { ref: t.ref }
  const s = short(t.ref)
  if (t.status === to) return false
  if (to === 'done') return (await perform(into, 'task/done', ref, {}, `closed ${s}`)) !== null
  if (to === 'blocked') {
    const v = await ask(`Block ${s}`, [
      { name: 'why', label: 'Why (what it waits for)', required: true },
      { name: 'by', label: 'Blocked by task (optional)', placeholder: 'e.g. alpha/3' },
    ])
    if (v === null) return false
    const flags = { why: v.why, by: v.by?.trim() === '' ? undefined : v.by?.trim() }
    return (await perform(into, 'task/block', ref, flags, `blocked ${s}`)) !== null
  }
  if (t.status === 'blocked') return (await perform(into, 'task/unblock', ref, {}, `unblocked ${s}`)) !== null
  if (t.status === 'done') {
    if (to !== 'open') {
      fill(into, h('div', { class: 'result refused', role: 'alert' }, `${s} is done: move it to open first (reopen)`))
      return false
    }
    const v = await ask(`Reopen ${s}`, [{ name: 'reason', label: 'Why it is reopened', required: true }], 'Reopen')
    if (v === null) return false
    return (await perform(into, 'task/reopen', ref, { reason: v.reason }, `reopened ${s}`)) !== null
  }
  if (to === 'active') return (await perform(into, 'task/claim', ref, {}, `claimed ${s}`)) !== null
  return (await perform(into, 'task/release', ref, {}, `released ${s}`)) !== null
}
