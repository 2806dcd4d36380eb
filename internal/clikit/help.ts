// Help, usage synopses and the catalog, all generated from the command table
// (COMPATIBILITY.md). Nothing here is hand-maintained per command.

import { byText } from '../base/order.js'
import { count } from '../base/text.js'
import { type ArgSpec, type CommandDecl, mayMutate } from './command.js'
import { type FlagSpec, type FlagType, GLOBAL_FLAGS } from './flags.js'
import { type IO, terminalWidth } from './io.js'
import { wrapUsage } from './text.js'

/** The width help is laid out at: the terminal's, at most 100; 100 when stdout is no terminal. */
export const helpWidth = (io: Pick<IO, 'stdoutIsTTY' | 'columns'>, env: Readonly<Record<string, string | undefined>>) =>
  Math.min(100, terminalWidth(io.stdoutIsTTY, io.columns, env) ?? 100)

const PROG = 'dacli'

function flagShape(name: string, spec: FlagSpec): string {
  const v = spec.type === 'bool' ? '' : ` ${spec.valueName ?? 'VALUE'}`
  return `--${name}${v}${spec.repeatable ? '…' : ''}`
}

function argShape(a: ArgSpec): string {
  const inner = `<${a.name}>${a.rest ? '…' : ''}`
  return a.required ? inner : `[${inner}]`
}

/** `dacli task claim <ref> [--lease DUR]` — from the declaration unless the command gives its own. */
export function usageOf(c: CommandDecl): string {
  if (c.usage !== undefined) return `${PROG} ${c.path} ${c.usage}`.trimEnd()
  const parts = [PROG, c.path, ...c.args.map(argShape)]
  const flags = Object.entries(c.flags)
  for (const [name, spec] of flags.filter(([, s]) => s.required)) parts.push(flagShape(name, spec))
  for (const [name, spec] of flags.filter(([, s]) => !s.required)) parts.push(`[${flagShape(name, spec)}]`)
  if (c.params !== undefined) parts.push('[--NAME VALUE…]')
  return parts.join(' ')
}

export function familyOf(path: string): string | null {
  const i = path.indexOf(' ')
  return i === -1 ? null : path.slice(0, i)
}

export function families(table: readonly CommandDecl[]): Map<string, CommandDecl[]> {
  const m = new Map<string, CommandDecl[]>()
  for (const c of table) {
    const f = familyOf(c.path)
    if (f === null) continue
    m.set(f, [...(m.get(f) ?? []), c])
  }
  return new Map([...m.entries()].sort(([a], [b]) => byText(a, b)))
}

function wrap(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/).filter(Boolean)
  const lines: string[] = []
  let cur = ''
  for (const w of words) {
    if (cur !== '' && cur.length + 1 + w.length > width) {
      lines.push(cur)
      cur = w
    } else cur = cur === '' ? w : `${cur} ${w}`
  }
  if (cur !== '') lines.push(cur)
  return lines.join(`\n${indent}`)
}

function columns(rows: readonly (readonly [string, string])[], indent = 2, width = 100): string {
  const w = Math.min(30, Math.max(0, ...rows.map(([a]) => a.length)))
  const pad = ' '.repeat(indent)
  // Too narrow for two columns: each description goes under its name.
  if (width - w - indent - 2 < 40) {
    const under = `${pad}    `
    return rows.map(([a, b]) => `${pad}${a}\n${under}${wrap(b, width - under.length, under)}`).join('\n')
  }
  return rows
    .map(([a, b]) => {
      const left = a.length > w ? `${a}\n${pad}${' '.repeat(w)}` : a.padEnd(w)
      return `${pad}${left}  ${wrap(b, width - w - indent - 2, `${pad}${' '.repeat(w + 2)}`)}`
    })
    .join('\n')
}

