import { explain } from './explain.js'

export const commands = [explain]
