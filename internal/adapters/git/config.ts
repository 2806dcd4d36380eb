// The one git-config reader. isomorphic-git reads only a repository's own config
// and this module must stay light (identity and the GitHub remote need it on
// commands that never load isomorphic-git), so the files are read here, the way
// git reads them (git-config(1)):
//
//   - sources, lowest precedence first: the system file (GIT_CONFIG_SYSTEM, else
//     /etc/gitconfig; none with GIT_CONFIG_NOSYSTEM), the global files
//     (GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config then ~/.gitconfig), the
//     repository's `config`, then GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/VALUE_n; a
//     later value wins;
//   - syntax: `[section]`, `[section "Subsection"]` (case-sensitive, with \" and \\),
//     the old `[section.subsection]`; case-insensitive section and key names; a key
//     alone means true; values trimmed, `"…"` quoting, `#`/`;` comments outside
//     quotes, the escapes \" \\ \n \t \b, and a backslash at the end of a line
//     continuing the value;
//   - `include.path` (relative to the including file, `~/` from HOME), at most
//     10 levels deep. `includeIf` is not evaluated: its files are not read.

import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

type Env = Readonly<Record<string, string | undefined>>

export interface ConfigEntry {
  /** `section`, `section.Subsection`: the section lower-cased, the subsection as written. */
  readonly section: string
  /** Lower-cased. */
  readonly key: string
  /** True for a key written alone (`[core]\n\tbare`). */
  readonly value: string | true
}

const MAX_INCLUDE_DEPTH = 10

/** Parse git-config text. Lines that are not valid git config are skipped (git would refuse the file). */
export function parseGitConfig(text: string): ConfigEntry[] {
  const out: ConfigEntry[] = []
  let section: string | null = null
  let i = 0
  const n = text.length
  const atEol = () => i >= n || text[i] === '\n'
  const skipLine = () => {
    while (!atEol()) i++
    i++
  }
  const skipBlanks = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++
  }
  while (i < n) {
    skipBlanks()
    if (atEol()) {
      i++
      continue
    }
    const c = text[i] as string
    if (c === '#' || c === ';') {
      skipLine()
      continue
    }
    if (c === '[') {
      const header = readHeader(text, i + 1)
      if (header === null) {
        section = null
        skipLine()
        continue
      }
      section = header.section
      i = header.end
      continue // a key may follow on the same line
    }
    const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(i, i + 256))?.[0]
    if (name === undefined || section === null) {
      skipLine()
      continue
    }
    i += name.length
    skipBlanks()
    if (atEol() || text[i] === '#' || text[i] === ';') {
      out.push({ section, key: name.toLowerCase(), value: true })
      skipLine()
      continue
    }
    if (text[i] !== '=') {
      skipLine()
      continue
    }
    i++
    const v = readValue(text, i)
    i = v.end
    if (v.value !== null) out.push({ section, key: name.toLowerCase(), value: v.value })
  }
  return out
}

function readHeader(text: string, from: number): { section: string; end: number } | null {
  const nl = text.indexOf('\n', from)
  const line = text.slice(from, nl === -1 ? undefined : nl)
  const plain = /^\s*([A-Za-z0-9.-]+)\s*\]/.exec(line)
  if (plain) {
    // `[section.sub]` is the old spelling of `[section "sub"]`, the subsection lower-cased.
    return { section: (plain[1] as string).toLowerCase(), end: from + plain[0].length }
  }
  const quoted = /^\s*([A-Za-z0-9-]+)\s+"((?:[^"\\]|\\.)*)"\s*\]/.exec(line)
  if (quoted === null) return null
  const sub = (quoted[2] as string).replace(/\\(.)/g, '$1')
  return { section: `${(quoted[1] as string).toLowerCase()}.${sub}`, end: from + quoted[0].length }
}

function readValue(text: string, from: number): { value: string | null; end: number } {
  let i = from
  let v = ''
  let quoted = false
  // Whitespace is kept only between other characters: held back until something follows it.
  let pending = ''
  while (i < text.length) {
    const c = text[i] as string
    if (c === '\n') break
    if (!quoted && (c === '#' || c === ';')) {
      while (i < text.length && text[i] !== '\n') i++
      break
    }
    if (c === '\\') {
      const next = text[i + 1]
      if (next === '\n' || (next === '\r' && text[i + 2] === '\n')) {
        i += next === '\n' ? 2 : 3
        continue
      }
      const esc = next === undefined ? undefined : { '"': '"', '\\': '\\', n: '\n', t: '\t', b: '\b' }[next]
      if (esc === undefined) {
        while (i < text.length && text[i] !== '\n') i++
        return { value: null, end: i + 1 }
      }
      v += pending + esc
      pending = ''
      i += 2
      continue
    }
    if (c === '"') {
      quoted = !quoted
      v += pending
      pending = ''
      i++
      continue
    }
    if (!quoted && (c === ' ' || c === '\t' || c === '\r')) {
      if (v !== '') pending += c
      i++
      continue
    }
    v += pending + c
    pending = ''
    i++
  }
  return quoted ? { value: null, end: i + 1 } : { value: v, end: i + 1 }
}

