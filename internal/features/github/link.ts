import { cmd } from '../../base/commands.js'
import { RefusedError, UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import { apiUrlOf, connect } from '../../domain/github/connect.js'
import { originRepo, REPO_NAME, sameRepo } from '../../domain/github/repository.js'
import { editProjectFrontmatter } from '../../domain/project/edit.js'
import { projectDocument, statusCounts } from '../shared/projectdoc.js'

export const link = defineCommand({
  path: 'github link',
  summary: 'Bind a project to a GitHub repository (a public one needs --allow-public)',
  description:
    'Records `github: {repo, public_confirmed}` in the project file (committed with the code, so the decision is reviewable and blameable). The repository defaults to the one the `origin` remote points at; it is looked up live, so a typo or a repository the token cannot see is refused before anything is written. A public repository makes every mirrored task public: without --allow-public that is refused (exit 3); with it, the consent is recorded for exactly that repository and `github push` checks it every time. Linking again with the same answer changes nothing.',
  args: [arg('project', 'the project slug')],
  flags: {
    repo: str('the repository (default: the one the origin remote points at)', { valueName: 'OWNER/NAME' }),
    'allow-public': bool('consent to mirror this project into a public repository (recorded in the project file)'),
  },
  json: 'project/v1',
  mutates: true,
  idempotent: true,
  examples: [
    'dacli github link ledger',
    'dacli github link ledger --repo acme/ledger',
    'dacli github link docs --repo acme/handbook --allow-public',
  ],
  async run(ctx, input) {
    const project = input.args.project
    const given = input.flags.repo
    if (given !== undefined && !REPO_NAME.test(given)) {
      throw new UsageError(`--repo must be OWNER/NAME, got "${given.slice(0, 200)}"`, {
        next: [cmd(`github link ${project} --repo acme/widgets`)],
      })
    }
    const store = await ctx.store()
    const before = await store.readProject(project)
    let wanted = given
    if (wanted === undefined) {
      const o = originRepo(store, apiUrlOf(ctx.env))
      if ('problem' in o) {
        throw new UsageError(`cannot tell which repository to link: ${o.problem}`, {
          next: [cmd(`github link ${project} --repo OWNER/NAME`)],
        })
      }
      wanted = o.repo
    }
    const s = await connect(ctx, { requireToken: true })
    const live = await s.client.repository(wanted)
    const allow = input.flags['allow-public'] === true
    if (live.visibility === 'public' && !allow && !sameRepo(before.github?.public_confirmed ?? null, live.full_name)) {
      throw new RefusedError(
        'disclosure',
        `${live.full_name} is public: linking would mirror project "${project}" into public issues`,
        {
          details: { repository: live.full_name, visibility: live.visibility },
          next: [
            cmd(
              `github link ${project} --repo ${live.full_name} --allow-public   (records your consent in the project file)`,
            ),
            'or link a private repository',
          ],
        },
      )
    }
    // Consent is for exactly one repository: it is kept only while the link stays on it.
    const kept = sameRepo(before.github?.public_confirmed ?? null, live.full_name) ? live.full_name : null
    const consent = allow ? live.full_name : kept
    const who = await ctx.identity()
    const { applyEdits } = await import('../../format/parsing.js')
    const changed = await editProjectFrontmatter(store, project, (doc, data) => {
      const g = data.github as Record<string, unknown> | null | undefined
      if (g?.repo === live.full_name && (g?.public_confirmed ?? null) === consent) return false
      applyEdits(doc, [{ op: 'block', key: 'github', value: { repo: live.full_name, public_confirmed: consent } }])
      return true
    })
    const data = projectDocument(await store.readProject(project), statusCounts((await store.listTasks(project)).tasks))
    return {
      data,
      human(out) {
        const what = `${project} → ${live.full_name} (${live.visibility}${consent === null ? '' : ', public consent recorded'})`
        out.line(changed ? `linked ${what}` : `unchanged: ${what}`)
        if (changed) out.line(out.style('dim', `recorded by ${who.id} in ${data.path}; commit it with your code`))
      },
    }
  },
})
