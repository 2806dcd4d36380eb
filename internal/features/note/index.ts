import { add } from './add.js'
import { glossary } from './glossary.js'
import { list } from './list.js'
import { show } from './show.js'

export const commands = [add, list, show, glossary]