/** Help for one command: summary, usage, arguments, flags, JSON schema and grant. */
export function commandHelp(c: CommandDecl, width = 100): string {
  const out: string[] = [
    wrap(`${PROG} ${c.path} — ${c.summary}`, width, '  '),
    '',
    'Usage:',
    `  ${wrapUsage(usageOf(c), width, '  ')}`,
  ]
  if (c.description) out.push('', wrap(c.description, width, ''))
  if (c.args.length > 0) {
    out.push('', 'Arguments:')
    out.push(
      columns(
        c.args.map((a) => [
          argShape(a),
          a.description + (a.rest ? (a.list === true ? ' (one per argument)' : ' (several words are joined)') : ''),
        ]),
        2,
        width,
      ),
    )
  }
  const flagRows: [string, string][] = Object.entries(c.flags).map(([name, spec]) => {
    let d = spec.description
    if (spec.required) d += ' (required)'
    if (spec.defaultText !== undefined) d += ` (default: ${spec.defaultText})`
    if (spec.repeatable) d += ' (repeatable)'
    return [flagShape(name, spec), d]
  })
  if (c.params !== undefined) flagRows.push(['--NAME VALUE…', c.params.description])
  flagRows.push(
    [
      '--json',
      c.json === null
        ? 'not supported by this command (refused with exit 2)'
        : `print ${/^[aeiou]/.test(c.json) ? 'an' : 'a'} ${c.json} document`,
    ],
    ['--quiet', GLOBAL_FLAGS.quiet?.description ?? ''],
    ['-h, --help', GLOBAL_FLAGS.help?.description ?? ''],
  )
  out.push('', 'Flags:', columns(flagRows, 2, width))
  const variants = c.jsonVariants && c.jsonVariants.length > 0 ? ` (or ${c.jsonVariants.join(', ')}, see above)` : ''
  const json = c.json === null ? 'no (--json is refused)' : `--json prints ${c.json}${variants}`
  out.push('', `JSON:   ${wrap(json, width - 8, '        ')}`)
  const grant =
    c.mutatesWith && c.mutatesWith.length > 0
      ? `read-only; with ${c.mutatesWith.map((f) => `--${f}`).join(' or ')} it writes and needs a read-write grant`
      : !c.mutates
        ? 'read-only; any identity'
        : c.proposes
          ? 'needs a read-write grant; a read-only identity’s call is recorded as a proposal event instead'
          : c.anyGrant
            ? 'any identity, read-only ones included (it writes in the caller’s own name)'
            : `needs a read-write grant${'dry-run' in c.flags ? ' (a --dry-run is a read)' : ''}`
  out.push(`Grant:  ${wrap(grant, width - 8, '        ')}`)
  // Renamed (alias.ts): the old names still work, with a warning, until the release named.
  const old = (c.aliases ?? []).map((a) => `${a.old} → ${a.now ?? c.path} (until ${a.until})`)
  if (old.length > 0) out.push(`Old:    ${wrap(old.join('; '), width - 8, '        ')}`)
  if (c.examples && c.examples.length > 0) out.push('', 'Examples:', ...c.examples.map((e) => `  ${e}`))
  return `${out.join('\n')}\n`
}

/** Help for a family: its commands. */
export function familyHelp(family: string, table: readonly CommandDecl[], width = 100): string {
  const cmds = table.filter((c) => familyOf(c.path) === family).sort((a, b) => byText(a.path, b.path))
  const out = [
    wrap(`${PROG} ${family} — ${count(cmds.length, 'command')}`, width, '  '),
    '',
    'Commands:',
    columns(
      cmds.map((c) => [`${PROG} ${c.path}`, c.summary]),
      2,
      width,
    ),
    '',
    wrap(`Run \`${PROG} ${family} <command> --help\` for one command's flags and output.`, width, ''),
  ]
  return `${out.join('\n')}\n`
}

