// Wire shapes of the search slice.

import { z } from 'zod'
import { Skipped } from '../../clikit/skipped.schema.js'
import { SEARCH_KINDS } from './kinds.js'

export const SearchDoc = z.strictObject({
  schema: z.literal('search/v1'),
  query: z.string(),
  filters: z.strictObject({
    project: z.string().nullable(),
    kind: z.enum(SEARCH_KINDS).nullable(),
    status: z.array(z.string()),
    label: z.array(z.string()),
  }),
  total: z.number().int().describe('every match, across all of them'),
  limit: z.number().int(),
  truncated: z.boolean().describe('true when more matched than are listed (raise --limit)'),
  results: z.array(
    z.strictObject({
      kind: z.enum(SEARCH_KINDS),
      id: z.string(),
      ref: z.string().describe('what to pass to show: a task reference, a note, risk or question id'),
      project: z.string().nullable(),
      title: z.string(),
      status: z.string().nullable().describe('a task’s status, a note’s kind, a risk’s rank, a question: open'),
      score: z.number().describe('higher is better; a title that is exactly the query scores 1000 more'),
      field: z.string().describe('where the snippet comes from: title, labels, so_that, context, acceptance, body …'),
      snippet: z.string().describe('the text around the match, on one line'),
      command: z.string(),
    }),
  ),
  skipped: Skipped,
})

export const documents = { 'search/v1': SearchDoc }

export type SearchDocT = z.infer<typeof SearchDoc>
