// `dacli mcp serve`, reached lazily through services.mcpServe so the SDK loads
// only here. The identity arrives already resolved (the command's grant gate
// resolved DACLI_AGENT through the store, failing the launch on a bad token).

import type { McpServeRequest } from '../clikit/context.js'
import { createServer } from './server.js'
import { LineTransport } from './stdio.js'
import { warm } from './warm.js'

/**
 * Serves until the client leaves (stdin ends, or stdout breaks) or the process is told to stop (Ctrl-C, SIGTERM).
 * Either way the calls under way are cancelled (a watch ends, a --verify is killed and writes nothing), answered
 * while stdout can be written, and the server closes.
 */
export async function serve(req: McpServeRequest): Promise<void> {
  // Told to stop, every call under way stops waiting (a watch, a --verify command) and is answered before the close.
  const stopping = new AbortController()
  const { server, toolset, resources } = createServer({
    runtime: { ...req.runtime, cancel: stopping.signal },
    profile: req.profile,
    ...(req.resources === undefined ? {} : { resources: req.resources }),
  })
  const transport = new LineTransport(req.stdio.stdin, req.stdio.stdout)
  let open = true
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      open = false
      resolve()
    }
  })
  // A broken stream or a handler's failure is logged; the server keeps answering.
  server.onerror = (e) => req.log(`dacli mcp: ${e.message}`)
  // The client leaving cancels what its calls wait on: nobody is there to read the answers.
  transport.ongone = () => stopping.abort()
  await server.connect(transport)
  req.onStop?.(() => {
    stopping.abort()
    transport.finish()
  })
  req.onListening({ tools: toolset.definitions.length })
  // The memory of the workspace filled in the background (warm.ts): the first call about a project is not slower.
  const warmed = warm(toolset, req.runtime, () => !open)
  await closed
  await warmed
  resources?.close()
}
