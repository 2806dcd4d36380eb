// A command's `--verify` and `--timeout`, as the close and check commands hand them to the store: the text checked,
// secrets in it warned about, and the command killed when the caller gives up (an MCP tool call cancelled).

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
  return {
    command,
    env: ctx.env,
    warn: (m: string) => ctx.notes.warn(m),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(ctx.cancel === null ? {} : { signal: ctx.cancel }),
  }
}
