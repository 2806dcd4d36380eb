import { UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { editProject } from '../../domain/project/edit.js'
import { checkTitle } from '../../format/ids.js'
import { checkSectionText, setSection, setTitle } from '../../format/markdown.js'
import { PROJECT_STATUSES, STAGES } from '../../format/model.js'
import { countsOf, projectDoc, renderProject } from './docs.js'

/** The structural sections a project file has, by flag, with their headings (FORMAT.md, Project). */
const SECTIONS = {
  vision: 'Vision',
  goal: 'Goal',
  constraints: 'Constraints',
  'out-of-scope': 'Out of scope',
  'success-criteria': 'Success criteria',
} as const

export const edit = defineCommand({
  path: 'project edit',
  summary: 'Change a project’s title, status, stage or structural sections',
  description:
    'Rewrites project.md in place with the same lossless rules as a task (unknown keys, comments and untouched text keep their bytes). The slug (the folder, and the qualifier in task references) never changes. A section flag replaces that section’s text; an empty value removes its text. Nothing to change is exit 2; the same values again change nothing.',
  args: [arg('slug', 'the project slug')],
  flags: {
    title: str('a new title'),
    status: oneOf(PROJECT_STATUSES, 'where the project stands'),
    stage: oneOf(STAGES, 'its stage'),
    vision: str('replace the ## Vision section'),
    goal: str('replace the ## Goal section'),
    constraints: str('replace the ## Constraints section'),
    'out-of-scope': str('replace the ## Out of scope section'),
    'success-criteria': str('replace the ## Success criteria section'),
  },
  json: 'project/v1',
  mutates: true,
  idempotent: true,
  examples: ['dacli project edit ledger --stage design --goal "Month-end reconciliation never diverges"'],
  async run(ctx, input) {
    const f = input.flags
    const title = f.title === undefined ? undefined : checkTitle(f.title)
    const texts: [string, string][] = []
    for (const [flag, heading] of Object.entries(SECTIONS) as [keyof typeof SECTIONS, string][]) {
      const v = f[flag]
      if (v !== undefined) texts.push([heading, checkSectionText(v, `--${flag}`)])
    }
    if (title === undefined && f.status === undefined && f.stage === undefined && texts.length === 0) {
      throw new UsageError(
        'nothing to edit: give --title, --status, --stage, --vision, --goal, --constraints, --out-of-scope or --success-criteria',
      )
    }
    const store = await ctx.store()
    const slug = input.args.slug
    const before = await store.readProject(slug)
    const who = await ctx.identity()
    const { result } = await editProject(store, slug, who.id, (e) => {
      const fields: string[] = []
      if (title !== undefined && title !== before.title) {
        e.body = setTitle(e.body, title)
        fields.push('title')
      }
      for (const key of ['status', 'stage'] as const) {
        const v = f[key]
        if (v === undefined || v === e.data[key]) continue
        e.doc.set(key, v)
        fields.push(key)
      }
      for (const [heading, text] of texts) {
        const next = setSection(e.body, heading, text.trim() === '' ? '' : `\n${text.trim()}\n`)
        if (next === e.body) continue
        e.body = next
        fields.push(heading.toLowerCase().replace(/ /g, '_'))
      }
      return fields.length === 0 ? false : fields
    })
    const fields = result === false ? [] : result
    const data = projectDoc(await store.readProject(slug), (await countsOf(store, slug)).counts)
    return {
      data,
      human(out) {
        out.line(fields.length === 0 ? `project ${slug} unchanged` : `edited project ${slug}: ${fields.join(', ')}`)
        renderProject(out, data)
      },
    }
  },
})
