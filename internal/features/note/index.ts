import { add } from './add.js'
import { glossary } from './glossary.js'
import { list } from './list.js'
import { riskAdd, riskList } from './risk.js'
import { show } from './show.js'

export const commands = [add, list, show, riskAdd, riskList, glossary]
