// What a command receives. Factories are lazy: a command that never calls
// `git()` never loads isomorphic-git, and a test can inject its own.

import type { Git } from '../adapters/git/index.js'
import type { Notes } from '../base/notes.js'
import type { System } from '../base/system.js'
import type { TokenVia } from '../domain/identity/identity.js'
import type { Identity } from '../format/model.js'
import type { Store } from '../store/store.js'
import type { CommandEntry } from './command.js'
import type { Runtime } from './invoke.js'
import type { Out } from './out.js'

export type Env = Readonly<Record<string, string | undefined>>

/** Lazily created collaborators, wired by the bin (and by tests). */
export interface Services {
  /** The running process's facts (pid, host, liveness, Node), handed down from the bin: never looked up. */
  readonly system: System
  /** Opens the workspace found from `cwd` (exit 4 when there is none). */
  store(cwd: string, env: Env, now: () => Date): Promise<Store>
  /** The zod document registry (schema id → zod schema), loaded only by the commands that need it. */
  documents(): Promise<DocumentRegistry>
  /** The MCP tool surface (names and schema versions), loaded only by the commands that report it. */
  mcpTools?(): Promise<McpSurface>
  /** Serve MCP on the given streams until the client disconnects (loads the SDK; `mcp serve`). */
  mcpServe?(req: McpServeRequest): Promise<void>
  /** Serve MCP over Streamable HTTP until closed (loads the SDK's HTTP transport; `mcp serve --http`). */
  mcpServeHttp?(req: McpHttpRequest): Promise<McpHttpHandle>
  /** The git repository containing `cwd` (exit 1 when there is none); loads the git adapter. */
  git?(cwd: string, env: Env): Promise<Git>
  /** Start the board's web server over this workspace (`dacli board`; loads the server only then). */
  boardServe?(req: BoardServeRequest): Promise<BoardHandle>
  /**
   * For a long-lived server (`mcp serve`, `board`): a store opener whose stores share one memory of the workspace
   * per process (store/live.ts), kept fresh by the change journal and a watch of the task folders. Servers that
   * run in one process over one workspace share it. Release it when the server stops.
   */
  sharedStore?(): SharedStore
}

/** See Services.sharedStore. */
export interface SharedStore {
  /** Opens the workspace found from `cwd` for one call, sharing the memory (what changed since is taken in first). */
  open(cwd: string, env: Env, now: () => Date): Promise<Store>
  release(): void
}

export interface BoardServeOptions {
  /** The interface to listen on (loopback unless given explicitly). */
  readonly host: string
  /** 0 picks a free port. */
  readonly port: number
  readonly readOnly: boolean
  /** Open the page in the system's browser once listening. */
  readonly open: boolean
  /** The workspace folders to watch for changes, listed again on every scan. */
  folders(): readonly string[]
  /** The identity actions run as (shown on the page). */
  readonly identity: string
}

export interface BoardServeRequest extends BoardServeOptions {
  /** The runtime every API call and action runs in (a fresh IO is added per call; identity from its env). */
  readonly runtime: Omit<Runtime, 'io'>
  /** A line for people on stderr. */
  readonly log: (line: string) => void
}

export interface BoardHandle {
  readonly url: string
  readonly port: number
  readonly host: string
  /** Stop serving: close connections and watchers (resolves once closed). */
  close(): Promise<void>
}

export interface McpSurface {
  protocol_version: string
  tool_schema_version: number
  tools: { name: string; schema_version: number }[]
}

/** The raw standard streams, for the one command that speaks a protocol on them (`mcp serve`). */
export interface Stdio {
  readonly stdin: NodeJS.ReadableStream
  readonly stdout: NodeJS.WritableStream
}

/** One entry of `resources/list`. */
export interface McpResource {
  readonly uri: string
  /** The qualified reference (`ledger/012-audit-writes`, `ledger`, `ledger/use-x`). */
  readonly name: string
  readonly title: string
  readonly mimeType: string
}

