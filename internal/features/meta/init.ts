import { gitInfoAt } from '../../adapters/git/discover.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, classifiedError, RefusedError, UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import type { Context } from '../../clikit/context.js'
import { bool, str } from '../../clikit/flags.js'
import { anchorNewWorkspace } from '../../domain/identity/anchor.js'
import { initTarget, initWorkspace } from '../../store/init.js'
import type { InitDocT } from './json.js'

export const init = defineCommand({
  path: 'init',
  summary: 'Create a workspace (.dacli/) at the repository root',
  description:
    'Creates .dacli/ with its config, the root identity and the folder layout of FORMAT.md. Inside a git work tree the workspace is placed at the repository root (the main worktree’s, from a linked worktree) so every folder of the repository shares it; --here creates it in the current folder instead. An existing workspace is a conflict (exit 5), and so is a new one inside an existing workspace (it would shadow it for that subtree) unless --force, which needs a read-write identity of the enclosing workspace (exit 3 otherwise). In a clone whose remote has a dacli record branch, init refuses (exit 5) and points at `dacli record pull`, which brings that workspace here with its id and name; --force starts a separate workspace instead. In a linked worktree the store goes to the main worktree (--here is refused there).',
  args: [],
  flags: {
    name: str('a name for the workspace', { defaultText: 'the folder name' }),
    here: bool('create the workspace in the current folder, even inside a git work tree'),
    force: bool(
      'create a workspace even though a remote has a dacli record branch, or inside an existing workspace (rw only)',
    ),
  },
  json: 'init/v1',
  mutates: true,
  standalone: true,
  common: true,
  examples: ['dacli init', 'dacli init --name ledger-team'],
  async run(ctx, input) {
    const name = input.flags.name
    // A name typed on the command line is the caller's input (2); one taken from a folder name is the store's (1).
    if (name !== undefined && name.trim() === '')
      throw new UsageError('--name is empty: give the workspace a name, or leave --name out for the folder name', {
        details: { flag: '--name', value: name },
      })
    if (name !== undefined && /[\u0000-\u001f\u007f]/.test(name))
      throw new UsageError('--name contains a control character: a workspace name is one line of text', {
        details: { flag: '--name', value: name },
      })
    await refuseShadowing(ctx, input.flags.here === true, input.flags.force === true)
    const r = initWorkspace(ctx.cwd, {
      ...(name === undefined ? {} : { name }),
      here: input.flags.here === true,
      force: input.flags.force === true,
      now: ctx.now(),
    })
    // The clone that creates the workspace anchors it: its root key, pinned outside the work tree.
    const anchored = anchorNewWorkspace({
      dir: r.dir,
      git: gitInfoAt(r.root),
      config: { id: r.id },
      env: ctx.env,
      system: ctx.system,
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
        if (anchored !== null)
          out.line(
            out.style('dim', `trust anchor: root key ${anchored.fingerprint} pinned (${anchored.files.join(', ')})`),
          )
        out.line('')
        out.line('Next:')
        out.line('  dacli project add "<title>"                 start a project')
        out.line('  dacli task add "<title>" --project <slug> --accept "<criterion>"')
        out.line('  dacli overview                              see where things stand')
      },
    }
  },
})

/**
 * A workspace inside an existing one would shadow it for everything below (commands there find the inner
 * one first): refused (5) unless --force, and --force is honoured only for a read-write identity of the
 * workspace it would shadow (3 otherwise).
 */
async function refuseShadowing(ctx: Context, here: boolean, force: boolean): Promise<void> {
  let outer: Awaited<ReturnType<Context['store']>>
  try {
    outer = await ctx.store()
  } catch (e) {
    if (classifiedError(e)?.kind === 'not_found') return // nothing to shadow
    throw e
  }
  const target = initTarget(ctx.cwd, here)
  if (outer.dir === target) return // initWorkspace reports the existing workspace itself
  if (!force) {
    throw new ConflictError(
      `${ctx.cwd} is inside the workspace at ${outer.dir}; a workspace here would shadow it for everything below`,
      {
        details: { path: target, enclosing: outer.dir },
        next: [
          cmd('status (work in the existing workspace)'),
          cmd('init --here --force (a separate nested workspace, read-write identities only)'),
        ],
      },
    )
  }
  const who = await ctx.identity()
  if (who.grant !== 'rw') {
    throw new RefusedError(
      'grant',
      `a nested workspace needs a read-write identity of ${outer.dir} (${who.id} has ${who.grant})`,
      {
        details: { identity: who.id, grant: who.grant, required: 'rw', enclosing: outer.dir },
        next: ['ask an identity with a read-write grant to create it'],
      },
    )
  }
}
