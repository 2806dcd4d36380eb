// A reader for the flat `key: value` frontmatter dacli writes for config and
// agent files, so the hot paths (identity, config) need not load the YAML
// library. Anything beyond plain scalars and double-quoted strings returns
// null and the caller falls back to the full YAML parser.

const LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*?))?[ \t]*$/
const UNSAFE_START = /^[-?:,[\]{}#&*!|>'%@`]/

function scalar(raw: string): unknown | typeof BAIL {
  if (raw === '' || raw === '~' || raw === 'null' || raw === 'Null' || raw === 'NULL') return null
  if (raw.startsWith('"')) {
    if (!raw.endsWith('"') || raw.length < 2) return BAIL
    try {
      // A JSON string is a valid YAML double-quoted scalar; the reverse needs the YAML parser.
      const v = JSON.parse(raw)
      return typeof v === 'string' ? v : BAIL
    } catch {
      return BAIL
    }
  }
  if (UNSAFE_START.test(raw) || raw.includes(': ') || raw.includes(' #') || raw.endsWith(':')) return BAIL
  if (/^(true|True|TRUE)$/.test(raw)) return true
  if (/^(false|False|FALSE)$/.test(raw)) return false
  if (/^[-+]?[0-9]+$/.test(raw)) return Number(raw)
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(raw)) return Number(raw)
  if (/^(0x|0o|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))/.test(raw)) return BAIL
  return raw
}

const BAIL = Symbol('bail')

/** Parse flat frontmatter text, or null when it needs the real YAML parser. */
export function readFlat(front: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {}
  for (const raw of front.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line.trim() === '' || /^#/.test(line)) continue
    const m = LINE.exec(line)
    if (m === null) return null
    const key = m[1] as string
    if (Object.hasOwn(out, key)) return null
    const v = scalar(m[2] ?? '')
    if (v === BAIL) return null
    out[key] = v
  }
  return out
}

/** Split `---` frontmatter cheaply (the full splitter lives in frontmatter.ts). */
export function quickFront(text: string): { front: string; body: string } | null {
  const t = text.startsWith('\uFEFF') ? text.slice(1) : text
  const m = /^---[ \t]*\r?\n/.exec(t)
  if (m === null) return null
  const rest = t.slice(m[0].length)
  const c = /(?:^|\n)---[ \t]*(?:\r?\n|$)/.exec(rest)
  if (c === null) return null
  const closeStart = c.index + (c[0].startsWith('\n') ? 1 : 0)
  return { front: rest.slice(0, closeStart), body: rest.slice(c.index + c[0].length) }
}
