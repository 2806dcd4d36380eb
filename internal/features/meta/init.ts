import { defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import { initWorkspace } from '../../store/init.js'
import type { InitDocT } from './json.js'

export const init = defineCommand({
  path: 'init',
  summary: 'Create a workspace (.dacli/) at the repository root',
  description:
    'Creates .dacli/ with its config, the root identity and the folder layout of FORMAT.md. Inside a git work tree the workspace is placed at the repository root (the main worktree’s, from a linked worktree) so every folder of the repository shares it; --here creates it in the current folder instead. An existing workspace is a conflict (exit 5). In a clone whose remote has a dacli record branch, init refuses (exit 5) and points at `dacli record pull`, which brings that workspace here with its id and name; --force starts a separate workspace instead. In a linked worktree the store goes to the main worktree (--here is refused there).',
  args: [],
  flags: {
    name: str('a name for the workspace', { defaultText: 'the folder name' }),
    here: bool('create the workspace in the current folder, even inside a git work tree'),
    force: bool('create a workspace even though a remote has a dacli record branch (a separate workspace)'),
  },
  json: 'init/v1',
  mutates: true,
  standalone: true,
  common: true,
  examples: ['dacli init', 'dacli init --name ledger-team'],
  async run(ctx, input) {
    const name = input.flags.name
    const r = initWorkspace(ctx.cwd, {
      ...(name === undefined ? {} : { name }),
      here: input.flags.here === true,
      force: input.flags.force === true,
      now: ctx.now(),
    })
    const data: InitDocT = {
      schema: 'init/v1',
      id: r.id,
      name: r.name,
      root: r.root,
      path: r.dir,
      format: 0,
      record_branch: r.record_branch,
      in_git: r.in_git,
      identity: 'a-root',
    }
    return {
      data,
      human(out) {
        out.line(`initialized workspace "${r.name}" at ${r.dir}`)
        if (!r.in_git)
          out.line(out.style('dim', 'not inside a git repository: history and `dacli record` need one (git init)'))
        out.line('')
        out.line('Next:')
        out.line('  dacli project add "<title>"                 start a project')
        out.line('  dacli task add "<title>" --project <slug> --accept "<criterion>"')
        out.line('  dacli overview                              see where things stand')
      },
    }
  },
})
