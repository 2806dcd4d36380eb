// Wire shape of the board slice: the start-up document of `dacli board --json`.

import { z } from 'zod'

export const BoardDoc = z.strictObject({
  schema: z.literal('board/v1'),
  url: z.string().describe('the page, carrying the session token (?t=…): open it, share it with no one'),
  port: z.number().int().describe('the TCP port the server listens on'),
  host: z.string().describe('the interface it listens on (127.0.0.1 unless --host was given)'),
  read_only: z.boolean().describe('true with --read-only: the page shows the store and offers no actions'),
  identity: z.string().describe('the identity actions run as (from DACLI_AGENT when the server started)'),
})

export type BoardDocT = z.infer<typeof BoardDoc>

export const documents = { 'board/v1': BoardDoc }
