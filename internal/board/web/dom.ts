// A few lines of DOM building: elements from a tag, attributes and children. Text
// from data goes in as text nodes (never HTML), with control characters shown
// as escapes, as the terminal shows them.

import { shortRef, visible } from '../../clikit/text.js'

export type Child = Node | string | number | null | undefined | false | readonly Child[]
type Attr = string | number | boolean | null | undefined | ((e: Event) => void)

function append(el: Element, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue
    if (Array.isArray(c)) append(el, c)
    else if (c instanceof Node) el.appendChild(c)
    else el.appendChild(document.createTextNode(visible(String(c))))
  }
}

function setAttrs(el: Element, attrs: Record<string, Attr>): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  setAttrs(el, attrs)
  append(el, children)
  return el
}

const SVG = 'http://www.w3.org/2000/svg'

export function svg(tag: string, attrs: Record<string, Attr> = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG, tag)
  setAttrs(el, attrs)
  append(el, children)
  return el
}

/** Replace an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren()
  append(el, children)
}

/** `ledger/012-slug` → `ledger/12`, as the terminal's tables show it. */
export const short = shortRef

/** `1h 12m left`, `3m 20s left`, `expired 5m ago` for a lease. */
export function lease(expires: string | null, now = Date.now()): string {
  if (expires === null) return 'no expiry'
  const ms = Date.parse(expires) - now
  const span = (x: number) => {
    const s = Math.floor(Math.abs(x) / 1000)
    const d = Math.floor(s / 86400)
    const hh = Math.floor((s % 86400) / 3600)
    const mm = Math.floor((s % 3600) / 60)
    if (d > 0) return `${d}d ${hh}h`
    if (hh > 0) return `${hh}h ${mm}m`
    return `${mm}m ${s % 60}s`
  }
  return ms >= 0 ? `${span(ms)} left` : `expired ${span(ms)} ago`
}

/** The page's address of a task (its view). */
export const taskHref = (ref: string): string => `#/task/${encodeURIComponent(ref)}`

/** A link to a task's view, shown by its short reference. */
export const taskLink = (ref: string): HTMLElement => h('a', { href: taskHref(ref) }, short(ref))

/** A table with a header row; each row is the children of its `tr` (its `td` cells). */
export function table(headers: readonly string[], rows: readonly (readonly Child[])[]): HTMLTableElement {
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((c) => h('th', {}, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((cells) => h('tr', {}, cells)),
    ),
  )
}

export function statusChip(status: string | null): HTMLElement {
  return h('span', { class: `chip st-${status ?? 'none'}` }, status ?? 'does not resolve')
}
