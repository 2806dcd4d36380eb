import { search } from './search.js'

export const commands = [search]
