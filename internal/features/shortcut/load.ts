// Shortcuts read and checked against the command table (FORMAT.md, "Shortcut"). A file is refused whole at
// load — exit 1 naming the file and the line, as a bad queue file is — when a step names no command of the table,
// a flag that command does not declare, a literal value its flag cannot take, too few or too many arguments, a
// command that cannot run as a step, or a placeholder no parameter declares. A step becomes argv only here: flags
// as `--name=value` and the arguments after `--`, so a parameter's value can never be read as a flag.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { FailureError, NotFoundError } from '../../base/errors.js'
import { type CommandEntry, callMutates } from '../../clikit/command.js'
import { matchCommand } from '../../clikit/dispatch.js'
import { type FlagValues, GLOBAL_FLAGS, nearest, parseArgv } from '../../clikit/flags.js'
import { safeSegment } from '../../format/ids.js'
import { expand, parseShortcut, placeholdersOf, type ShortcutParam } from '../../format/shortcut.js'
import { linkOnPath, readText } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'

/** Commands that cannot be a step: they serve until interrupted, run shortcuts, or are a person's own decision. */
const NOT_A_STEP: Readonly<Record<string, string>> = {
  run: 'a shortcut does not run shortcuts',
  'mcp serve': 'it serves until interrupted',
  board: 'it serves until interrupted',
  watch: 'it runs until interrupted',
  'trust accept': 'the trust anchor is a person’s decision at a terminal',
}

/** The flags `run` itself takes: no parameter may be named like them. */
export const RESERVED = ['dry-run', 'confirm', 'json', 'quiet', 'help']

export interface Step {
  readonly n: number
  readonly line: number
  /** The step as written. */
  readonly text: string
  readonly path: string
  readonly flags: readonly { readonly name: string; readonly value: string | null }[]
  readonly positionals: readonly string[]
  /** The step writes (its command mutates, or a writing flag is given; a literal --dry-run reads). */
  readonly mutates: boolean
  /** Whether the command honours --json. */
  readonly json: boolean
}

export interface Shortcut {
  readonly name: string
  readonly path: string
  readonly title: string
  readonly description: string | null
  readonly params: readonly ShortcutParam[]
  readonly steps: readonly Step[]
}

export const shortcutName = (name: string) => safeSegment(name, 'shortcut name')

const dirOf = (store: Store) => path.join(store.dir, 'shortcuts')

/** Every shortcut's name, sorted. */
export function shortcutNames(store: Store): string[] {
  const dir = dirOf(store)
  if (!fs.existsSync(dir) || linkOnPath(dir) !== null) return []
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md') && !e.name.startsWith('.'))
    .map((e) => e.name.slice(0, -3))
    .sort()
}

function fault(rel: string, line: number, why: string): FailureError {
  return new FailureError(`${rel}:${line}: ${why}`, {
    details: { path: rel, line },
    next: [`fix the line by hand, then ${cmd('shortcut show <name>')}`],
  })
}

/** Read and check one shortcut against the table (exit 4 when there is none, 1 naming the line when it is bad). */
export function loadShortcut(store: Store, table: readonly CommandEntry[], name: string): Shortcut {
  const file = path.join(dirOf(store), `${shortcutName(name)}.md`)
  const rel = store.rel(file)
  if (linkOnPath(file) !== null) throw new FailureError(`${rel} is reached through a symbolic link: not read`)
  if (!fs.existsSync(file)) {
    throw new NotFoundError(`no shortcut "${name}" (${rel})`, { next: [cmd('shortcut list')] })
  }
  const parsed = parseShortcut(readText(file))
  if ('fault' in parsed) throw fault(rel, parsed.fault.line, parsed.fault.why)
  const { shortcut } = parsed
  const declared = new Set(shortcut.params.map((p) => p.name))
  for (const p of shortcut.params) {
    if (RESERVED.includes(p.name))
      throw fault(rel, p.line, `a parameter cannot be named ${p.name}: run takes --${p.name} itself`)
  }
  const steps = shortcut.steps.map((s, i) => {
    const why = (w: string) => fault(rel, s.line, w)
    for (const w of s.words) {
      const undeclared = placeholdersOf(w).find((x) => !declared.has(x))
      if (undeclared !== undefined) throw why(`{{${undeclared}}} is not a parameter of this shortcut (## Parameters)`)
    }
    const head = s.words[0] ?? ''
    if (head.startsWith('-')) throw why(`a step starts with its command, not "${head}"`)
    const m = matchCommand(table, s.words)
    if (m === null) throw why(`"${s.words.slice(0, 2).join(' ')}" is not a dacli command (dacli help --all)`)
    const entry = m.command
    const refusedAs = NOT_A_STEP[entry.path]
    if (refusedAs !== undefined) throw why(`${entry.path} cannot be a step: ${refusedAs}`)
    return compileStep(entry, m.rest, { n: i + 1, line: s.line, text: s.text }, why)
  })
  return {
    name,
    path: rel,
    title: shortcut.title ?? name,
    description: shortcut.description,
    params: shortcut.params,
    steps,
  }
}

