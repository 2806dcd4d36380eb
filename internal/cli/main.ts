// The app layer's entry: pick the command from the table and hand it to invoke().
// It holds no command bodies; everything a command does lives in its slice.

import { VERSION } from '../base/version.js'
import type { CommandEntry } from '../clikit/command.js'
import { matchCommand } from '../clikit/dispatch.js'
import { familyHelp, helpWidth, rootHelp } from '../clikit/help.js'
import { invoke, type Outcome, type Runtime, refuseUnknownCommand } from '../clikit/invoke.js'

const SWITCHES = new Set(['--json', '--quiet', '--json=true', '--quiet=true'])

export async function main(argv: readonly string[], rt: Runtime): Promise<Outcome> {
  const table: readonly CommandEntry[] = rt.table
  // Global switches may come first (`dacli --json --version`, and the MCP cli tool always puts --json there).
  let at = 0
  while (at < argv.length && SWITCHES.has(argv[at] as string)) at++
  const first = argv[at]
  // Help under --json is the document `help [TOPIC] --json` prints (catalog/v1), as every answer under --json is.
  const json = argv.some((t) => t === '--json' || t === '--json=true')
  const helpOf = (topic: string[]): Promise<Outcome> | null => {
    const help = table.find((c) => c.path === 'help')
    return json && help !== undefined ? invoke(help, [...topic, '--json'], rt) : null
  }
  if (argv.length === 0 || first === '--help' || first === '-h') {
    const doc = argv.length === 0 ? null : helpOf([])
    if (doc !== null) return doc
    rt.io.stdout.write(rootHelp(table, VERSION, helpWidth(rt.io, rt.env)))
    return { exitCode: 0 }
  }
  if (first === '--version') {
    const version = table.find((c) => c.path === 'version')
    if (version) return invoke(version, [...argv.slice(0, at), ...argv.slice(at + 1)], rt)
  }
  const m = matchCommand(table, argv)
  if (m !== null) return invoke(m.command, m.rest, rt, m.via)

  // `dacli task --help` (a family): list the family's commands.
  const fams = new Set(table.map((c) => c.path.split(' ')[0]))
  const words = argv.filter((t) => t !== '--json' && t !== '--quiet')
  if (fams.has(words[0] as string) && words.length === 2 && (words[1] === '--help' || words[1] === '-h')) {
    const doc = helpOf([words[0] as string])
    if (doc !== null) return doc
    rt.io.stdout.write(familyHelp(words[0] as string, table, helpWidth(rt.io, rt.env)))
    return { exitCode: 0 }
  }

  return refuseUnknownCommand(rt, argv)
}
