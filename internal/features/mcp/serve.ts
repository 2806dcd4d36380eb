import { cmd } from '../../base/commands.js'
import { UsageError } from '../../base/errors.js'
import { canonicalHost, isLoopback } from '../../base/loopback.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, oneOf, str } from '../../clikit/flags.js'
import { newToken } from '../../domain/identity/agents.js'
import { hashToken } from '../../domain/identity/identity.js'
import { resources } from './resources.js'

const LOOPBACK = '127.0.0.1'

/** `--http [HOST:]PORT`: `8080`, `127.0.0.1:0`, `[::1]:8080`, `localhost:8080`. */
export function parseListen(value: string): { host: string; port: number } {
  const bad = () =>
    new UsageError(`--http takes [HOST:]PORT (for example 8080 or 127.0.0.1:0), got "${value}"`, {
      next: [cmd('mcp serve --http 127.0.0.1:0')],
    })
  const m = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]{1,253}):)?(\d{1,5})$/.exec(value)
  if (m === null) throw bad()
  const given = m[1] === undefined ? LOOPBACK : m[1].replace(/^\[|\]$/g, '')
  const port = Number(m[2])
  if (port > 65_535 || given.startsWith('-') || given.startsWith('.')) throw bad()
  // Listened on, judged and printed as the network reads it: `127.1` is 127.0.0.1, as the resolver and URLs say.
  const host = canonicalHost(given)
  if (host === null) throw bad()
  return { host, port }
}

export const serve = defineCommand({
  path: 'mcp serve',
  summary: 'Serve this workspace to an MCP client: on stdio, or over Streamable HTTP with --http',
  description:
    'Speaks the Model Context Protocol on stdin/stdout until the client disconnects, or Ctrl-C or SIGTERM, which answers the calls under way (a wait stops at once: a watch, a --verify command is killed) and exits 0; a one-line banner goes to stderr (silenced by --quiet). The identity is resolved from DACLI_AGENT before serving (unset means a-root; set but empty, unknown or retired refuses the launch, exit 3) and again on every tool call, so an identity retired meanwhile, or whose ancestor was, is refused from its next call on. --profile minimal serves 8 tools and `cli` instead of the full set (the banner counts them). Configure your client to run `dacli mcp serve` in the repository, with DACLI_AGENT in its environment. Tasks, projects and notes are also resources (dacli://task/<project>/<n>, dacli://project/<slug>, dacli://note/<id>: the file as stored), listed 40 at a time; a client that subscribes to one is notified when its file changes, by any process or by hand. It refuses --json: stdout is the protocol.\n\n' +
    'With --http [HOST:]PORT it serves the MCP Streamable HTTP transport at http://HOST:PORT/mcp instead (HOST defaults to 127.0.0.1; port 0 picks a free one) and prints that URL as the one line on stdout. Every request needs `Authorization: Bearer <token>`: the launch token, minted at start for the identity the server runs as and shown once on stderr (kept only hashed, and only while the server runs; not shown under --quiet), or any agent token of the workspace (`dacli agent spawn`), which acts as that agent with its grant, exactly as DACLI_AGENT would. A missing or unknown token is answered 401; a Host header that is not a loopback name, or an Origin from another site, 403 (DNS rebinding protection). Sessions (Mcp-Session-Id) belong to the token that opened them, and their SSE streams are resumable (Last-Event-ID). A HOST that is not a loopback address is refused unless --allow-remote is given. Ctrl-C or SIGTERM stops it (exit 0).',
  args: [],
  flags: {
    profile: oneOf(['full', 'minimal'], 'which tools to serve (minimal: the least context)', { defaultText: 'full' }),
    http: str('serve Streamable HTTP on this address instead of stdio (port 0 picks a free one)', {
      valueName: '[HOST:]PORT',
    }),
    'allow-remote': bool('with --http: allow listening on an address other machines can reach'),
  },
  json: null,
  mutates: false,
  examples: [
    'dacli mcp serve',
    'DACLI_AGENT=<token> dacli mcp serve --profile minimal',
    'dacli mcp serve --http 127.0.0.1:8765',
  ],
  async run(ctx, input) {
    const profile = input.flags.profile ?? 'full'
    const remote = input.flags['allow-remote'] === true
    if (input.flags.http === undefined) {
      if (remote) throw new UsageError('--allow-remote goes with --http', { next: [cmd('mcp serve --http 0')] })
      const who = await ctx.identity()
      await ctx.mcpServe({
        profile,
        resources,
        onListening: ({ tools }) =>
          ctx.notes.note(`dacli mcp: serving ${tools} tools (${profile}) on stdio as ${who.id} (${who.grant})`),
      })
      return { data: null }
    }
    const { host, port } = parseListen(input.flags.http)
    if (!isLoopback(host) && !remote) {
      throw new UsageError(
        `--http ${input.flags.http} listens on ${host}, which other machines may reach; add --allow-remote to mean it`,
        { next: [cmd(`mcp serve --http ${port}`), cmd(`mcp serve --http ${input.flags.http} --allow-remote`)] },
      )
    }
    const who = await ctx.identity()
    // The launch token is shown once and kept only hashed, as an agent's is (agents/<id>.md keeps its token_hash).
    const token = newToken()
    const hash = hashToken(token)
    const accepts = (t: string) => hashToken(t) === hash
    const handle = await ctx.mcpServeHttp({ profile, resources, host, port, launch: { accepts, identity: who } })
    ctx.notes.note(`dacli mcp: serving ${profile} tools on ${handle.url} as ${who.id} (${who.grant}); Ctrl-C to stop`)
    ctx.notes.note(`dacli mcp: launch token for ${who.id} (shown once): ${token}`)
    if (!isLoopback(host)) {
      ctx.notes.warn(`listening on ${host}: anyone who can reach it and holds a token can use this workspace`)
    }
    return { data: null, human: (out) => out.line(handle.url, { wrap: false }) }
  },
})