/**
 * The workspace's objects as MCP resources (features/mcp/resources.ts knows the format; the server in internal/mcp
 * speaks the protocol). Every function takes the store of one request (opened fresh, like a tool call's).
 */
export interface McpResources {
  /** One page of every resource, in a fixed order (projects, tasks, notes); `next` is null on the last page. */
  list(store: Store, cursor: string | null): Promise<{ resources: McpResource[]; next: string | null }>
  /**
   * The file as stored, and where (its path: a task's status is its folder, so a move is a change to it). Not found
   * (4) for an unknown object, usage (2) for a uri this server does not serve.
   */
  read(store: Store, uri: string): Promise<{ contents: { uri: string; mimeType: string; text: string }; path: string }>
  /** Every resource's uri (whether the list changed). */
  uris(store: Store): Promise<readonly string[]>
  /** The workspace folders whose changes may change a resource. */
  folders(store: Store): readonly string[]
  readonly templates: readonly { uriTemplate: string; name: string; description: string; mimeType: string }[]
}

export interface McpServeOptions {
  readonly profile: 'full' | 'minimal'
  /** Serve the workspace's tasks, projects and notes as resources, with subscriptions. */
  readonly resources?: McpResources
  /** Called once the server is connected (the command prints its banner on stderr). */
  readonly onListening: (info: { tools: number }) => void
}

export interface McpServeRequest extends McpServeOptions {
  readonly stdio: Stdio
  /** Every tool call's runtime (a fresh IO is added per call); `identity` is bound. */
  readonly runtime: Omit<Runtime, 'io'>
  /** A line for stderr (the protocol owns stdout). */
  readonly log: (line: string) => void
  /**
   * Run `stop` when the process is told to stop (Ctrl-C, SIGTERM): the calls under way stop waiting and are answered,
   * no more input is read, and the server closes. Absent (tests, embedders), it serves until stdin ends.
   */
  readonly onStop?: (stop: () => void) => void
}

export interface McpHttpOptions {
  readonly profile: 'full' | 'minimal'
  /** Serve the workspace's tasks, projects and notes as resources, with subscriptions (each session its own). */
  readonly resources?: McpResources
  /** The interface to listen on (a loopback address unless the command was told --allow-remote). */
  readonly host: string
  /** 0 picks a free port. */
  readonly port: number
  /**
   * The launch token: whether a token is it (the command keeps only its hash, as agent files do) and the identity
   * it stands for (the one the server was started as). Any agent token of the workspace is accepted beside it.
   */
  readonly launch: { accepts(token: string): boolean; readonly identity: Identity }
}

/** Who a bearer token is, and the environment its calls run in (DACLI_AGENT set to it, or the server's own). */
export interface McpCaller {
  readonly identity: Identity
  readonly env: Env
  /** How its calls' identity refusals name the token and what to do (the bearer token); DACLI_AGENT if absent. */
  readonly via?: TokenVia
}

export interface McpHttpRequest extends Omit<McpHttpOptions, 'launch'> {
  /** The runtime every call runs in, with the caller's env and identity put in per session (a fresh IO per call). */
  readonly runtime: Omit<Runtime, 'io'>
  /**
   * Resolve a bearer token exactly as DACLI_AGENT is resolved on the CLI (the launch token as the launching
   * identity); throws the RefusedError the CLI would (unknown, retired, untrusted).
   */
  authenticate(token: string): Promise<McpCaller>
  /** Who the server fills its memory of the workspace as, at start (mcp/warm.ts): the launching identity. */
  readonly warmAs: McpCaller
  /** A line for stderr. */
  readonly log: (line: string) => void
}

export interface McpHttpHandle {
  /** The endpoint (`http://127.0.0.1:PORT/mcp`). */
  readonly url: string
  readonly host: string
  readonly port: number
  /** Stop serving: end the sessions and their streams, close the listener (resolves once closed). */
  close(): Promise<void>
}

export interface DocumentRegistry {
  /** Schema id (`task/v1`) → JSON Schema (draft 2020-12), as published under schemas/. */
  jsonSchemas(): Record<string, Record<string, unknown>>
}

