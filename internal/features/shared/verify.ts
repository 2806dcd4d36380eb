// A command's `--verify` and `--timeout`, as the close and check commands hand them to the store: the text checked,
// secrets in it warned about, and the command killed when the caller gives up (an MCP tool call cancelled).

import { UsageError } from '../../base/errors.js'
import type { Context } from '../../clikit/context.js'
import type { VerifyRequest } from '../../domain/task/acceptance.js'
import { checkText } from '../../format/ids.js'

export function verifyRequest(
  ctx: Context,
  command: string | undefined,
  timeoutMs: number | undefined,
): VerifyRequest | undefined {
  if (command === undefined) return undefined
  checkText(command, '--verify')
  // A blank command exits 0 having proved nothing: it would be logged as verified.
  if (command.trim() === '')
    throw new UsageError(
      '--verify is empty: give a command that must exit 0, or leave --verify out to check on your word',
    )
  return {
    command,
    env: ctx.env,
    warn: (m: string) => ctx.notes.warn(m),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(ctx.cancel === null ? {} : { signal: ctx.cancel }),
  }
}
