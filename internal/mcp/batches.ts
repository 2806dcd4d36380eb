// JSON-RPC batches, taken or refused by the protocol version a connection negotiated, the same on stdio and over
// HTTP: MCP 2025-03-26 takes a batch (an array of messages), 2025-06-18 removed them, and older versions are read
// as 2025-03-26 was.

import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'

/** The version the server answers an initialize asking for `requested` with (the SDK's rule: itself, or the latest). */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION
}

/** Whether a connection on this version takes batches (versions are dates, compared as text). */
export function takesBatches(version: string): boolean {
  return version < '2025-06-18'
}

/** Why a batch is refused on a connection of this version (null: before initialize). */
export function batchRefused(version: string | null): string {
  return version === null
    ? 'Invalid Request: a batch before initialize (send initialize alone first)'
    : `Invalid Request: protocol version ${version} takes no JSON-RPC batches (2025-03-26 does)`
}