export interface Context {
  /** Warnings and notes for people (stderr; silenced by --quiet). */
  readonly notes: Notes
  readonly cwd: string
  readonly env: Env
  readonly now: () => Date
  /** The running process (cmd/system.ts), as the bin handed it down. */
  readonly system: System
  /** `--json` was requested (commands never print JSON themselves; this only tunes stderr chatter). */
  readonly json: boolean
  /**
   * The width to lay out text a command writes itself (help): the terminal's, at most 100; 100 when stdout is no
   * terminal. Text laid out wider on a terminal would be wrapped a second time by the output, with ragged indents.
   */
  readonly width: number
  /** The acting identity (from DACLI_AGENT), resolved once per invocation. */
  identity(): Promise<Identity>
  store(): Promise<Store>
  documents(): Promise<DocumentRegistry>
  /** The MCP tool surface this build serves (null when the build has no MCP server). */
  mcpSurface(): Promise<McpSurface | null>
  /** The git repository around `cwd` (exit 1 outside git). Loads isomorphic-git on first call. */
  git(): Promise<Git>
  /** Serve this workspace over MCP on the standard streams, as this invocation's identity (`mcp serve`). */
  mcpServe(opts: McpServeOptions): Promise<void>
  /**
   * Serve this workspace over MCP's Streamable HTTP transport; like the board it keeps serving after the command
   * returns, until the bin is interrupted (refused where nothing can interrupt it).
   */
  mcpServeHttp(opts: McpHttpOptions): Promise<McpHttpHandle>
  /**
   * Start the board's web server; it keeps serving after the command returns, until the bin is interrupted
   * (Ctrl-C), when it closes cleanly. Refused where nothing can interrupt it (the MCP server, tests without a hook).
   */
  boardServe(opts: BoardServeOptions): Promise<BoardHandle>
  /** The command table this invocation dispatches from (help, catalog, capabilities). */
  readonly table: readonly CommandEntry[]
  /** The path of the running command. */
  readonly commandPath: string
  /** The path of the executing bin, when known (the compatibility report names it). */
  readonly bin: string | null
  /**
   * A streaming command's report of one item (`streams` in its declaration): printed at once as one JSON line with
   * `--jsonl`, through `human` otherwise, and not at all under `--json` (the final document says it all).
   */
  emit(doc: { readonly schema: string }, human: (out: Out) => void): void
  /**
   * Aborts on Ctrl-C (SIGINT) or SIGTERM (the runtime's `onInterrupt`, or its `signal`); null where nothing can
   * interrupt this invocation (an MCP tool call, an embedding): a command must not run unbounded there.
   */
  interrupt(): AbortSignal | null
  /**
   * Aborts when the caller gave up on this invocation (an MCP tool call cancelled, or its session closed): a
   * `--verify` command is killed and the command fails with nothing written; a bounded wait ends early. Null where
   * only the process's own end can stop it (the bin: Ctrl-C is `interrupt`).
   */
  readonly cancel: AbortSignal | null
  /**
   * Run another command of the table as this invocation's caller (same identity, flag parsing, grant gate,
   * refusals, journal and autorecord: the one `invoke()`), its output captured rather than printed. `run` runs a
   * shortcut's steps through it.
   */
  dispatch(path: string, argv: readonly string[]): Promise<Dispatched>
}

/** What a dispatched command did: its exit code, its document or error envelope, and what it printed. */
export interface Dispatched {
  readonly exitCode: number
  readonly data: unknown
  readonly error: {
    readonly kind: string
    readonly message: string
    readonly details: Readonly<Record<string, unknown>>
    readonly next_actions: readonly string[]
  } | null
  readonly stdout: string
  readonly stderr: string
}

/** What ends a wait (a watch, pr wait): Ctrl-C, and the caller giving up on the call (ctx.cancel), where they exist. */
export function waitEnders(ctx: Pick<Context, 'interrupt' | 'cancel'>): AbortSignal[] {
  return [ctx.interrupt(), ctx.cancel].filter((s) => s !== null)
}
