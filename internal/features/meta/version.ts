import { cmd } from '../../base/commands.js'
import { UsageError } from '../../base/errors.js'
import { BINARY_NAME, VERSION } from '../../base/version.js'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import type { VersionDocT } from './json.js'

export const version = defineCommand({
  path: 'version',
  summary: 'Print the version, or check a skill’s requirements against this binary',
  description:
    'With --compatibility, checks a skill’s capabilities.json (PATH, else $DACLI_SKILL_REQUIREMENTS, ./skills/dacli/, ./.codex/skills/dacli/, ./.agents/skills/dacli/ in the repository, then ~/.codex/skills/dacli/ and ~/.agents/skills/dacli/) and prints compatibility-report/v1 naming only that document and this binary. A missing required capability, an incompatible schema version or a requirements format this binary does not read exits 3 — do not retry unchanged; missing optional ones are reported with the skill’s fallback. No document → 4, and so is a $DACLI_SKILL_REQUIREMENTS that points at nothing (no other location is tried then); unreadable → 1; not JSON or the wrong shape → 2. Nothing is ever downloaded.',
  usage: '[--compatibility [PATH]]',
  args: [optionalArg('path', 'the requirements document (with --compatibility)')],
  flags: {
    compatibility: bool('check a skill’s requirements document against this binary', { inlineArg: true }),
  },
  json: 'version/v1',
  jsonVariants: ['compatibility-report/v1'],
  mutates: false,
  standalone: true,
  examples: [
    'dacli version --json',
    'dacli version --compatibility',
    'dacli version --compatibility skills/dacli/capabilities.json --json',
  ],
  async run(ctx, input) {
    const file = input.args.path
    if (input.flags.compatibility === true) {
      // Loaded only for the check: `dacli --version` stays as cheap as a program can be.
      const { compatibilityReport } = await import('./compat.js')
      const r = await compatibilityReport(ctx, file)
      return {
        data: r,
        verdict: r.compatible ? null : 'refused',
        ...(r.compatible
          ? {}
          : {
              refusal: {
                policy: 'incompatible-skill',
                reason: `${r.requirements} is not compatible with ${r.binary.name} ${r.binary.version}: ${r.incompatible.map((i) => `${i.id} (${i.reason})`).join('; ')}`,
                next: [
                  `upgrade dacli (this is ${r.binary.version}) to one that has ${r.incompatible.map((i) => i.id).join(', ')}`,
                  `or install the skill version made for dacli ${r.binary.version}`,
                  cmd('capabilities --json (what this binary has)'),
                ],
              },
            }),
        human(out) {
          out.line(
            `${r.compatible ? 'compatible' : out.style('red', 'INCOMPATIBLE')}: ${r.requirements} against ${r.binary.name} ${r.binary.version}${r.binary.path ? ` (${r.binary.path})` : ''}`,
          )
          for (const i of r.incompatible) out.line(`  required ${i.id}: ${i.reason}`)
          const unusable = (x: (typeof r.optional)[number]) =>
            !x.present || (x.schema_version !== null && x.available_version !== x.schema_version)
          for (const o of r.optional.filter(unusable)) {
            const why = o.present ? `at schema version ${o.available_version}, ${o.schema_version} asked` : 'missing'
            out.line(`  optional ${o.id} ${why} — fallback: ${o.fallback ?? 'none given'}`)
          }
          if (!r.compatible) out.line('do not retry unchanged: upgrade dacli or use a skill made for this version')
        },
      }
    }
    if (file !== undefined) throw new UsageError('a PATH is only taken with --compatibility')
    const data: VersionDocT = {
      schema: 'version/v1',
      name: BINARY_NAME,
      version: VERSION,
      node: ctx.system.nodeVersion,
      platform: ctx.system.platform,
      format: 0,
    }
    return {
      data,
      text: `${BINARY_NAME} ${VERSION} (node ${data.node}, ${data.platform}, format ${data.format})`,
    }
  },
})
