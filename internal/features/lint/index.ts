import { lint } from './lint.js'

export const commands = [lint]
