// How many of an identity's events `agent show` lists (agent/v1 events; events_total counts them all).
export const AGENT_EVENTS_SHOWN = 20
