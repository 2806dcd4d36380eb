// The board page: a shell (header, navigation, live indicator) and five views
// chosen by the address's hash — #/board/<project>, #/table/<project>,
// #/task/<ref>, #/graph/<project>, #/agents — with search, filters and sort in
// the hash's query (#/board/alpha?status=open&q=shim), so a reload keeps them. A change anywhere under .dacli/ (any process)
// reaches the page as a server-sent event and the open view reloads its data.

import { agentsView } from './agents.js'
import { get, live } from './api.js'
import { boardView } from './board.js'
import { fill, h, lease } from './dom.js'
import { graphView } from './graph.js'
import { tableView } from './table.js'
import { taskView } from './task.js'
import type { Board, ProjectList } from './types.js'

export interface Shell {
  readonly session: Board
  projects: ProjectList['projects']
  /** Reload the project list (counts) after a change. */
  reloadProjects(): Promise<void>
  /** Settles once the project list has loaded (the first view need not wait for it when it knows its project). */
  projectsReady: Promise<void>
  /** The project last shown (board and graph share it; remembered across visits). */
  project: string | null
  /** Reload the open view now (after an action; the live event follows anyway). */
  refresh(): Promise<void>
}

export interface View {
  /** Fetch and draw; called again on every change. */
  update(): Promise<void>
}

const top = document.getElementById('top') as HTMLElement
const main = document.getElementById('view') as HTMLElement

let current: View | null = null
let updating: Promise<void> | null = null
let again = false
let lastUpdate: Date | null = null
let lost = false
const liveDot = h('span', { class: 'live off', title: 'connecting…' }, '●')
const liveText = h('span', { class: 'muted small' }, 'connecting…')

function route(shell: Shell): View {
  const [path = ''] = location.hash.replace(/^#\/?/, '').split('?')
  const [kind, ...rest] = path.split('/').map((p) => {
    try {
      return decodeURIComponent(p)
    } catch {
      return p
    }
  })
  const arg = rest.join('/')
  for (const a of top.querySelectorAll('nav a'))
    a.classList.toggle('active', a.getAttribute('data-view') === (kind || 'board'))
  if (kind === 'task' && arg !== '') return taskView(main, shell, arg)
  if (kind === 'graph') return graphView(main, shell, arg || shell.project)
  if (kind === 'agents') return agentsView(main, shell)
  if (kind === 'table') return tableView(main, shell, arg || null)
  return boardView(main, shell, arg || shell.project)
}

/** Run the view's update, one at a time; a change arriving meanwhile runs it once more afterwards. */
async function refresh(): Promise<void> {
  if (current === null) return
  if (updating !== null) {
    again = true
    return updating
  }
  const view = current
  updating = (async () => {
    try {
      await view.update()
      lastUpdate = new Date()
      main.setAttribute('data-updated', lastUpdate.toISOString())
    } catch (e) {
      fill(main, h('p', { class: 'error' }, `Could not load this view: ${(e as Error).message}`))
    } finally {
      updating = null
    }
  })()
  await updating
  if (again) {
    again = false
    await refresh()
  }
}

async function start(): Promise<void> {
  const session = await get<Board>('board')
  const remembered = (() => {
    try {
      return localStorage.getItem('dacli-board-project')
    } catch {
      return null
    }
  })()
  const shell: Shell = {
    session,
    projects: [],
    project: remembered,
    projectsReady: Promise.resolve(),
    refresh: () => shell.reloadProjects().then(refresh),
    async reloadProjects() {
      shell.projects = (await get<ProjectList>('project/list')).projects
      if (shell.project !== null && !shell.projects.some((p) => p.slug === shell.project)) shell.project = null
    },
  }
  shell.projectsReady = shell.reloadProjects()
  const nav = h(
    'nav',
    {},
    h('a', { href: '#/board', 'data-view': 'board' }, 'Board'),
    h('a', { href: '#/table', 'data-view': 'table' }, 'Table'),
    h('a', { href: '#/graph', 'data-view': 'graph' }, 'Graph'),
    h('a', { href: '#/agents', 'data-view': 'agents' }, 'Agents'),
  )
  const who = session.read_only
    ? h('span', { class: 'badge ro', title: 'started with --read-only: no actions' }, 'read-only')
    : h('span', { class: 'badge', title: 'actions run as this identity' }, `acting as ${session.identity}`)
  fill(
    top,
    h('a', { class: 'brand', href: '#/board' }, 'dacli'),
    nav,
    h('span', { class: 'spacer' }),
    who,
    liveDot,
    liveText,
  )
  const go = () => {
    current = route(shell)
    void refresh()
  }
  window.addEventListener('hashchange', go)
  live(
    () => {
      void shell.reloadProjects().then(refresh)
    },
    (on) => {
      liveDot.className = on ? 'live on' : 'live off'
      liveDot.title = on ? 'live: changes appear within two seconds' : 'reconnecting…'
      liveText.textContent = on ? 'live' : 'reconnecting…'
      // Back after a lost connection: changes may have been missed.
      if (on && lost) void shell.reloadProjects().then(refresh)
      lost = !on
    },
  )
  // Lease countdowns tick every second without a reload.
  setInterval(() => {
    for (const el of document.querySelectorAll<HTMLElement>('[data-expires]')) {
      el.textContent = lease(el.getAttribute('data-expires'))
      el.classList.toggle('expired', Date.parse(el.getAttribute('data-expires') ?? '') <= Date.now())
    }
  }, 1000)
  go()
}

start().catch((e: Error) => fill(main, h('p', { class: 'error' }, `The board could not start: ${e.message}`)))
