import { board } from './board.js'

export const commands = [board]
