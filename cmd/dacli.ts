// The bin: with cmd/system.ts, the only code that touches `process`. argv, env,
// cwd and the standard streams go in; an exit code comes out.

import { installSystem } from '../internal/base/system.js'
import { main } from '../internal/cli/main.js'
import { manifest } from '../internal/cli/manifest.gen.js'
import { afterMutation, services } from '../internal/runtime/services.js'
import { nodeSystem } from './system.js'

installSystem(nodeSystem)

// A closed pipe (`dacli task list | head`) is not an error worth a stack trace.
for (const s of [process.stdout, process.stderr]) {
  s.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw e
  })
}

const outcome = await main(process.argv.slice(2), {
  io: {
    stdout: { write: (t) => void process.stdout.write(t) },
    stderr: { write: (t) => void process.stderr.write(t) },
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    ...(process.stderr.columns ? { stderrColumns: process.stderr.columns } : {}),
  },
  env: process.env,
  cwd: process.cwd(),
  now: () => new Date(),
  services,
  table: manifest,
  ...(process.argv[1] ? { bin: process.argv[1] } : {}),
  afterMutation,
  stdio: { stdin: process.stdin, stdout: process.stdout },
  // Ctrl-C stops a long-running server cleanly (exit 0); a second one ends the process at once.
  onInterrupt: (stop) => {
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  },
})
process.exitCode = outcome.exitCode