/** The root help: what dacli is, the most used commands, the families. */
export function rootHelp(table: readonly CommandDecl[], version: string, width = 100): string {
  // Prose lines are wrapped only for a terminal narrower than the default layout (piped help stays as it was).
  const fitted = (text: string, indent: string) => (width >= 100 ? text : wrap(text, width, indent))
  const fam = families(table)
  const common = table.filter((c) => c.common).sort((a, b) => orderOf(a.path) - orderOf(b.path))
  const singles = table.filter((c) => familyOf(c.path) === null && !c.common).sort((a, b) => byText(a.path, b.path))
  const out = [
    wrap(
      `${PROG} ${version} — an in-repo, git-backed task and workspace store for developers and coding agents`,
      width,
      '  ',
    ),
    '',
    'Usage:',
    `  ${PROG} <command> [arguments] [flags]`,
    '',
    'Most used:',
    columns(
      common.map((c) => [usageShort(c), c.summary]),
      2,
      width,
    ),
    '',
    'Command families:',
    columns(
      [...fam.entries()].map(([f, cs]) => [
        `${PROG} ${f}`,
        cs
          .map((c) => c.path.slice(f.length + 1))
          .sort()
          .join(', '),
      ]),
      2,
      width,
    ),
    '',
    'Other commands:',
    columns(
      singles.map((c) => [`${PROG} ${c.path}`, c.summary]),
      2,
      width,
    ),
    '',
    fitted('Every command takes --json (one JSON document on stdout), --quiet and --help.', ''),
    fitted(
      'Exit codes: 0 ok, 1 failure, 2 usage, 3 refused by policy (never retry unchanged), 4 not found, 5 conflict.',
      '',
    ),
    fitted('Identity: DACLI_AGENT=<token> acts as a spawned agent; unset, you act as the workspace root (a-root).', ''),
    '',
    fitted(
      `Run \`${PROG} help --all\` for every command, \`${PROG} <family> --help\` for a family, \`${PROG} <command> --help\` for one.`,
      '',
    ),
  ]
  return `${out.join('\n')}\n`
}

const ORDER = [
  'init',
  'overview',
  'next',
  'context',
  'task add',
  'task list',
  'task show',
  'task claim',
  'task check',
  'task done',
]
const orderOf = (p: string) => {
  const i = ORDER.indexOf(p)
  return i === -1 ? ORDER.length : i
}

function usageShort(c: CommandDecl): string {
  return [PROG, c.path, ...c.args.filter((a) => a.required).map(argShape)].join(' ')
}

/** `help --all`: every command, grouped. */
export function allHelp(table: readonly CommandDecl[], width = 100): string {
  const sorted = [...table].sort((a, b) => byText(a.path, b.path))
  const rows = sorted.map((c) => [usageShort(c), `${c.summary}${c.json ? ` [${c.json}]` : ''}`] as const)
  return `${PROG}: all ${sorted.length} commands\n\n${columns(rows, 2, width)}\n\n${wrap(`Run \`${PROG} <command> --help\` for flags and output.`, width, '')}\n`
}

export interface CatalogFlag {
  name: string
  type: FlagType
  takes_value: boolean
  repeatable: boolean
  required: boolean
  values: string[] | null
  description: string
}

export interface CatalogEntry {
  path: string
  summary: string
  usage: string
  json: string | null
  mutates: boolean
  proposes: boolean
  args: { name: string; required: boolean; description: string }[]
  flags: CatalogFlag[]
}

export function catalogEntry(c: CommandDecl): CatalogEntry {
  return {
    path: c.path,
    summary: c.summary,
    usage: usageOf(c),
    json: c.json,
    mutates: mayMutate(c),
    proposes: c.proposes === true,
    args: c.args.map((a) => ({ name: a.name, required: a.required, description: a.description })),
    flags: Object.entries(c.flags)
      .map(([name, s]) => ({
        name: `--${name}`,
        type: s.type,
        takes_value: s.type !== 'bool',
        repeatable: s.repeatable === true,
        required: s.required === true,
        values: s.values ? [...s.values] : null,
        description: s.description,
      }))
      .sort((a, b) => byText(a.name, b.name)),
  }
}