/** Every entry of a config file, its `include.path` files spliced in where they appear. Missing files: []. */
export function readConfigFile(file: string, env: Env, depth = 0): ConfigEntry[] {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return []
  }
  const out: ConfigEntry[] = []
  for (const e of parseGitConfig(text)) {
    out.push(e)
    if (e.section === 'include' && e.key === 'path' && typeof e.value === 'string' && depth < MAX_INCLUDE_DEPTH) {
      const target = e.value.startsWith('~/')
        ? path.join(homeOf(env), e.value.slice(2))
        : path.resolve(path.dirname(file), e.value)
      out.push(...readConfigFile(target, env, depth + 1))
    }
  }
  return out
}

const homeOf = (env: Env): string => env.HOME ?? os.homedir()

/** The config files git reads, lowest precedence first. `commonDir`: the repository's common git directory. */
function configFiles(commonDir: string | null, env: Env): string[] {
  const files: string[] = []
  const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim())
  if (!truthy(env.GIT_CONFIG_NOSYSTEM)) files.push(env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig')
  if (env.GIT_CONFIG_GLOBAL !== undefined) files.push(env.GIT_CONFIG_GLOBAL)
  else {
    const home = homeOf(env)
    files.push(path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'git', 'config'))
    files.push(path.join(home, '.gitconfig'))
  }
  if (commonDir !== null) files.push(path.join(commonDir, 'config'))
  return files
}

/** Entries from GIT_CONFIG_COUNT / GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n>. */
function envEntries(env: Env): ConfigEntry[] {
  const count = Number(env.GIT_CONFIG_COUNT ?? '0')
  const out: ConfigEntry[] = []
  for (let n = 0; Number.isSafeInteger(count) && n < count && n < 1000; n++) {
    const key = env[`GIT_CONFIG_KEY_${n}`]
    const value = env[`GIT_CONFIG_VALUE_${n}`]
    const dot = key?.lastIndexOf('.') ?? -1
    if (key === undefined || value === undefined || dot <= 0) continue
    out.push({ section: sectionOf(key.slice(0, dot)), key: key.slice(dot + 1).toLowerCase(), value })
  }
  return out
}

/** `remote.origin` → `remote.origin`; `User` → `user` (the section lower-cased, a subsection as written). */
function sectionOf(name: string): string {
  const dot = name.indexOf('.')
  return dot === -1 ? name.toLowerCase() : `${name.slice(0, dot).toLowerCase()}.${name.slice(dot + 1)}`
}

export interface ConfigReader {
  /** Every value of `section[.subsection].key`, lowest precedence first (a key written alone is `true`). */
  all(name: string): (string | true)[]
  /** The value git would use (the last one), or null. */
  get(name: string): string | null
}

/** What git would read for a repository (or for no repository, with `commonDir` null). */
export function gitConfig(commonDir: string | null, env: Env): ConfigReader {
  let entries: ConfigEntry[] | null = null
  const load = () => {
    entries ??= [...configFiles(commonDir, env).flatMap((f) => readConfigFile(f, env)), ...envEntries(env)]
    return entries
  }
  const all = (name: string) => {
    const dot = name.lastIndexOf('.')
    const section = sectionOf(name.slice(0, dot))
    const key = name.slice(dot + 1).toLowerCase()
    return load()
      .filter((e) => e.section === section && e.key === key)
      .map((e) => e.value)
  }
  return {
    all,
    get(name) {
      const v = all(name).at(-1)
      return v === undefined ? null : v === true ? 'true' : v
    },
  }
}

/**
 * `user.name` or `user.email` for a person: the highest-precedence value that is not blank. A blank value
 * is passed over rather than used (git itself refuses to commit with an empty name).
 */
export function userIdent(commonDir: string | null, env: Env, key: 'name' | 'email'): string | null {
  const values = gitConfig(commonDir, env)
    .all(`user.${key}`)
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
  return values.at(-1)?.trim() ?? null
}

/**
 * The URL of remote `remote` as `git fetch` takes it: the first `remote.<name>.url` in git's order (system,
 * global, repository, GIT_CONFIG_*), or null when there is none.
 */
export function remoteUrl(commonDir: string | null, env: Env, remote = 'origin'): string | null {
  const url = gitConfig(commonDir, env)
    .all(`remote.${remote}.url`)
    .find((v): v is string => typeof v === 'string' && v !== '')
  return url ?? null
}

/**
 * Would git find this remote? A URL or path is git's to judge when it connects; a bare name must be a
 * configured remote (or, as git also allows, a folder of that name) — a typo is "not found", not "retry". A remote
 * it names that cannot be reached is an operational failure, whatever git's wording.
 */
export function knownRemote(repo: { commonDir: string; workTree: string }, env: Env, remote: string): boolean {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(remote)) return true
  const config = gitConfig(repo.commonDir, env)
  if (config.get(`remote.${remote}.url`) !== null || config.get(`remote.${remote}.pushurl`) !== null) return true
  return [
    path.join(repo.commonDir, 'remotes', remote),
    path.join(repo.commonDir, 'branches', remote),
    path.resolve(repo.workTree, remote),
  ].some((p) => fs.existsSync(p))
}
