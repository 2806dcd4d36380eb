// An empty checkbox under an issue's Acceptance heading is no criterion: it is reported as an ambiguity, never
// imported as the text "[ ]".

import { afterEach, expect, test } from 'vitest'
import { type GitHubWorkspace, githubWorkspace } from '../../testkit/ghworkspace.js'

let w: GitHubWorkspace
afterEach(async () => {
  await w.close()
})

test('github pull: an empty checkbox is reported, not imported as a criterion', async () => {
  w = await githubWorkspace()
  w.gh.addIssue('acme/widgets', {
    title: 'Checklist',
    body: '## Acceptance\n- [ ] real criterion\n- [ ]\n- [x]  \n* [X]\n',
  })
  const plan = (await w.run('github', 'pull', 'alpha', '--dry-run', '--json', '--include-acceptance')).expectExit(0)
  expect(plan.json.create[0]).toMatchObject({
    acceptance: ['real criterion'],
    acceptance_ambiguities: ['- [ ] (an empty checkbox)', '- [x] (an empty checkbox)', '* [X] (an empty checkbox)'],
  })
  const r = (await w.run('github', 'pull', 'alpha')).expectExit(0)
  expect(r.stderr).toMatch(/3 list items under the issue's Acceptance heading were not imported/)
  const t = (await w.ws.dacli('task', 'show', 'alpha/1', '--json')).json
  expect(t.acceptance).toEqual([{ n: 1, text: 'real criterion', checked: false }])
})
