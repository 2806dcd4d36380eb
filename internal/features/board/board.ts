import { UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, int, str } from '../../clikit/flags.js'
import { objectFolders } from '../../store/fsio.js'
import type { BoardDocT } from './json.js'

const LOOPBACK = '127.0.0.1'

export const board = defineCommand({
  path: 'board',
  summary: 'Serve the backlog as a live web page on this machine (board, task, graph and agents views)',
  description:
    'Starts a local web server over this workspace and prints one URL carrying a random session token; a request without the token (or the cookie the first page load sets) gets 403. It listens on 127.0.0.1 unless --host names another interface. The page updates within two seconds of any change to .dacli/ (by any process). Claim, release, tick, done and note run through the same commands as the CLI, as the identity the server was started with (DACLI_AGENT), and show a refusal with its policy and next actions; --read-only offers none. Scripts can read `GET /api/<command path>?<flags>` (with the token in the X-Dacli-Token header): the same document as `dacli <command path> --json`. Ctrl-C stops it (exit 0). Under --json the start-up document board/v1 is printed once and the server keeps serving.',
  args: [],
  flags: {
    port: int('the TCP port (0 picks a free one)', { min: 0, max: 65_535, defaultText: '0' }),
    host: str('listen on this interface instead of 127.0.0.1 (the page is then reachable from elsewhere)', {
      valueName: 'HOST',
    }),
    'read-only': bool('serve the page without actions'),
    open: bool('open the page in the system browser'),
  },
  json: 'board/v1',
  mutates: false,
  examples: ['dacli board', 'dacli board --read-only --port 4747', 'dacli board --json'],
  async run(ctx, input) {
    const host = input.flags.host ?? LOOPBACK
    if (!/^[A-Za-z0-9.:_-]{1,253}$/.test(host) || host.startsWith('-')) {
      throw new UsageError(`--host must be a host name or an IP address, got "${host}"`)
    }
    const who = await ctx.identity()
    const store = await ctx.store()
    const readOnly = input.flags['read-only'] === true
    const handle = await ctx.boardServe({
      host,
      port: input.flags.port ?? 0,
      readOnly,
      open: input.flags.open === true,
      folders: () => objectFolders(store.dir),
      identity: who.id,
    })
    const data: BoardDocT = {
      schema: 'board/v1',
      url: handle.url,
      port: handle.port,
      host: handle.host,
      read_only: readOnly,
      identity: who.id,
    }
    if (!ctx.json) {
      const mode = readOnly ? 'read-only' : `actions as ${who.id} (${who.grant})`
      ctx.notes.note(`dacli board: serving this workspace on ${handle.host}:${handle.port}, ${mode}; Ctrl-C to stop`)
      if (host !== LOOPBACK && host !== 'localhost' && host !== '::1') {
        ctx.notes.warn(`listening on ${host}: anyone who can reach it and has the URL can use the page`)
      }
    }
    return { data, human: (out) => out.line(data.url, { wrap: false }) }
  },
})
