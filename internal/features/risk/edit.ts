import { UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { editRisk, type RiskChanges } from '../../domain/notes/edit.js'
import { LEVELS } from '../../domain/notes/notes.js'
import { checkTitle } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import { riskBody } from './docs.js'
import type { RiskDocT } from './json.js'

export const edit = defineCommand({
  path: 'risk edit',
  summary: 'Change a risk’s title, impact, likelihood, indicators or action',
  description:
    'Rewrites the risk file in place with the same lossless rules as a task; the file name, and so the slug, never changes. --indicator adds one (repeatable), --remove-indicator takes one away by its exact text (exit 2 when the risk has no such indicator). The rank is computed again from impact and likelihood. Nothing to change is exit 2; the same values again change nothing (outcome unchanged).',
  args: [arg('ref', 'the risk: r-<ULID>, <project>/<slug> or a slug')],
  flags: {
    title: str('a new title'),
    impact: oneOf(LEVELS, 'how bad it would be'),
    likelihood: oneOf(LEVELS, 'how likely it is'),
    indicator: str('add a sign that it is happening', { repeatable: true }),
    'remove-indicator': str('take an indicator away (its exact text)', { repeatable: true }),
    action: str('replace what is done about it'),
  },
  json: 'risk/v1',
  mutates: true,
  idempotent: true,
  examples: [
    'dacli risk edit ledger/batch-job-races-the-shim --likelihood low --action "feature flag, off by default"',
  ],
  async run(ctx, input) {
    const f = input.flags
    const p: RiskChanges = {
      ...(f.title === undefined ? {} : { title: checkTitle(f.title) }),
      ...(f.impact === undefined ? {} : { impact: f.impact }),
      ...(f.likelihood === undefined ? {} : { likelihood: f.likelihood }),
      ...(f.action === undefined ? {} : { action: checkSectionText(f.action, '--action') }),
      addIndicators: (f.indicator ?? []).map((i) => checkTitle(i, 'indicator')),
      removeIndicators: f['remove-indicator'] ?? [],
    }
    if (Object.keys(p).length === 2 && p.addIndicators?.length === 0 && p.removeIndicators?.length === 0) {
      throw new UsageError(
        'nothing to edit: give --title, --impact, --likelihood, --indicator, --remove-indicator or --action',
      )
    }
    const store = await ctx.store()
    const { risk, fields } = await editRisk(store, input.args.ref, (await ctx.identity()).id, p)
    if (risk.rank <= 2 && risk.action === null)
      ctx.notes.warn(`rank ${risk.rank} risk without an action: add one so it is managed`)
    const data: RiskDocT = {
      schema: 'risk/v1',
      ...riskBody(risk),
      outcome: fields.length === 0 ? 'unchanged' : 'edited',
    }
    return {
      data,
      human: (out) =>
        out.line(
          fields.length === 0
            ? `${risk.project}/${risk.slug} unchanged (rank ${risk.rank})`
            : `edited risk ${out.style('bold', `${risk.project}/${risk.slug}`)}: ${fields.join(', ')} (rank ${risk.rank})`,
        ),
    }
  },
})
