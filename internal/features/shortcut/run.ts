import { cmd } from '../../base/commands.js'
import { DacliError, type ErrorKind, RefusedError, UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import type { ShortcutRunDocT } from './json.js'
import { argvOf, loadShortcut, RESERVED, shown, valuesOf } from './load.js'

type StepDoc = ShortcutRunDocT['steps'][number]

export const run = defineCommand({
  path: 'run',
  summary: 'Run a shortcut: its dacli commands in order, with your parameters in place',
  description:
    'A shortcut is .dacli/shortcuts/<name>.md (FORMAT.md): parameters, then steps, each one dacli command checked against the command table when the file is read. Give parameters as --NAME VALUE. --dry-run shows the resolved steps and runs nothing. A shortcut with a step that writes runs only with --confirm (and a read-write grant); each step runs as if you had typed it — same grants, refusals and journal — and the first step that fails stops the run with its exit code.',
  args: [arg('name', 'the shortcut')],
  flags: {
    'dry-run': bool('show the steps; run nothing'),
    confirm: bool('let steps that write run'),
  },
  params: { description: 'the shortcut’s parameters (shortcut show <name>)' },
  json: 'shortcut-run/v1',
  mutates: false,
  mutatesWith: ['confirm'],
  // A step may be any command of the table, a removal (task rm, cleanup --apply-safe) included.
  destructive: true,
  examples: ['dacli run start --ref api/7 --dry-run', 'dacli run start --ref api/7 --confirm'],
  async run(ctx, input) {
    const s = loadShortcut(await ctx.store(), ctx.table, input.args.name)
    const { values, unknown, missing } = valuesOf(s, input.params)
    const known = s.params.map((p) => `--${p.name}`)
    if (unknown.length > 0) {
      const flags = unknown.map((u) => `--${u}`)
      throw new UsageError(
        `unknown flag${flags.length === 1 ? '' : 's'}: ${flags.join(', ')} (shortcut ${s.name} takes ${known.length === 0 ? 'no parameters' : known.join(', ')})`,
        {
          details: { unknown_flags: flags, parameters: known, reserved: RESERVED.map((r) => `--${r}`) },
          next: [cmd(`shortcut show ${s.name}`)],
        },
      )
    }
    if (missing.length > 0) {
      throw new UsageError(
        `missing parameter${missing.length === 1 ? '' : 's'}: ${missing.map((m) => `--${m}`).join(', ')}`,
        {
          details: { missing_flags: missing.map((m) => `--${m}`) },
          next: [cmd(`shortcut show ${s.name}`)],
        },
      )
    }
    const dryRun = input.flags['dry-run'] === true
    const steps: StepDoc[] = s.steps.map((st) => ({
      n: st.n,
      path: st.path,
      command: shown(st, values),
      argv: [...st.path.split(' '), ...argvOf(st, values)],
      mutates: st.mutates,
      outcome: 'planned',
      exit_code: null,
      document: null,
    }))
    const data: ShortcutRunDocT = {
      schema: 'shortcut-run/v1',
      shortcut: s.name,
      path: s.path,
      dry_run: dryRun,
      params: values,
      steps,
    }
    const writers = s.steps.filter((st) => st.mutates)
    if (!dryRun && writers.length > 0) {
      const who = await ctx.identity()
      // Proposal steps included: --confirm is what lets a shortcut write, and the kernel refuses it to a read-only
      // identity, so a read-only caller runs reading shortcuts only.
      const forbidden = writers
      if (who.grant !== 'rw') {
        throw new RefusedError(
          'grant',
          `shortcut ${s.name} writes (step ${forbidden.map((f) => f.n).join(', ')}) and ${who.id} has a ${who.grant} grant: no step was run`,
          {
            details: { identity: who.id, grant: who.grant, required: 'rw', steps: forbidden.map((f) => f.n) },
            next: [
              'ask an identity with a read-write grant to run it',
              cmd(`run ${s.name} --dry-run (see what it would do)`),
            ],
          },
        )
      }
      if (input.flags.confirm !== true) {
        throw new RefusedError(
          'shortcut-confirm',
          `shortcut ${s.name} writes (step ${writers.map((w) => w.n).join(', ')}): review the steps, then run it with --confirm; no step was run`,
          {
            details: { steps: steps.filter((st) => st.mutates).map((st) => ({ n: st.n, command: st.command })) },
            next: [`${cliOf(s.name, values)} --dry-run`, `${cliOf(s.name, values)} --confirm`],
          },
        )
      }
    }
    const printed: string[] = []
    if (!dryRun) {
      for (const [i, st] of s.steps.entries()) {
        const doc = steps[i] as StepDoc
        const json = ctx.json && st.json
        const r = await ctx.dispatch(st.path, json ? ['--json', ...argvOf(st, values)] : argvOf(st, values))
        if (r.exitCode !== 0) {
          const err = r.error
          const kind: ErrorKind = (err?.kind as ErrorKind | undefined) ?? 'failure'
          const message = `step ${st.n} of shortcut ${s.name} (${doc.command}) failed: ${err?.message ?? `exit ${r.exitCode}`}`
          const details = {
            shortcut: s.name,
            step: st.n,
            command: doc.command,
            step_exit_code: r.exitCode,
            step_error: err,
            ran: steps.slice(0, i).map((x) => ({ n: x.n, command: x.command, exit_code: x.exit_code })),
          }
          const next = [...(err?.next_actions ?? []), cmd(`run ${s.name} --dry-run`)]
          if (kind === 'refused') {
            const policy = typeof err?.details.policy === 'string' ? err.details.policy : 'shortcut-step'
            throw new RefusedError(policy, message, { details, next })
          }
          throw new DacliError(kind, message, { details, next })
        }
        doc.outcome = 'ok'
        doc.exit_code = 0
        doc.document = json ? (r.data ?? null) : null
        printed.push(r.stdout)
      }
    }
    return {
      data,
      human(out) {
        for (const [i, st] of data.steps.entries()) {
          out.line(`${out.style('bold', `${st.n}.`)} ${st.command}${st.mutates ? out.style('dim', '  (writes)') : ''}`)
          const text = (printed[i] ?? '').replace(/\n+$/, '')
          for (const l of text === '' ? [] : text.split('\n')) out.line(`   ${l}`)
        }
        if (data.dry_run)
          out.line(
            out.style(
              'dim',
              `dry run: nothing ran (${cliOf(s.name, values)}${writers.length > 0 ? ' --confirm' : ''} runs it)`,
            ),
          )
      },
    }
  },
})

function cliOf(name: string, values: Readonly<Record<string, string>>): string {
  const quote = (v: string) => (/^[\w./:@=,+-]+$/.test(v) ? v : JSON.stringify(v))
  return [
    'dacli run',
    name,
    ...Object.entries(values).map(([k, v]) => `--${k}${v.startsWith('-') ? '=' : ' '}${quote(v)}`),
  ].join(' ')
}
