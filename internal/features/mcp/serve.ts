import { defineCommand } from '../../clikit/command.js'
import { oneOf } from '../../clikit/flags.js'
import { resources } from './resources.js'

export const serve = defineCommand({
  path: 'mcp serve',
  summary: 'Serve this workspace to an MCP client on stdio (identity bound from DACLI_AGENT at launch)',
  description:
    'Speaks the Model Context Protocol on stdin/stdout until the client disconnects; a one-line banner goes to stderr (silenced by --quiet). The identity is resolved from DACLI_AGENT before serving (unset means a-root; set but empty, unknown or retired refuses the launch, exit 3) and again on every tool call, so an identity retired meanwhile, or whose ancestor was, is refused from its next call on. --profile minimal serves 8 tools and `cli` instead of the full set (the banner counts them). Configure your client to run `dacli mcp serve` in the repository, with DACLI_AGENT in its environment. It refuses --json: stdout is the protocol.',
  args: [],
  flags: {
    profile: oneOf(['full', 'minimal'], 'which tools to serve (minimal: the least context)', { defaultText: 'full' }),
  },
  json: null,
  mutates: false,
  examples: ['dacli mcp serve', 'DACLI_AGENT=<token> dacli mcp serve --profile minimal'],
  async run(ctx, input) {
    const who = await ctx.identity()
    const profile = input.flags.profile ?? 'full'
    await ctx.mcpServe({
      profile,
      resources,
      onListening: ({ tools }) =>
        ctx.notes.note(`dacli mcp: serving ${tools} tools (${profile}) on stdio as ${who.id} (${who.grant})`),
    })
    return { data: null }
  },
})
