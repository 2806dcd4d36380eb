// The kinds of object search looks through.
export const SEARCH_KINDS = ['task', 'note', 'risk', 'question'] as const
