// One bounded page of a whole list: the adoption plan and the push preview both
// page this way (counts always cover the whole list).

export interface Page<T> {
  page: T[]
  next_cursor: number | null
  truncated: boolean
}

/** Items [cursor, cursor + limit) of the whole list. */
export function pageOf<T>(all: readonly T[], limit: number, cursor: number): Page<T> {
  const page = all.slice(cursor, cursor + limit)
  const end = cursor + page.length
  return { page, next_cursor: end < all.length ? end : null, truncated: page.length < all.length }
}