function compileStep(
  entry: CommandEntry,
  words: readonly string[],
  at: { n: number; line: number; text: string },
  why: (w: string) => FailureError,
): Step {
  const flags: { name: string; value: string | null }[] = []
  const positionals: string[] = []
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? ''
    if (w === '--') {
      positionals.push(...words.slice(i + 1))
      break
    }
    if (!w.startsWith('--') || w.length === 2) {
      if (w.startsWith('-') && w !== '-' && placeholdersOf(w).length === 0)
        throw why(`"${w}": dacli has no one-letter flags`)
      positionals.push(w)
      continue
    }
    const eq = w.indexOf('=')
    const name = eq === -1 ? w.slice(2) : w.slice(2, eq)
    if (Object.hasOwn(GLOBAL_FLAGS, name)) throw why(`--${name} is run's to give, not a step's`)
    const spec = Object.hasOwn(entry.flags, name) ? entry.flags[name] : undefined
    if (spec === undefined) {
      const near = nearest(name, Object.keys(entry.flags))
      throw why(`${entry.path} has no flag --${name}${near === null ? '' : ` (did you mean --${near}?)`}`)
    }
    let value: string | null
    if (eq !== -1) value = w.slice(eq + 1)
    else if (spec.type === 'bool') value = null
    else {
      const next = words[i + 1]
      if (next === undefined || (next.startsWith('-') && placeholdersOf(next).length === 0))
        throw why(`--${name} needs a value`)
      value = next
      i++
    }
    if (value !== null && placeholdersOf(value).length === 0) {
      const problems = parseArgv([`--${name}=${value}`], { [name]: spec }).problems
      if (problems.length > 0) throw why(problems.join('; '))
    }
    if (!spec.repeatable && flags.some((f) => f.name === name)) throw why(`--${name} is given twice`)
    flags.push({ name, value })
  }
  const fixed = entry.args.filter((a) => !a.rest)
  const rest = entry.args.find((a) => a.rest)
  const required = entry.args.filter((a) => a.required && !a.rest).length + (rest?.required ? 1 : 0)
  if (positionals.length < required) {
    const missing = entry.args.filter((a) => a.required)[positionals.length]
    throw why(`${entry.path} needs <${missing?.name ?? 'argument'}>`)
  }
  if (rest === undefined && positionals.length > fixed.length)
    throw why(`${entry.path} takes ${fixed.length} argument(s), the step gives ${positionals.length}`)
  const given: FlagValues = {}
  for (const f of flags) given[f.name] = f.value === null ? true : f.value === 'false' ? false : f.value
  return {
    ...at,
    path: entry.path,
    flags,
    positionals,
    mutates: callMutates(entry, given),
    json: entry.json !== null,
  }
}

/** The values of a call: the parameters given, the defaults for the others; refused (usage) names checked. */
export function valuesOf(
  s: Shortcut,
  given: Readonly<Record<string, string>>,
): { values: Record<string, string>; unknown: string[]; missing: string[] } {
  const values: Record<string, string> = {}
  const unknown = Object.keys(given).filter((k) => !s.params.some((p) => p.name === k))
  const missing: string[] = []
  for (const p of s.params) {
    const v = given[p.name] ?? p.default
    if (v === null) missing.push(p.name)
    else values[p.name] = v
  }
  return { values, unknown, missing }
}

/** A step's argv with the values in place: flags as --name=value, then `--` and the arguments. */
export function argvOf(step: Step, values: Readonly<Record<string, string>>): string[] {
  const flags = step.flags.map((f) => (f.value === null ? `--${f.name}` : `--${f.name}=${expand(f.value, values)}`))
  const args = step.positionals.map((p) => expand(p, values))
  return args.length === 0 ? flags : [...flags, '--', ...args]
}

/** The command line people read for a step (quoted where a word needs it). */
export function shown(step: Step, values: Readonly<Record<string, string>>): string {
  const quote = (s: string) => (/^[\w./:@=,+-]+$/.test(s) ? s : JSON.stringify(s))
  const flags = step.flags.map((f) =>
    f.value === null ? `--${f.name}` : `--${f.name} ${quote(expand(f.value, values))}`,
  )
  const args = step.positionals.map((p) => expand(p, values))
  const dashed = args.some((a) => a.startsWith('-'))
  return [
    'dacli',
    step.path,
    ...(dashed ? [] : args.map(quote)),
    ...flags,
    ...(dashed ? ['--', ...args.map(quote)] : []),
  ].join(' ')
}
