// `version --compatibility`: check a skill's requirements document against this
// binary (COMPATIBILITY.md). Reads one local file; never downloads or replaces anything.

import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { gitInfoAt } from '../../adapters/git/discover.js'
import { cmd } from '../../base/commands.js'
import { FailureError, NotFoundError, RefusedError, UsageError } from '../../base/errors.js'
import { BINARY_NAME, VERSION } from '../../base/version.js'
import type { Context } from '../../clikit/context.js'
import { CAPABILITY_ID, capabilitiesOf, idVersions } from './capabilities.js'
import type { CompatibilityReportDocT } from './json.js'

const REQUIREMENTS_SCHEMA_VERSION = 1
/** A requirements document is a few kilobytes; anything past this is not one (and is never read whole). */
const MAX_REQUIREMENTS_BYTES = 1024 * 1024

/** Where a requirements document is looked for, in order, when no path is given. */
function candidates(cwd: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const repo = gitInfoAt(cwd)?.workTree ?? cwd
  const home = env.HOME ?? os.homedir()
  const local = ['skills', '.codex/skills', '.agents/skills'].map((d) =>
    path.join(repo, d, 'dacli', 'capabilities.json'),
  )
  const user = ['.codex/skills', '.agents/skills'].map((d) => path.join(home, d, 'dacli', 'capabilities.json'))
  return [...(env.DACLI_SKILL_REQUIREMENTS ? [path.resolve(cwd, env.DACLI_SKILL_REQUIREMENTS)] : []), ...local, ...user]
}

interface Requirement {
  id: string
  schema_version?: number
  fallback?: string
}

function parseRequirements(text: string, shown: string): { required: Requirement[]; optional: Requirement[] } {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    // The parser's message quotes the text: a file that is not JSON (any file a path can name) is not echoed back.
    const at = /position (\d+)/.exec((e as Error).message)?.[1]
    throw new UsageError(`${shown} is not valid JSON${at === undefined ? '' : ` (at character ${at})`}`, {
      details: { requirements: shown },
    })
  }
  const bad = (why: string) =>
    new UsageError(`${shown} is not a requirements document: ${why}`, {
      details: { requirements: shown },
      next: ['see skills/dacli/capabilities.json in the dacli package for the shape'],
    })
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw bad('expected a JSON object')
  const d = doc as Record<string, unknown>
  if (typeof d.schema_version !== 'number') throw bad('schema_version is missing')
  if (d.schema_version !== REQUIREMENTS_SCHEMA_VERSION) {
    throw new RefusedError(
      'requirements-version',
      `${shown} uses requirements schema_version ${d.schema_version}; this dacli reads version ${REQUIREMENTS_SCHEMA_VERSION}`,
      {
        details: { requirements: shown, schema_version: d.schema_version, supported: [REQUIREMENTS_SCHEMA_VERSION] },
        next: ['upgrade dacli, or use the skill version made for this one'],
      },
    )
  }
  const list = (key: string): Requirement[] => {
    const v = d[key] ?? []
    if (!Array.isArray(v)) throw bad(`${key} must be an array`)
    return v.map((r, i) => {
      if (r === null || typeof r !== 'object') throw bad(`${key}[${i}] must be an object`)
      const o = r as Record<string, unknown>
      const { id, schema_version: version, fallback } = o
      if (typeof id !== 'string' || !CAPABILITY_ID.test(id)) throw bad(`${key}[${i}].id must be a capability id`)
      if (version !== undefined && !(typeof version === 'number' && Number.isInteger(version)))
        throw bad(`${key}[${i}].schema_version must be an integer`)
      if (fallback !== undefined && typeof fallback !== 'string') throw bad(`${key}[${i}].fallback must be a string`)
      return {
        id,
        ...(version === undefined ? {} : { schema_version: version }),
        ...(fallback === undefined ? {} : { fallback }),
      }
    })
  }
  return { required: list('required'), optional: list('optional') }
}

export async function compatibilityReport(ctx: Context, given: string | undefined): Promise<CompatibilityReportDocT> {
  let file: string
  if (given !== undefined) {
    file = path.resolve(ctx.cwd, given)
    if (!fs.existsSync(file))
      throw new NotFoundError(`no requirements document at ${given}`, { details: { requirements: given } })
  } else {
    // An explicit pointer must resolve: falling through to another location would check a document nobody chose.
    const pointer = ctx.env.DACLI_SKILL_REQUIREMENTS
    if (pointer && !fs.existsSync(path.resolve(ctx.cwd, pointer))) {
      throw new NotFoundError(
        `DACLI_SKILL_REQUIREMENTS points at ${pointer}, which does not exist (no other location was tried)`,
        {
          details: { requirements: pointer, source: 'DACLI_SKILL_REQUIREMENTS' },
          next: ['fix or unset DACLI_SKILL_REQUIREMENTS', cmd('version --compatibility path/to/capabilities.json')],
        },
      )
    }
    const found = candidates(ctx.cwd, ctx.env).find((f) => fs.existsSync(f))
    if (found === undefined) {
      throw new NotFoundError('no skill requirements document found (set DACLI_SKILL_REQUIREMENTS or pass a path)', {
        next: [cmd('version --compatibility path/to/capabilities.json')],
      })
    }
    file = found
  }
  const shown = path.relative(ctx.cwd, file).startsWith('..') ? file : path.relative(ctx.cwd, file) || file
  let text: string
  try {
    // A device, a pipe or a folder is no document (reading /dev/zero would never end); nor is a huge file.
    const st = fs.statSync(file)
    if (!st.isFile())
      throw new FailureError(`cannot read ${shown}: not a regular file`, { details: { requirements: shown } })
    if (st.size > MAX_REQUIREMENTS_BYTES) {
      throw new UsageError(`${shown} is larger than ${MAX_REQUIREMENTS_BYTES} bytes: not a requirements document`, {
        details: { requirements: shown, size: st.size, limit: MAX_REQUIREMENTS_BYTES },
      })
    }
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    if (e instanceof UsageError || e instanceof FailureError) throw e
    throw new FailureError(`cannot read ${shown}`, { cause: e, details: { requirements: shown } })
  }
  const req = parseRequirements(text, shown)
  const have = idVersions(await capabilitiesOf(ctx))
  const check = (r: Requirement) => {
    const available = have.get(r.id) ?? null
    const versionOk = r.schema_version === undefined || available === null || available === r.schema_version
    // Present: the id is in this binary, at whatever version (a missing capability and an incompatible version of
    // one are two answers); usable: present at the version asked for.
    return { present: available !== null, usable: available !== null && versionOk, available, versionOk }
  }
  const incompatible: CompatibilityReportDocT['incompatible'] = []
  const required = req.required.map((r) => {
    const c = check(r)
    if (c.available === null) incompatible.push({ id: r.id, reason: 'not in this binary' })
    else if (!c.versionOk)
      incompatible.push({ id: r.id, reason: `schema version ${c.available}, required ${r.schema_version}` })
    return { id: r.id, present: c.present, schema_version: r.schema_version ?? null, available_version: c.available }
  })
  const optional = req.optional.map((r) => {
    const c = check(r)
    return {
      id: r.id,
      present: c.present,
      schema_version: r.schema_version ?? null,
      available_version: c.available,
      fallback: c.usable ? null : (r.fallback ?? null),
    }
  })
  return {
    schema: 'compatibility-report/v1',
    compatible: incompatible.length === 0,
    requirements: shown,
    binary: { name: BINARY_NAME, version: VERSION, path: ctx.bin },
    required,
    optional,
    incompatible,
  }
}
