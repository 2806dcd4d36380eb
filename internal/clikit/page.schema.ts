// The wire shape of a page (clikit/pageflags.ts), spread into every document that lists with --limit/--cursor.

import { z } from 'zod'

export const PageFields = {
  total: z.number().int().describe('every item matching the filters, across all pages'),
  limit: z.number().int().nullable(),
  cursor: z.string().nullable(),
  next_cursor: z.string().nullable().describe('pass as --cursor for the next page; null on the last page'),
  truncated: z.boolean().describe('true when this page does not hold every match'),
}
