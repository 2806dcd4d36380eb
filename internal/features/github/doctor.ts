import { count } from '../../base/text.js'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import { checkSetup } from '../../domain/github/setup.js'
import type { GithubDoctorDocT } from './json.js'

export const doctor = defineCommand({
  path: 'github doctor',
  summary: 'Check the GitHub setup: token, API, repository, visibility and rate limit',
  description:
    "Checks the repository of the named project, else of the only linked project, else of the `origin` remote. Each check is {name, ok, detail}; the report is printed whatever the verdict and the exit code carries it (1 when a check failed). The token's source is shown, never the token.",
  args: [optionalArg('project', 'the project whose linked repository to check')],
  flags: {},
  json: 'github-doctor/v1',
  mutates: false,
  examples: ['dacli github doctor', 'dacli github doctor ledger --json'],
  async run(ctx, input) {
    const setup = await checkSetup(ctx, input.args.project)
    const { project, checks, api_url: apiUrl } = setup
    const ok = checks.every((c) => c.ok)
    const data: GithubDoctorDocT = { schema: 'github-doctor/v1', version: 1, ok, ...setup }
    return {
      data,
      verdict: ok ? null : 'failure',
      human(out) {
        out.line(
          `${out.style('bold', 'github doctor')}  ${data.repository ?? 'no repository'}${project === null ? '' : ` (project ${project})`}  ${out.style('dim', apiUrl)}`,
        )
        out.table(
          ['RESULT', 'CHECK', 'DETAIL'],
          checks.map((c) => [c.ok ? out.style('green', 'ok') : out.style('red', 'FAIL'), c.name, c.detail]),
          { indent: 2 },
        )
        if (!ok) out.line(out.style('red', `${count(checks.filter((c) => !c.ok).length, 'check')} failed`))
      },
    }
  },
})
